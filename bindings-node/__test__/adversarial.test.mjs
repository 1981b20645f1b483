// Random bad input against every entry point of the built package: no crash,
// no error without one of the documented codes, no input silently changed.
// POLYFLAKE_FUZZ_CASES sets how many calls (a few thousand in `make test`,
// 100,000 in `make fuzz`); POLYFLAKE_FUZZ_SEED replays a run.
import assert from 'node:assert/strict'
import { test } from 'node:test'

import * as pf from 'polyflake'

import { rng } from './rng.mjs'

const CASES = Number(process.env.POLYFLAKE_FUZZ_CASES ?? 3000)
const SEED = Number(process.env.POLYFLAKE_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 32))

const CODES = new Set([
  'FIELD_OUT_OF_RANGE', 'TIMESTAMP_BEFORE_EPOCH', 'TIMESTAMP_OVERFLOW', 'INVALID_LAYOUT', 'INVALID_ENCODING',
  'CLOCK_MOVED_BACKWARDS', 'LEASE_LOST', 'INVALID_ARGUMENT', 'STATE_IO', 'ERR_INVALID_ARG_TYPE', 'ERR_OUT_OF_RANGE',
])

const PRESETS = [...pf.Layout.PRESETS]

function value(r) {
  switch (r.below(14)) {
    case 0: return BigInt(r.below(2 ** 31)) * BigInt(r.below(2 ** 31)) * (r.next() < 0.3 ? -1n : 1n) * 17n
    case 1: return r.pick([0n, 1n, -1n, 2n ** 63n, 2n ** 64n, 2n ** 64n - 1n, -(2n ** 63n), 4096n])
    case 2: return r.pick([0, -1, 1.5, NaN, Infinity, -Infinity, 2 ** 53, 2 ** 53 + 2, 2 ** 32, -0, 1e300])
    case 3: return Array.from({ length: r.below(20) }, () => r.pick([...'0123456789abcdefXYZ-+ _\u0000é'])).join('')
    case 4: return Buffer.from(Array.from({ length: r.below(12) }, () => r.below(256)))
    case 5: return r.pick([null, undefined, true, false, [], {}, () => 1, Symbol('s'), new Date(NaN), new Date(0)])
    case 6: return r.pick([...PRESETS, '', 'Twitter', 'twitter ', 'custom'])
    case 7: return r.pick([...pf.ENCODINGS, 'BASE58', 'base62', ''])
    case 8: return new Float64Array(r.below(4))
    case 9: return { valueOf: () => 5, toString: () => '5' }
    default: return BigInt(r.below(2 ** 32)) * BigInt(r.below(2 ** 32))
  }
}

function layoutArg(r) {
  if (r.next() < 0.6) return r.pick(PRESETS)
  try {
    return pf.Layout.custom({
      epochMs: r.next() < 0.3 ? value(r) : r.below(2 ** 40),
      timeBits: r.next() < 0.3 ? value(r) : r.below(66),
      nodes: Array.from({ length: r.below(10) }, (_, i) => ({ name: `f${i}`, bits: r.next() < 0.2 ? value(r) : r.below(70) })),
      sequenceBits: r.pick([undefined, 0, 1, 12, 70, value(r)]),
      tickMs: r.pick([undefined, 0, 1, 10, value(r)]),
    })
  } catch (e) {
    coded(e)
    return value(r)
  }
}

function coded(e) {
  assert.ok(e instanceof Error, `not an Error: ${String(e)}`)
  assert.ok(CODES.has(e.code), `an error without a documented code: ${e.constructor.name} ${e.code} ${e.message}`)
}

const encodingArg = (r) => (r.next() < 0.3 ? value(r) : r.pick(pf.ENCODINGS))
const CASELESS = new Set(['hex', 'base36', 'crockford32'])

const calls = [
  function decode(r) {
    const layout = layoutArg(r)
    const id = value(r)
    const parts = pf.decode(id, layout)
    assert.equal(parts.id, BigInt(id))
    const fields = { ...parts }
    delete fields.id
    delete fields.time
    assert.equal(pf.compose(layout, fields), BigInt(id))
  },
  function compose(r) {
    const layout = layoutArg(r)
    const parts = { timestampMs: value(r), sequence: value(r) }
    for (const k of ['datacenterId', 'machineId', 'nodeId', 'workerId', 'processId', 'shardId', 'f0']) {
      if (r.next() < 0.4) parts[k] = value(r)
    }
    const id = pf.compose(layout, parts)
    const back = pf.decode(id, layout)
    assert.equal(BigInt(back.sequence), BigInt(parts.sequence))
  },
  function parseId(r) {
    const text = value(r)
    const encoding = encodingArg(r)
    const id = pf.parseId(text, encoding)
    assert.ok(id >= 0n && id < 2n ** 64n)
    const formatted = pf.formatId(id, encoding)
    // Accepted: the text was the canonical spelling (letter case aside where it may vary),
    // as a string or as its ASCII bytes.
    const given = Buffer.isBuffer(text) && encoding !== 'bytes' ? text.toString('latin1') : text
    if (Buffer.isBuffer(formatted)) assert.ok(Buffer.isBuffer(given) && formatted.equals(given))
    // Crockford's canonical spelling is upper case, hex's and base36's lower: compare caseless ones folded.
    else if (CASELESS.has(encoding)) assert.equal(formatted.toLowerCase(), given.toLowerCase())
    else assert.equal(formatted, given)
  },
  function formatId(r) {
    const id = value(r)
    const encoding = encodingArg(r)
    assert.equal(pf.parseId(pf.formatId(id, encoding), encoding), BigInt(id))
  },
  function generator(r) {
    const layout = layoutArg(r)
    const options = { onClockBackwards: r.pick(['fail', 'wait', 'logical', value(r)]) }
    for (const k of r.pick([['datacenterId', 'machineId'], ['nodeId'], ['shardId'], ['f0']])) options[k] = value(r)
    const g = new pf.Generator(layout, options)
    const ids = g.nextIds(r.next() < 0.5 ? value(r) : r.below(50))
    for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1] < ids[i])
  },
  function range(r) {
    const layout = layoutArg(r)
    const ts = value(r)
    assert.ok(pf.minId(layout, ts) <= pf.maxId(layout, ts))
  },
  function explain(r) {
    const segments = pf.explain(value(r), layoutArg(r))
    assert.ok(segments.length >= 2)
  },
]

test('random bad input is refused with a code, never crashes or changes', () => {
  const r = rng(SEED)
  const outcomes = { accepted: 0, refused: 0 }
  for (let i = 0; i < CASES; i++) {
    const call = calls[i % calls.length]
    try {
      call(r)
      outcomes.accepted++
    } catch (e) {
      if (e instanceof assert.AssertionError) throw new Error(`seed ${SEED}, case ${i} (${call.name}): ${e.message}`)
      try {
        coded(e)
      } catch (uncoded) {
        throw new Error(`seed ${SEED}, case ${i} (${call.name}): ${uncoded.message}`)
      }
      outcomes.refused++
    }
  }
  assert.ok(outcomes.accepted > CASES / 20 && outcomes.refused > CASES / 20, JSON.stringify(outcomes))
})
