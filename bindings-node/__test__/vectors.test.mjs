import assert from 'node:assert/strict'
import { test } from 'node:test'

import * as pf from 'polyflake'
import { buildSpec, camel, layout, load, nodes } from './vectors.mjs'

const LAYOUTS = load('layouts.json')
const COMPOSE = load('compose.json')
const ERRORS = load('errors.json').cases
const ENCODINGS = load('encodings.json')
const SCENARIOS = load('generator.json').scenarios

test('runs against the built package', () => {
  // make test-dist runs this file in a fresh project: there, the installed tarball.
  const where = process.env.POLYFLAKE_PACKAGE_DIR ?? 'bindings-node'
  assert.ok(import.meta.resolve('polyflake').endsWith(`${where}/polyflake.mjs`), import.meta.resolve('polyflake'))
})

test('presets match their definitions', () => {
  for (const def of LAYOUTS.presets) {
    const l = pf.Layout.preset(def.name)
    assert.ok(l.equals(pf.Layout[def.name.toUpperCase()]))
    assert.equal(l.epochMs, Number(def.epoch_ms))
    assert.equal(l.tickMs, def.tick_ms)
    assert.equal(l.timeBits, def.time_bits)
    assert.equal(l.sequenceBits, def.sequence_bits)
    assert.equal(l.sequenceAboveNodes, def.sequence_above_nodes)
    assert.equal(l.unusedBits, def.unused_bits)
    assert.equal(l.maxTimestampMs, Number(def.max_timestamp_ms))
    assert.deepEqual(l.nodes, def.nodes)
    assert.ok(buildSpec(def).nodes.every((n, i) => n.name === def.nodes[i].name))
  }
})

test('invalid layouts and unknown presets', () => {
  for (const c of LAYOUTS.invalid) {
    assert.throws(() => buildSpec(c.spec), (e) => e instanceof RangeError && e.code === c.error, c.why)
  }
  for (const name of LAYOUTS.unknown_presets) {
    assert.throws(() => pf.Layout.preset(name), { name: 'RangeError', code: 'INVALID_LAYOUT' })
    assert.throws(() => pf.decode(1n, name), { code: 'INVALID_LAYOUT' })
  }
})

test('compose, decode, explain', () => {
  assert.ok(COMPOSE.cases.length > 50)
  for (const c of COMPOSE.cases) {
    const l = layout(c.layout)
    const id = BigInt(c.id)
    const parts = { timestampMs: BigInt(c.timestamp_ms), sequence: BigInt(c.sequence), ...nodes(c.nodes) }
    assert.equal(pf.compose(l, parts), id, c.id)
    const d = pf.decode(id, l)
    assert.equal(d.id, id)
    assert.equal(BigInt(d.timestampMs), BigInt(c.timestamp_ms))
    assert.equal(BigInt(d.sequence), BigInt(c.sequence))
    for (const [k, v] of Object.entries(c.nodes)) assert.equal(BigInt(d[camel(k)]), BigInt(v))
    if (c.time) assert.equal(d.time.toISOString(), c.time)
    assert.deepEqual(
      pf.explain(id, l).map((s) => ({ name: s.name, msb: s.msb, lsb: s.lsb, width: s.width, value: s.value.toString(), bits: s.bits })),
      c.explain.map((s) => ({ ...s, name: camel(s.name) })),
    )
    assert.deepEqual(pf.decode(c.id, l), d, 'a decimal string decodes the same')
  }
})

test('timestamps inside a tick are floored; min and max', () => {
  for (const c of COMPOSE.floor) {
    const l = layout(c.layout)
    const id = pf.compose(l, { timestampMs: BigInt(c.timestamp_ms), sequence: BigInt(c.sequence), ...nodes(c.nodes) })
    assert.equal(id, BigInt(c.id))
    assert.equal(BigInt(pf.decode(id, l).timestampMs), BigInt(c.decoded_timestamp_ms))
  }
  for (const c of COMPOSE.min_max) {
    const l = layout(c.layout)
    assert.equal(pf.minId(l, BigInt(c.timestamp_ms)), BigInt(c.min))
    assert.equal(pf.maxId(l, BigInt(c.timestamp_ms)), BigInt(c.max))
  }
})

test('errors carry their codes', () => {
  for (const c of ERRORS) {
    const l = layout(c.layout)
    const run = {
      compose: () => pf.compose(l, { timestampMs: BigInt(c.timestamp_ms), sequence: BigInt(c.sequence), ...nodes(c.nodes) }),
      decode: () => pf.decode(BigInt(c.id), l),
      min_id: () => pf.minId(l, BigInt(c.timestamp_ms)),
      max_id: () => pf.maxId(l, BigInt(c.timestamp_ms)),
    }[c.op]
    const kind = c.error === 'INVALID_ARGUMENT' ? TypeError : RangeError
    assert.throws(run, (e) => e instanceof kind && e.code === c.error && (!c.field || e.message.startsWith(camel(c.field))) &&
      e.kind === c.kind, JSON.stringify(c))
  }
})

const input = (enc, text) => (enc === 'bytes' ? Buffer.from(text, 'hex') : text)

test('every encoding', () => {
  assert.deepEqual(pf.ENCODINGS, ENCODINGS.encodings)
  for (const c of ENCODINGS.cases) {
    const id = BigInt(c.id)
    for (const enc of ENCODINGS.encodings) {
      const out = pf.formatId(id, enc)
      assert.equal(Buffer.isBuffer(out) ? out.toString('hex') : out, c[enc], `${enc} ${c.id}`)
      assert.equal(pf.parseId(input(enc, c[enc]), enc), id)
    }
  }
  for (const c of ENCODINGS.parse_ok) assert.equal(pf.parseId(input(c.encoding, c.text), c.encoding), BigInt(c.id), c.text)
  for (const c of ENCODINGS.parse_errors) {
    assert.throws(() => pf.parseId(input(c.encoding, c.text), c.encoding), { name: 'RangeError', code: c.error }, c.text)
  }
})

test('generator scenarios under a manual clock', () => {
  for (const s of SCENARIOS) {
    const clock = new pf.ManualClock(BigInt(s.start_ms))
    const g = new pf.Generator(layout(s.layout), {
      clock,
      onClockBackwards: s.policy,
      maxBackwardsMs: s.max_wait_ms,
      ...nodes(s.nodes),
    })
    for (const step of s.steps) {
      if (step.op === 'set') clock.set(BigInt(step.ms))
      else if (step.op === 'clock') assert.equal(BigInt(clock.nowMs), BigInt(step.ms), s.name)
      else if (step.op === 'next_ids') assert.deepEqual([...g.nextIds(step.ids.length)], step.ids.map(BigInt), s.name)
      else if (step.id) assert.equal(g.nextId(), BigInt(step.id), s.name)
      else assert.throws(() => g.nextId(), { code: step.error }, s.name)
    }
  }
})
