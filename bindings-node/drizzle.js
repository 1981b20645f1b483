// Drizzle ORM (PostgreSQL): Snowflake keys minted by the process's generator,
// stored with the ID's 64 bits in a `bigint`, and time ranges on the key.
//
//   const { snowflakeId, snowflakeKey, idRange } = require('polyflake/drizzle')
//   const ids = Generator.fromEnv('twitter')            // the process's one generator
//   const orders = pgTable('orders', {
//     id: snowflakeKey(ids),                              // DEFAULT: ids.nextId(), per row
//     parentId: snowflakeId('parent_id'),
//   })
//   db.select().from(orders).where(idRange(orders.id, 'twitter', since, until))
//
// In JS an ID is a `bigint` from 0 to 2^64 - 1; in PostgreSQL a `bigint` with
// the same 64 bits, as the extension's next_id() and Kotlin's Long store it
// (an ID with bit 63 set is a negative bigint). A value outside that range is
// refused with the core's code before it reaches the database. drizzle-orm is
// an optional peer dependency: the base package does not need it.
'use strict'

const { and, gte, lte, or } = require('drizzle-orm')
const { customType } = require('drizzle-orm/pg-core')
const { checkedGenerator, fromBigint, keyBounds, toBigint } = require('./sql.js')

/** A column holding a Snowflake ID: `bigint` in JS and in PostgreSQL, the same 64 bits. */
const snowflakeId = customType({
  dataType() {
    return 'bigint'
  },
  toDriver(value) {
    return toBigint(value)
  },
  fromDriver(value) {
    return fromBigint(value)
  },
})

/** The primary key whose default is `generator.nextId()`, called once per inserted row. */
function snowflakeKey(generator, name) {
  checkedGenerator(generator, 'snowflakeKey')
  const column = name === undefined ? snowflakeId() : snowflakeId(name)
  return column.primaryKey().$defaultFn(() => generator.nextId())
}

/**
 * The condition that `column` holds an ID of `layout` issued from `since` to
 * `until`, both included (Dates or milliseconds since 1970), which the key's
 * index answers; right across bit 63 too.
 */
function idRange(column, layout, since, until) {
  const bounds = keyBounds(layout, since, until)
  const low = gte(column, bounds.low)
  const high = lte(column, bounds.high)
  return bounds.crossesBit63 ? or(low, high) : and(low, high)
}

module.exports = { snowflakeId, snowflakeKey, idRange }
