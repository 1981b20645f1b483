// ESM entry point of polyflake/drizzle: the same module as drizzle.js.
import { createRequire } from 'node:module'

export const { snowflakeId, snowflakeKey, idRange } = createRequire(import.meta.url)('./drizzle.js')
