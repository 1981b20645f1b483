// ESM entry point: the same module as polyflake.js.
import { createRequire } from 'node:module'

const pf = createRequire(import.meta.url)('./polyflake.js')

export const {
  ENCODINGS,
  Generator,
  Layout,
  ManualClock,
  ServiceGenerator,
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
} = pf
export default pf
