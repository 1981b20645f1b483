// The package's types: everything generated from the Rust sources
// (index.d.ts), plus the few shapes polyflake.js builds in JavaScript.
import * as native from './index'

export * from './index'

/** A decoded ID. Node fields are camelCase (`datacenterId`, `workerId` …). */
export interface Parts {
  id: bigint
  timestampMs: number
  sequence: number
  date: Date
  [field: string]: number | bigint | Date
}

/** Takes an ID apart. */
export declare function decode(id: native.IdInput, layout: native.Layout | native.PresetName): Parts

/** `JSON.stringify(value, jsonReplacer)`: every bigint as a decimal string. */
export declare function jsonReplacer(key: string, value: unknown): unknown

/** `JSON.parse(text, jsonReviver(['id']))`: those keys back to bigint; a bare number is refused. */
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
