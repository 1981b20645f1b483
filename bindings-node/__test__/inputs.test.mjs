import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'

import * as pf from 'polyflake'

/** Runs `fn` with `vars` in the real environment (undefined: unset), then puts back what was there. */
function withEnv(vars, fn) {
  const before = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]))
  const set = (values) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
  }
  set(vars)
  try {
    return fn()
  } finally {
    set(before)
  }
}

const ID = pf.compose('twitter', { timestampMs: 1700000000123, sequence: 7, datacenterId: 3, machineId: 17 })

test('IDs are bigint in and out, never a lossy number', () => {
  assert.equal(typeof ID, 'bigint')
  assert.equal(pf.decode(ID.toString(), 'twitter').id, ID)
  assert.equal(pf.parseId(pf.formatId(ID, 'base58'), 'base58'), ID)
  const big = 2n ** 64n - 1n
  assert.equal(pf.parseId(pf.formatId(big, 'hex'), 'hex'), big)
  assert.equal(typeof new pf.Generator('snowflake', { nodeId: 1 }).nextIds(2)[0], 'bigint')
})

test('bad 64-bit inputs name the argument', () => {
  const table = [
    [2 ** 53, RangeError, 'ERR_OUT_OF_RANGE'],
    [-1, RangeError, 'ERR_OUT_OF_RANGE'],
    [-1n, RangeError, 'ERR_OUT_OF_RANGE'],
    [2n ** 64n, RangeError, 'ERR_OUT_OF_RANGE'],
    [1.5, TypeError, 'ERR_INVALID_ARG_TYPE'],
    [NaN, TypeError, 'ERR_INVALID_ARG_TYPE'],
    [null, TypeError, 'ERR_INVALID_ARG_TYPE'],
    [true, TypeError, 'ERR_INVALID_ARG_TYPE'],
    ['12abc', RangeError, 'INVALID_ENCODING'],
    ['-5', RangeError, 'INVALID_ENCODING'],
  ]
  for (const [value, kind, code] of table) {
    for (const call of [() => pf.decode(value, 'twitter'), () => pf.formatId(value, 'hex'), () => pf.explain(value, 'twitter')]) {
      assert.throws(call, (e) => e instanceof kind && e.code === code && /\bid\b/.test(e.message), String(value))
    }
  }
  assert.throws(
    () => pf.compose('twitter', { timestampMs: 1700000000000, sequence: 0, datacenterId: 1, machineId: -3 }),
    { name: 'RangeError', code: 'ERR_OUT_OF_RANGE', message: /machineId/ },
  )
  assert.throws(
    () => pf.compose('twitter', { timestampMs: 1700000000000, sequence: 0, datacenterId: 1, machineId: 32 }),
    { name: 'RangeError', code: 'FIELD_OUT_OF_RANGE', message: /machineId = 32 is out of range 0..=31/ },
  )
  assert.throws(() => pf.compose('twitter', { timestampMs: 1700000000000, sequence: 0, datacenterId: 1 }), {
    name: 'TypeError',
    code: 'INVALID_ARGUMENT',
  })
  assert.throws(() => pf.minId('twitter', 1.5), { name: 'TypeError', message: /timestampMs/ })
  assert.throws(() => pf.decode(1n, 42), { name: 'TypeError', message: /layout/ })
  assert.throws(() => pf.formatId(1n, 'base99'), { name: 'TypeError', code: 'INVALID_ARGUMENT' })
  assert.equal(pf.minId('twitter', new Date(1700000000000)), pf.minId('twitter', 1700000000000))
})

test('generator options are checked', () => {
  assert.throws(() => new pf.Generator('twitter', { datacenterId: 1, machineId: 2, onClockBackwards: 'panic' }), {
    code: 'INVALID_ARGUMENT',
  })
  assert.throws(() => new pf.Generator('twitter', { datacenterId: 1, machinId: 2 }), { code: 'INVALID_ARGUMENT', message: /machin_id|machinId/ })
  assert.throws(() => new pf.Generator('twitter', { datacenterId: 32, machineId: 0 }), { code: 'FIELD_OUT_OF_RANGE' })
  const g = new pf.Generator('twitter', { datacenterId: 3, machineId: 4, clock: 'wall', onClockBackwards: 'fail' })
  assert.deepEqual(g.nodeFields, { datacenterId: 3, machineId: 4 })
  assert.ok(g instanceof pf.Generator)
  assert.ok(g.nextId() < g.nextId())
  assert.ok(Number(g.nextIdString()) > 0)
})

test('clock going backwards is an Error with how far', () => {
  const clock = new pf.ManualClock(pf.Layout.TWITTER.epochMs + 10000)
  const g = new pf.Generator('twitter', { clock, onClockBackwards: 'fail', datacenterId: 0, machineId: 0 })
  g.nextId()
  clock.advance(-7)
  assert.throws(() => g.nextId(), (e) => e.constructor === Error && e.code === 'CLOCK_MOVED_BACKWARDS' && /by 7 ms/.test(e.message))
})

test('a Rust panic is a JS error, not a crash', () => {
  // The hook exists only in test builds (feature `test-hooks`): read it off the addon itself.
  const addon = createRequire(import.meta.url)('../polyflake.linux-x64-gnu.node')
  assert.throws(() => addon._panicForTests(), /deliberate panic/)
  assert.ok(pf.decode(ID, 'twitter'))
})

test('JSON writes IDs as strings and refuses bare numbers', () => {
  const text = JSON.stringify({ id: ID, parent: { id: 2n ** 63n + 1n }, n: 3 }, pf.jsonReplacer)
  assert.equal(text, `{"id":"${ID}","parent":{"id":"${2n ** 63n + 1n}"},"n":3}`)
  assert.deepEqual(JSON.parse(text, pf.jsonReviver(['id'])), { id: ID, parent: { id: 2n ** 63n + 1n }, n: 3 })
  assert.throws(() => JSON.parse('{"id": 12}', pf.jsonReviver()), { name: 'TypeError' })
  assert.throws(() => JSON.parse('{"id": "012"}', pf.jsonReviver()), { code: 'INVALID_ENCODING' })
})

test('JSON reads IDs under the one documented key rule', () => {
  // Written out by hand from the rule in the docs, not from isIdKey.
  const text = '{"ids":["1","2"],"user_id":"3","orderIds":["4"],"parentID":"5","paid":"6","uuid":"7","items":[{"sku_id":"8","qty":9}]}'
  assert.deepEqual(JSON.parse(text, pf.jsonReviver()), {
    ids: [1n, 2n], user_id: 3n, orderIds: [4n], parentID: 5n, paid: '6', uuid: '7', items: [{ sku_id: 8n, qty: 9 }],
  })
  assert.deepEqual(JSON.parse('{"id":"1","user_id":"x"}', pf.jsonReviver(['id'])), { id: 1n, user_id: 'x' })
  assert.throws(() => JSON.parse('{"ids":["1",2]}', pf.jsonReviver()), { name: 'TypeError', message: /ids must be a decimal string/ })
  assert.deepEqual(['id', 'ids', 'userId', 'paid', 'Id'].map(pf.isIdKey), [true, true, true, false, false])
})

test('errors name fields as a JS caller spells them', () => {
  assert.throws(() => pf.compose('twitter', { timestampMs: 1288834974657, sequence: 0, datacenterId: 1, machineId: 40 }),
    (e) => e.code === 'FIELD_OUT_OF_RANGE' && e.field === 'machineId' && /machineId/.test(e.message) && !/machine_id/.test(e.message))
  assert.equal(pf.Layout.TWITTER.maxSequence, 4095)
})

test('CommonJS and ESM see one module', () => {
  const cjs = createRequire(import.meta.url)('polyflake')
  assert.equal(cjs.compose, pf.compose)
  assert.equal(cjs.Generator, pf.Generator)
  assert.equal(pf.default.decode, pf.decode)
})

test('fromEnv follows the environment', () => {
  const dir = mkdtempSync(join(tmpdir(), 'polyflake-node-env-'))
  withEnv({ POLYFLAKE_STATE_DIR: dir, POLYFLAKE_NODE_ID: '37' }, () => {
    const g = pf.Generator.fromEnv('twitter')
    assert.deepEqual(g.nodeFields, { datacenterId: 1, machineId: 5 })
    assert.match(g.identitySource, /^POLYFLAKE_NODE_ID=37 \(locked at /)
    assert.ok(g instanceof pf.Generator)
    // One live generator per identity: the second is refused, naming the holder.
    assert.throws(() => pf.Generator.fromEnv('twitter').claim(),
      (e) => e.code === 'LEASE_LOST' && e.message.includes(`pid ${process.pid}`) && e.reason === 'taken_over')
  })
  withEnv({ POLYFLAKE_STATE_DIR: dir, POLYFLAKE_NODE_ID: 'x' }, () => {
    assert.throws(() => pf.Generator.fromEnv('twitter'), { code: 'INVALID_ARGUMENT', kind: 'configuration', message: /POLYFLAKE_NODE_ID/ })
  })
})

test('close gives up the identity at once, while the generator is still referenced', () => {
  const dir = mkdtempSync(join(tmpdir(), 'polyflake-node-close-'))
  withEnv({ POLYFLAKE_STATE_DIR: dir, POLYFLAKE_NODE_ID: '37' }, () => {
    const g = pf.Generator.fromEnv('twitter')
    const issued = g.nextIds(1000)
    g.close()
    for (const call of [() => g.nextId(), () => g.nextIdString(), () => g.nextIds(2)]) {
      assert.throws(call, (e) => e.code === 'LEASE_LOST' && /closed/.test(e.message) && e.reason === 'closed' && e.retryable === false)
    }
    const successor = pf.Generator.fromEnv('twitter')
    assert.ok(successor.nextId() > issued[issued.length - 1])
    successor.close()
    successor.close()
  })
})

test('a check on the local lease takes the next value; a given value it refuses is an error', () => {
  const dir = mkdtempSync(join(tmpdir(), 'polyflake-node-check-'))
  withEnv({ POLYFLAKE_STATE_DIR: dir, POLYFLAKE_NODE_ID: undefined }, () => {
    const g = pf.Generator.fromEnv('snowflake', { check: (nodes) => nodes[0] !== 0 })
    assert.deepEqual(g.nodeFields, { nodeId: 1 })
    assert.throws(() => new pf.Generator('snowflake', { nodeId: 1, check: () => true }), { name: 'TypeError' })
  })
  withEnv({ POLYFLAKE_STATE_DIR: dir, POLYFLAKE_NODE_ID: '0' }, () => {
    assert.throws(() => pf.Generator.fromEnv('snowflake', { check: (nodes) => nodes[0] !== 0 }).claim(),
      { code: 'INVALID_ARGUMENT', message: /refused node values \[0\]/ })
  })
})

test('batch sizes are checked: never wrapped, truncated or allocated past the maximum', () => {
  const g = new pf.Generator('snowflake', { nodeId: 1 })
  for (const n of [-1, 1.5, NaN, '3x', 2 ** 53]) {
    assert.throws(() => g.nextIds(n), (e) => (e instanceof RangeError || e instanceof TypeError) && typeof e.code === 'string', String(n))
  }
  for (const n of [2 ** 24 + 1, 2 ** 32]) {
    assert.throws(() => g.nextIds(n), (e) => e instanceof RangeError && e.code === 'FIELD_OUT_OF_RANGE' && /16777216/.test(e.message), String(n))
  }
  assert.equal(g.nextIds(3).length, 3)
  assert.equal(g.nextIds(3n).length, 3)
})

test('a decoder never writes into a detached or foreign buffer', () => {
  // The native function polyflake.js builds decode on, as anyone can reach it.
  const { _bindDecode } = createRequire(import.meta.url)('../polyflake.linux-x64-gnu.node')
  const out = new Float64Array(4)
  const decode = _bindDecode('twitter', out)
  decode(ID)
  assert.equal(out[0], 1700000000123)
  structuredClone(out.buffer, { transfer: [out.buffer] })
  assert.equal(out.length, 0)
  assert.throws(() => decode(ID), (e) => e.code === 'INVALID_ARGUMENT' && /detached, or too short/.test(e.message))
  assert.throws(() => _bindDecode('twitter', new Float64Array(1)), (e) => e.code === 'INVALID_ARGUMENT')
  assert.throws(() => _bindDecode('twitter', [0, 0, 0, 0]), (e) => e instanceof TypeError)
  assert.throws(() => _bindDecode('twitter', new Float32Array(4)), (e) => e instanceof TypeError)
  assert.equal(pf.decode(ID, 'twitter').machineId, 17)
})

test('layout widths and node values are never wrapped, truncated or rounded', () => {
  const base = { epochMs: 1700000000000, timeBits: 41, nodes: [{ name: 'n', bits: 10 }] }
  for (const [change, code] of [
    [{ timeBits: 2 ** 32 + 41 }, 'ERR_OUT_OF_RANGE'],
    [{ timeBits: 1.5 }, 'ERR_INVALID_ARG_TYPE'],
    [{ tickMs: -1 }, 'ERR_OUT_OF_RANGE'],
    [{ epochMs: 2 ** 53 + 2 }, 'ERR_OUT_OF_RANGE'],
    [{ sequenceBits: true }, 'ERR_INVALID_ARG_TYPE'],
    [{ nodes: [{ name: 'n', bits: 2 ** 33 }] }, 'ERR_OUT_OF_RANGE'],
    [{ timeBit: 41 }, 'INVALID_ARGUMENT'],
  ]) {
    assert.throws(() => pf.Layout.custom({ ...base, ...change }), (e) => e.code === code, JSON.stringify(change))
  }
  const wide = pf.Layout.custom({ epochMs: 1700000000000, timeBits: 20, sequenceBits: 2, nodes: [{ name: 'big', bits: 40 }] })
  const g = new pf.Generator(wide, { big: 2n ** 33n + 5n })
  assert.equal(g.nodeFields.big, 2 ** 33 + 5)
  // -(2**63) is a valid 64-bit timestamp: before the epoch, not a conversion error.
  assert.throws(() => pf.compose('twitter', { timestampMs: -(2n ** 63n), sequence: 0, datacenterId: 0, machineId: 0 }),
    (e) => e.code === 'TIMESTAMP_BEFORE_EPOCH')
})

test('errors carry their details as properties, as Python\'s do', () => {
  assert.throws(() => pf.compose('twitter', { timestampMs: 1700000000000, sequence: 0, datacenterId: 1, machineId: 32 }),
    (e) => e instanceof RangeError && e.code === 'FIELD_OUT_OF_RANGE' && e.field === 'machineId' && e.value === 32n && e.max === 31n)
  assert.throws(() => pf.compose('twitter', { timestampMs: 5, sequence: 0, datacenterId: 1, machineId: 1 }),
    (e) => e.code === 'TIMESTAMP_BEFORE_EPOCH' && e.timestampMs === 5 && e.epochMs === 1288834974657)
  assert.throws(() => pf.parseId('x!', 'base58'), (e) => e.code === 'INVALID_ENCODING' && e.encoding === 'base58')
  const clock = new pf.ManualClock(pf.Layout.TWITTER.epochMs + 10000)
  const g = new pf.Generator('twitter', { clock, onClockBackwards: 'fail', datacenterId: 0, machineId: 0 })
  g.nextId()
  clock.advance(-7)
  assert.throws(() => g.nextId(), (e) => e.code === 'CLOCK_MOVED_BACKWARDS' && e.behindMs === 7 && e.allowedMs === 0)
})

test('bytes are bytes: parseId takes a Buffer for "bytes", never a string or another typed array', () => {
  const raw = pf.formatId(ID, 'bytes')
  assert.equal(pf.parseId(raw, 'bytes'), ID)
  assert.throws(() => pf.parseId('abcdefgh', 'bytes'), { code: 'ERR_INVALID_ARG_TYPE' })
  assert.throws(() => pf.parseId(new Float64Array(1), 'bytes'), { code: 'ERR_INVALID_ARG_TYPE' })
  assert.throws(() => pf.formatId(ID, 1n), { code: 'ERR_INVALID_ARG_TYPE' })
  assert.throws(() => pf.Layout.preset(7), { code: 'ERR_INVALID_ARG_TYPE' })
  for (const layout of [null, undefined, 5, {}]) {
    assert.throws(() => pf.decode(ID, layout), { code: 'ERR_INVALID_ARG_TYPE' })
  }
})

test('a state directory that cannot be created is a STATE_IO error with the OS error', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'polyflake-node-io-')), 'file')
  writeFileSync(file, '')
  withEnv({ POLYFLAKE_STATE_DIR: file, POLYFLAKE_NODE_ID: undefined }, () => {
    assert.throws(() => pf.Generator.fromEnv('snowflake').claim(),
      (e) => e.constructor === Error && e.code === 'STATE_IO' && e.path.startsWith(file) && e.errno > 0)
  })
})

test('decode in JS and the native decoder agree on every field, whatever the layout', () => {
  let seed = 20261201
  const below = (n) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    return Math.floor((seed / 2 ** 31) * n)
  }
  const random64 = () => (BigInt(below(2 ** 31)) << 33n) ^ (BigInt(below(2 ** 31)) << 16n) ^ BigInt(below(2 ** 31))
  const layouts = pf.Layout.PRESETS.map((name) => name)
  while (layouts.length < 60) {
    try {
      layouts.push(
        pf.Layout.custom({
          epochMs: below(2 ** 41),
          timeBits: 1 + below(48),
          // Fields that lie in the low half, the high half, or across bit 32.
          nodes: Array.from({ length: below(4) }, (_, i) => ({ name: `f${i}`, bits: 1 + below(40) })),
          sequenceBits: below(33),
          tickMs: 1 + below(10),
          sequenceAboveNodes: below(2) === 1,
        }),
      )
    } catch (e) {
      assert.ok(['INVALID_LAYOUT', 'INVALID_ARGUMENT'].includes(e.code), e.message)
    }
  }
  for (const layout of layouts) {
    const unused = (typeof layout === 'string' ? pf.Layout.preset(layout) : layout).unusedBits
    for (let i = 0; i < 200; i++) {
      const id = BigInt.asUintN(64 - unused, random64())
      const attempt = (arg) => {
        try {
          return [pf.decode(arg, layout), undefined]
        } catch (e) {
          return [undefined, e]
        }
      }
      const [inJs, jsError] = attempt(id) // a bigint: the JS path where the layout allows
      const [native, nativeError] = attempt(id.toString()) // a string: the native decoder
      if (nativeError !== undefined) {
        // Past 2^53 (a time field of 48 bits in 10 ms ticks): the same refusal either way.
        assert.equal(jsError?.message, nativeError.message)
        continue
      }
      assert.equal(jsError, undefined)
      assert.deepEqual({ ...inJs }, { ...native }, `${layout} ${id}`)
      assert.equal(inJs.time.getTime(), native.time.getTime())
      const fields = { ...inJs }
      delete fields.id
      assert.equal(pf.compose(layout, fields), id)
    }
    // Unused bits set, negative, past 64 bits: refused with the native path's error.
    for (const bad of [-1n, 2n ** 64n, unused > 0 ? 1n << 63n : undefined].filter((b) => b !== undefined)) {
      assert.throws(() => pf.decode(bad, layout), (e) => ['FIELD_OUT_OF_RANGE', 'ERR_OUT_OF_RANGE', 'INVALID_ARGUMENT'].includes(e.code), `${layout} ${bad}`)
    }
  }
  const parts = pf.decode(ID, 'twitter')
  assert.equal(JSON.stringify(parts, pf.jsonReplacer), JSON.stringify({ ...parts, time: parts.time }, pf.jsonReplacer))
  assert.ok(JSON.stringify(parts, pf.jsonReplacer).includes('"time":"2023-11-14T22:13:20.123Z"'))
})

test('stats count ceiling waits and clock events, as numbers', () => {
  const clock = new pf.ManualClock(Number(pf.Layout.SNOWFLAKE.epochMs) + 10_000)
  const g = new pf.Generator('snowflake', { clock, onClockBackwards: 'logical', nodeId: 1 })
  assert.deepEqual(g.stats(), {
    ceilingWaits: 0, clockBackwardsWaited: 0, clockBackwardsRefused: 0, clockBackwardsRanAhead: 0,
  })
  g.nextId()
  clock.advance(-3)
  g.nextId() // issued ahead of a clock that is behind
  assert.equal(g.stats().clockBackwardsRanAhead, 1)
  const strict = new pf.Generator('snowflake', { clock, onClockBackwards: 'fail', nodeId: 2 })
  strict.nextId()
  clock.advance(-1)
  assert.throws(() => strict.nextId(), { code: 'CLOCK_MOVED_BACKWARDS' })
  assert.equal(strict.stats().clockBackwardsRefused, 1)
  // A tick's 4096 sequence values spent: the next call waits for the next tick.
  const wall = new pf.Generator('snowflake', { nodeId: 3 })
  wall.nextIds(3 * 4096)
  assert.ok(wall.stats().ceilingWaits >= 1)
})

test('an unknown option and a missing field say their kind', () => {
  assert.throws(() => new pf.Generator('twitter', { datacenterId: 1 }), { code: 'INVALID_ARGUMENT', kind: 'missing_field' })
  assert.throws(() => pf.formatId(1n, 'base62'), { code: 'INVALID_ARGUMENT', kind: 'unknown_name' })
})

test("the typings' reasons and kinds are the core's names", async () => {
  const { readFileSync } = await import('node:fs')
  const addon = createRequire(import.meta.url)('../polyflake.linux-x64-gnu.node')
  const [reasons, kinds] = addon._errorNames()
  const dts = readFileSync(new URL('../index.d.ts', import.meta.url), 'utf8')
  const union = (name) => {
    const body = dts.match(new RegExp(`export type ${name} =([^/]*?)\n(?:/|export)`))[1]
    return [...body.matchAll(/'([a-z_]+)'/g)].map((m) => m[1])
  }
  assert.deepEqual(union('LeaseLostReason'), reasons)
  assert.deepEqual(union('ArgumentKind'), kinds)
})
