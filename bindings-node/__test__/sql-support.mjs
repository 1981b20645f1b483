// What the ORM suites (drizzle, typeorm) share: their PostgreSQL, and IDs
// composed at given times for the range queries.
import { execFileSync } from 'node:child_process'

import { Layout, compose } from 'polyflake'

const clusterScript = new URL('../../tests/postgres_cluster.py', import.meta.url).pathname

export const MAX = 2n ** 64n - 1n
export const BIT_63 = 2n ** 63n

/** Values no ID column takes, and the code each is refused with. */
export const BAD_IDS = [
  [-1n, 'ERR_OUT_OF_RANGE'],
  [MAX + 1n, 'ERR_OUT_OF_RANGE'],
  [2n ** 70n, 'ERR_OUT_OF_RANGE'],
  [12, 'ERR_INVALID_ARG_TYPE'],
  ['12a', 'INVALID_ENCODING'],
]

/** A PostgreSQL 15 cluster of the suite's own (tests/postgres_cluster.py): { url, dir }. */
export function startCluster() {
  return JSON.parse(execFileSync('python3', [clusterScript, 'start'], { encoding: 'utf8' }))
}

export function stopCluster(dir) {
  execFileSync('python3', [clusterScript, 'stop', dir])
}

/** An ID of `layout` at `atMs`, every node field 1. */
export function composed(layout, atMs, sequence) {
  const nodes = Object.fromEntries(Layout.preset(layout).fieldNames.map((name) => [name, 1]))
  return compose(layout, { timestampMs: atMs, sequence, ...nodes })
}

/** Times at the first and last millisecond of 6 minutes from `start`. */
export function minuteEdges(start) {
  const times = []
  for (let m = 0; m < 6; m++) for (const ms of [0, 999]) times.push(start + m * 60_000 + ms)
  return times
}

/** discord sets bit 63 from 2^41 ms after its epoch on: that instant, and 7 seconds around it. */
export function aroundBit63() {
  const flip = Layout.preset('discord').epochMs + 2 ** 41
  return { flip, around: [-3, -2, -1, 0, 1, 2, 3].map((s) => flip + s * 1000) }
}
