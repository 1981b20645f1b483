// polyflake beside the Node peers, in one run: `make bench-node`. Prints the
// Node section of docs/benchmarks.md (per-call cost from a plain loop, share
// of the 4,096-per-ms ceiling, duplicates among the IDs each one issued).
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const pf = require('../polyflake.js')
const N = 1_000_000
const CEILING_NS = 1e6 / 4096
const EPOCH = 1288834974657

// Timed loops keep nothing (storing a million bigints makes the GC the
// subject); duplicates are counted in a separate loop that keeps them all.
function time(fn) {
  let sink = 0
  const start = process.hrtime.bigint()
  for (let i = 0; i < N; i++) if (fn() === undefined) sink++
  return Number(process.hrtime.bigint() - start) / N + sink * 0
}

function best(fn) {
  const ns = Math.min(time(fn), time(fn), time(fn))
  const out = new Array(N)
  for (let i = 0; i < N; i++) out[i] = fn()
  return { ns, out }
}

const dupes = (ids) => ids.length - new Set(ids.map(String)).size

function peers() {
  const found = {}
  const { Snowflake } = require('@sapphire/snowflake')
  const sapphire = new Snowflake(EPOCH)
  found['@sapphire/snowflake'] = () => sapphire.generate()
  const NS = require('nodejs-snowflake')
  const ns = new NS.Snowflake({ custom_epoch: EPOCH, instance_id: 1 })
  found['nodejs-snowflake'] = () => ns.getUniqueID()
  const FlakeId = require('flake-idgen')
  const flake = new FlakeId({ datacenter: 1, worker: 1, epoch: EPOCH })
  // flake-idgen throws once a millisecond's 4,096 are spent: retry, as a caller must.
  found['flake-idgen (retrying its overflow error)'] = () => {
    for (;;) {
      try {
        return flake.next().readBigUInt64BE()
      } catch {}
    }
  }
  const { simpleflake } = require('simpleflakes')
  found['simpleflakes'] = () => simpleflake()
  return found
}

const rows = []
// `_floor` exists in test builds only (`make bench-node` builds one).
const addon = require('../polyflake.linux-x64-gnu.node')
const floor = best(() => addon._floor())
rows.push(['floor: a zero-argument native call returning a bigint', floor.ns, '', ''])
const wideLayout = pf.Layout.custom({ epochMs: EPOCH, timeBits: 41, nodes: [{ name: 'node_id', bits: 1 }], sequenceBits: 21 })
const wide = new pf.Generator(wideLayout, { nodeId: 1 })
let r = best(() => wide.nextId())
const polyflakeNs = r.ns
rows.push(['polyflake `nextId()` (21-bit sequence, never waits)', r.ns, '', dupes(r.out)])
r = best(() => wide.nextIdString())
rows.push(['polyflake `nextIdString()` (21-bit sequence)', r.ns, '', dupes(r.out)])
const snowflake = new pf.Generator('snowflake', { nodeId: 1 })
r = best(() => snowflake.nextId())
rows.push(['polyflake `nextId()` (`snowflake` preset)', r.ns, `${Math.min(100, (CEILING_NS / r.ns) * 100).toFixed(1)}%`, dupes(r.out)])
let start = process.hrtime.bigint()
const batch = wide.nextIds(N)
rows.push(['polyflake `nextIds(1000000)`, per ID', Number(process.hrtime.bigint() - start) / N, '', dupes([...batch])])
for (const [name, fn] of Object.entries(peers())) {
  r = best(fn)
  const ceiling = name === 'simpleflakes' ? 'n/a (random bits)' : `${Math.min(100, (CEILING_NS / r.ns) * 100).toFixed(1)}%`
  rows.push([`${name} (ratio ${(r.ns / polyflakeNs).toFixed(1)}× polyflake)`, r.ns, ceiling, dupes(r.out)])
}
const id = snowflake.nextId()
const decode = best(() => pf.decode(id, 'snowflake'))
rows.push(['polyflake `decode(id, "snowflake")`', decode.ns, '', ''])
const { Snowflake } = require('@sapphire/snowflake')
const sapphire = new Snowflake(EPOCH)
r = best(() => sapphire.deconstruct(id))
rows.push([`@sapphire/snowflake \`deconstruct\` (ratio ${(r.ns / decode.ns).toFixed(1)}×)`, r.ns, '', ''])

const lines = [
  '## Node',
  '',
  `\`make bench-node\`: Node ${process.version}, the built addon, plain loops of ${N.toLocaleString('en')} calls (best of 3). ` +
    'Ratios are peer ÷ polyflake; the ceiling column is IDs per ms ÷ 4,096 (timed loops keep nothing); ' +
    'duplicates are among the 1,000,000 IDs of a second loop that keeps them.',
  '',
  '| what | ns per call | of the ceiling | duplicates |',
  '|---|---|---|---|',
  ...rows.map(([what, ns, ceiling, d]) => `| ${what} | ${ns.toFixed(0)} | ${ceiling} | ${d} |`),
]
console.log(lines.join('\n'))
