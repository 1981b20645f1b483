// Loads the golden vectors shared by every language. IDs stay strings until
// BigInt() takes them: never through a JS number.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

import { Layout } from 'polyflake'

const dir = fileURLToPath(new URL('../../tests/vectors/', import.meta.url))
export const load = (name) => JSON.parse(readFileSync(dir + name, 'utf8'))

const camel = (name) => name.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase())

export function buildSpec(spec) {
  return Layout.custom({
    epochMs: BigInt(spec.epoch_ms), // exact: the vectors hold epochs past 2**53
    timeBits: spec.time_bits,
    nodes: spec.nodes,
    sequenceBits: spec.sequence_bits,
    tickMs: spec.tick_ms,
    sequenceAboveNodes: spec.sequence_above_nodes,
  })
}

const PRESETS = ['twitter', 'snowflake', 'discord', 'instagram', 'sonyflake']

/** A preset's name as it is (the binding takes names), a custom layout built. */
export function layout(name) {
  return PRESETS.includes(name) ? name : buildSpec(load('layouts.json').custom[name])
}

/** `{ datacenter_id: "3" }` -> `{ datacenterId: 3n }`. */
export function nodes(obj) {
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [camel(k), BigInt(v)]))
}

export { camel }
