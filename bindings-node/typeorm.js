// TypeORM (PostgreSQL): Snowflake keys minted by the process's generator before
// each INSERT, stored with the ID's 64 bits in a `bigint`, and time ranges on the key.
//
//   const { SnowflakeKey, SnowflakeColumn, idRange } = require('polyflake/typeorm')
//   const ids = Generator.fromEnv('twitter')        // the process's one generator
//   @Entity() class Order {
//     @SnowflakeKey(ids) id                         // ids.nextId() before the INSERT
//     @SnowflakeColumn({ nullable: true }) parentId
//   }
//   repo.find({ where: { id: idRange('twitter', since, until) } })
//
// In JS an ID is a `bigint` from 0 to 2^64 - 1; in PostgreSQL a `bigint` with
// the same 64 bits, as the extension's next_id() and Kotlin's Long store it (an
// ID with bit 63 set is a negative bigint). A value outside that range is
// refused with the core's code before it reaches the database. typeorm is an
// optional peer dependency: the base package does not need it.
'use strict'

const { BeforeInsert, Between, Column, LessThanOrEqual, MoreThanOrEqual, Or, PrimaryColumn } = require('typeorm')
const { checkedGenerator, fromBigint, keyBounds, toBigint } = require('./sql.js')

/**
 * The column transformer of an ID: a `bigint` in 0..2^64-1 in JS, the signed
 * `bigint` with the same bits in PostgreSQL (which the driver reads as text).
 */
const snowflakeTransformer = Object.freeze({
  to(value) {
    if (value === null || value === undefined) return value
    return toBigint(value)
  },
  from(value) {
    if (value === null || value === undefined) return value
    return fromBigint(value)
  },
})

/** Column options for an ID (`EntitySchema` columns take them as they are). */
function snowflakeColumn(options = {}) {
  return { ...options, type: 'bigint', transformer: snowflakeTransformer }
}

/** A column holding a Snowflake ID (decorator). */
function SnowflakeColumn(options = {}) {
  return Column(snowflakeColumn(options))
}

/**
 * The primary key, set to `generator.nextId()` before the entity's INSERT
 * (`save`, `insert`, the query builder's insert of entities) unless it is set
 * already (decorator).
 */
function SnowflakeKey(generator, options = {}) {
  checkedGenerator(generator, 'SnowflakeKey')
  const primary = PrimaryColumn(snowflakeColumn(options))
  return function (target, propertyKey) {
    primary(target, propertyKey)
    // A listener method of the entity's own, through TypeORM's public BeforeInsert.
    const listener = `polyflakeKey_${String(propertyKey)}`
    Object.defineProperty(target, listener, {
      value() {
        if (this[propertyKey] === undefined || this[propertyKey] === null) this[propertyKey] = generator.nextId()
      },
      configurable: true,
    })
    BeforeInsert()(target, listener)
  }
}

/**
 * The find operator for the IDs of `layout` issued from `since` to `until`,
 * both included (Dates or milliseconds since 1970), which the key's index
 * answers; right across bit 63 too.
 */
function idRange(layout, since, until) {
  const { low, high, crossesBit63 } = keyBounds(layout, since, until)
  return crossesBit63 ? Or(MoreThanOrEqual(low), LessThanOrEqual(high)) : Between(low, high)
}

module.exports = { snowflakeTransformer, snowflakeColumn, SnowflakeColumn, SnowflakeKey, idRange }
