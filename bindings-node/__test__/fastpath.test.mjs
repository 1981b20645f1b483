// The JS decode path (bigint input, polyflake.js) against the core's answer
// for the same ID given as a string or a safe number, which the native
// decoder takes: over random custom layouts and random 64-bit values, every
// field and every refusal must agree. Then the two IDs that the JS path once
// read by masking bits the layout does not have.
import assert from 'node:assert/strict'
import { test } from 'node:test'

import * as pf from 'polyflake'

import { rng } from './rng.mjs'

const CASES = Number(process.env.POLYFLAKE_FUZZ_CASES ?? 3000)
const SEED = Number(process.env.POLYFLAKE_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 32))

// A valid custom layout: widths that fit 64 bits, 0 to 8 node fields (one
// whose time runs past the last Unix millisecond is drawn again).
function randomLayout(r) {
  for (;;) {
    try {
      return someLayout(r)
    } catch (e) {
      assert.equal(e.code, 'INVALID_LAYOUT', e.message)
    }
  }
}

function someLayout(r) {
  const timeBits = 1 + r.below(50)
  let left = 64 - timeBits - r.below(3)
  const sequenceBits = 1 + r.below(Math.min(left, 22))
  left -= sequenceBits
  const nodes = []
  for (let i = r.below(9); i > 0 && left > 0; i--) {
    const bits = 1 + r.below(Math.min(left, 20))
    nodes.push({ name: `f${nodes.length}`, bits })
    left -= bits
  }
  return pf.Layout.custom({
    epochMs: r.below(2 ** 41),
    timeBits,
    nodes,
    sequenceBits,
    sequenceAboveNodes: r.next() < 0.3,
    tickMs: [1, 1, 10, 1000][r.below(4)],
  })
}

// Values of every length, and ones with a single bit just above the layout's.
function randomId(r, layout) {
  const used = 64 - layout.unusedBits
  switch (r.below(5)) {
    case 0: return r.u64() >> BigInt(r.below(64))
    case 1: return used < 64 ? (r.u64() & ((1n << BigInt(used)) - 1n)) | (1n << BigInt(used + r.below(64 - used))) : r.u64()
    case 2: return BigInt(r.below(2 ** 53))
    default: return r.u64() & ((1n << BigInt(used)) - 1n)
  }
}

function outcome(decode) {
  try {
    const parts = decode()
    const fields = { ...parts }
    fields.id = String(fields.id)
    delete fields.time
    return { fields }
  } catch (e) {
    return { code: e.code }
  }
}

test('the JS decode path agrees with the core on random custom layouts and IDs', () => {
  const r = rng(SEED)
  let accepted = 0
  let refused = 0
  for (let i = 0; i < CASES; i++) {
    const layout = randomLayout(r)
    const id = randomId(r, layout)
    const js = outcome(() => pf.decode(id, layout))
    const core = outcome(() => pf.decode(id.toString(), layout))
    const where = `seed ${SEED}, case ${i}: ${id} in ${JSON.stringify({ t: layout.timeBits, s: layout.sequenceBits, n: layout.nodes })}`
    assert.deepEqual(js, core, where)
    if (id <= BigInt(Number.MAX_SAFE_INTEGER)) assert.deepEqual(outcome(() => pf.decode(Number(id), layout)), core, where)
    if (core.code === undefined) {
      accepted++
      // Each field as the core's explain reads it.
      for (const segment of pf.explain(id, layout)) {
        if (segment.kind === 'node') assert.equal(BigInt(js.fields[segment.name]), segment.value, where)
        if (segment.kind === 'sequence') assert.equal(BigInt(js.fields.sequence), segment.value, where)
      }
    } else {
      refused++
      // Bits the layout does not have, or a field or time past 2^53 (not an exact number).
      assert.ok(['FIELD_OUT_OF_RANGE', 'ERR_OUT_OF_RANGE'].includes(core.code), `${core.code}: ${where}`)
    }
  }
  assert.ok(accepted > CASES / 4 && refused > CASES / 10, `${accepted} accepted, ${refused} refused`)
})

test('bits above a small layout are refused, not masked (regressions)', () => {
  const tiny = pf.Layout.custom({ epochMs: 1, timeBits: 1, nodes: [], sequenceBits: 2, sequenceAboveNodes: true })
  const small = pf.Layout.custom({ epochMs: 0, timeBits: 2, nodes: [], sequenceBits: 12 })
  for (const [id, layout] of [[58n, tiny], [14009673n, small]]) {
    for (const form of [id, id.toString(), Number(id)]) {
      assert.throws(() => pf.decode(form, layout), { code: 'FIELD_OUT_OF_RANGE', field: 'id' }, String(form))
    }
  }
  // The largest ID each holds is still read, in every form.
  assert.equal(pf.decode(7n, tiny).sequence, 3)
  assert.equal(pf.decode(2n ** 14n - 1n, small).sequence, 4095)
})

test('a call with null where an object belongs is a coded TypeError', () => {
  for (const call of [
    () => pf.compose('twitter', null),
    () => pf.compose('twitter', 5),
    () => pf.Layout.custom(null),
    () => pf.Generator.fromEtcd('twitter', null),
    () => new pf.Generator('twitter', 5),
  ]) {
    assert.throws(call, (e) => e instanceof TypeError && e.code === 'ERR_INVALID_ARG_TYPE', String(call))
  }
  // undefined and null options are no options.
  assert.throws(() => new pf.Generator('twitter', null), { code: 'INVALID_ARGUMENT', kind: 'missing_field' })
})
