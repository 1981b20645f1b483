// Checked by `tsc --noEmit` against polyflake.d.ts and the generated index.d.ts.
import {
  Generator,
  Layout,
  ManualClock,
  compose,
  decode,
  explain,
  formatId,
  isIdKey,
  jsonReplacer,
  jsonReviver,
  maxId,
  minId,
  parseId,
  ServiceGenerator,
  type CustomParts,
  type EtcdOptions,
  type GeneratorStats,
  type LeaseLostReason,
  type Parts,
  type PolyflakeError,
  type ServiceOptions,
  type ServiceStats,
} from '../polyflake'
// The native helpers are not part of the package (polyflake.mjs has none).
// @ts-expect-error _bindDecode is not exported
import { _bindDecode } from '../polyflake'

const custom: Layout = Layout.custom({ epochMs: 1_700_000_000_000, timeBits: 41, nodes: [{ name: 'region', bits: 4 }] })
const gen = new Generator(Layout.TWITTER, { datacenterId: 1, machineId: 2, onClockBackwards: 'logical' })
const id: bigint = gen.nextId()
const text: string = gen.nextIdString()
const batch: BigUint64Array = gen.nextIds(100)
const parts: Parts<'datacenterId' | 'machineId'> = decode(id, 'twitter')
const machine: number = parts.machineId // typed, no cast
const node: number = decode(id, 'snowflake').nodeId
const region: CustomParts[string] = decode(id, custom).region
const when: Date = parts.time
const ms: number = parts.timestampMs
const again: bigint = compose('twitter', { timestampMs: parts.time, sequence: 0, datacenterId: 1, machineId: 2 })
const bits: string = explain(id, custom)[0].bits
const b58 = formatId(id, 'base58')
const back: bigint = parseId('4jgmnx8Js8A', 'base58')
const test = new Generator('snowflake', { nodeId: 1, clock: new ManualClock(Date.now()) })
const fromEnv: Generator = Generator.fromEnv('sonyflake', { clock: 'wall', check: (nodes: number[]) => nodes[0] !== 0 })
const json: string = JSON.stringify({ id }, jsonReplacer)
const etcd: EtcdOptions = { endpoints: ['http://127.0.0.1:2379'], ttlMs: 10_000, nodeRange: [0, 512] }
const leased = (): Generator => Generator.fromEtcd('twitter', etcd)
const presets: readonly string[] = Layout.PRESETS
const revived = JSON.parse(json, jsonReviver()) as { id: bigint }
const idKey: boolean = isIdKey('user_id')
const range: [bigint, bigint] = [minId('twitter', Date.now()), maxId(Layout.TWITTER, new Date())]
const shape: [number, number, string[], string] = [Layout.TWITTER.maxSequence, custom.timeBits, custom.fieldNames, custom.name]
const source: string = gen.identitySource
const fields: Record<string, number> = gen.nodeFields
void [_bindDecode, text, batch, when, ms, again, bits, b58, back, test, fromEnv, json, machine, node, region, leased, presets]
const stats: GeneratorStats = gen.stats()
const waits: number = stats.ceilingWaits + (stats.lease?.renewals ?? 0)
const retry = (e: PolyflakeError): boolean => e.code === 'LEASE_LOST' && e.retryable === true
const reason: LeaseLostReason | undefined = ({} as PolyflakeError).reason
void [revived, idKey, range, shape, source, fields, waits, retry, reason]
const served = async (urls: string[]): Promise<bigint[]> => {
  const options: ServiceOptions = { batch: 2000, lowWater: 500, deadlineMs: 2500 }
  const service: ServiceGenerator = Generator.fromService(urls, options)
  const one: bigint = service.nextId()
  const later: BigUint64Array = await service.nextIdsAsync(10)
  const counts: ServiceStats = service.stats()
  const stalled: number = counts.longestStallMs + counts.stalls
  service.close()
  return stalled >= 0 ? [one, ...later] : []
}
void served
