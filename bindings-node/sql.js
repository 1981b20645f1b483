// What the SQL integrations (drizzle.js, typeorm.js) share: an ID in a PostgreSQL
// `bigint`, and the bounds of a time range on the key. A bigint is signed;
// an ID is not: every integration stores the ID's 64 bits, as the PostgreSQL
// extension and Kotlin's Long do.
'use strict'

const pf = require('./polyflake.js')

const BIT_63 = 1n << 63n

/** `id` as a bigint if it is an ID (a bigint, or a decimal string, in 0..2^64-1); else the core's error. */
function checkedId(id) {
  if (typeof id === 'string') return pf.parseId(id, 'decimal')
  if (typeof id !== 'bigint') {
    const err = new TypeError(`a Snowflake ID is a bigint (or a decimal string), not ${typeof id}`)
    err.code = 'ERR_INVALID_ARG_TYPE'
    throw err
  }
  pf.formatId(id, 'decimal') // the core's range check, with its code
  return id
}

/** The signed `bigint` PostgreSQL stores for an ID (checked as `checkedId` does), as decimal text. */
function toBigint(id) {
  return BigInt.asIntN(64, checkedId(id)).toString()
}

/** The ID a PostgreSQL `bigint` (as the driver reads it: text or a number) holds. */
function fromBigint(value) {
  return BigInt.asUintN(64, BigInt(value))
}

/** The IDs of `layout` issued from `since` to `until`, both included. */
function keyBounds(layout, since, until) {
  const low = pf.minId(layout, since)
  const high = pf.maxId(layout, until)
  if (low > high) {
    const err = new RangeError(`since (${since}) is after until (${until})`)
    err.code = 'ERR_OUT_OF_RANGE'
    throw err
  }
  return { low, high, crossesBit63: low < BIT_63 && high >= BIT_63 }
}

/**
 * `generator` if it is a polyflake Generator: a key default takes the
 * process's one generator, made once, never a layout to make one per row from.
 */
function checkedGenerator(generator, what) {
  if (generator instanceof pf.Generator) return generator
  const err = new TypeError(
    `${what} takes the process's polyflake Generator, made once: a generator per call ` +
      'would issue one node value from many generators',
  )
  err.code = 'ERR_INVALID_ARG_TYPE'
  throw err
}

module.exports = { checkedGenerator, checkedId, fromBigint, keyBounds, toBigint }
