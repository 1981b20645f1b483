// ESM entry point of polyflake/typeorm: the same module as typeorm.js.
import { createRequire } from 'node:module'

export const { snowflakeTransformer, snowflakeColumn, SnowflakeColumn, SnowflakeKey, idRange } = createRequire(
  import.meta.url,
)('./typeorm.js')
