// The package's types: the public part of what is generated from the Rust
// sources (index.d.ts), plus the few shapes polyflake.js builds in JavaScript.
// The native helpers (`_bind*`) and napi's `__napiBindingTarget` are not part
// of the package: polyflake.mjs does not export them, so neither does this.
import * as native from './index'

export type {
  ArgumentKind,
  ClockOptions,
  ComposeParts,
  CustomLayoutSpec,
  EncodingName,
  EtcdOptions,
  GeneratorOptions,
  GeneratorStats,
  IdInput,
  LeaseLostReason,
  LeaseStats,
  NodeFieldSpec,
  PolyflakeError,
  PresetName,
  ResolvedOptions,
  Segment,
  ServiceOptions,
  ServiceStats,
} from './index'
export { ENCODINGS, Generator, ManualClock, ServiceGenerator, compose, explain, formatId, isIdKey, maxId, minId, parseId } from './index'

/** Each preset's node fields, camelCase. */
export interface PresetFields {
  twitter: 'datacenterId' | 'machineId'
  snowflake: 'nodeId'
  discord: 'workerId' | 'processId'
  instagram: 'shardId'
  sonyflake: 'machineId'
}

/** A decoded ID: its time, sequence and node fields (camelCase, numbers). */
export type Parts<F extends string = never> = {
  id: bigint
  timestampMs: number
  sequence: number
  /** A new `Date` of `timestampMs`, made when read (a getter; `toJSON` includes it). */
  readonly time: Date
} & { [K in F]: number }

/** A decoded ID of a custom layout, whose field names only the layout knows. */
export type CustomParts = Parts & { readonly [field: string]: number | bigint | Date }

/** Takes an ID apart. With a preset's name, its node fields are typed. */
export declare function decode<P extends native.PresetName>(id: native.IdInput, layout: P): Parts<PresetFields[P]>
export declare function decode(id: native.IdInput, layout: native.Layout | native.PresetName): CustomParts

/** `JSON.stringify(value, jsonReplacer)`: every bigint as a decimal string. */
export declare function jsonReplacer(key: string, value: unknown): unknown

/**
 * `JSON.parse(text, jsonReviver())`: the strings under ID keys (`isIdKey`: `id`, `ids`, or a key
 * ending in `_id`, `_ids`, `Id`, `Ids`, `ID`, `IDs`; or exactly the names given), alone or in
 * arrays, back to bigint. A bare number is refused.
 */
export declare function jsonReviver(keys?: readonly string[]): (key: string, value: unknown) => unknown

/** The layout class, with the presets as static properties. */
export declare const Layout: typeof native.Layout & {
  /** The preset names, from the core. */
  readonly PRESETS: readonly native.PresetName[]
  readonly TWITTER: native.Layout
  readonly SNOWFLAKE: native.Layout
  readonly DISCORD: native.Layout
  readonly INSTAGRAM: native.Layout
  readonly SONYFLAKE: native.Layout
}
export type Layout = native.Layout
