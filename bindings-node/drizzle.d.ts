// polyflake/drizzle: Snowflake keys for Drizzle ORM on PostgreSQL (drizzle.js).
import type { SQL } from 'drizzle-orm'
import type { PgColumn, customType } from 'drizzle-orm/pg-core'
import type { Generator, Layout, PresetName } from './polyflake'

/** In JS a `bigint` from 0 to 2^64 - 1; to the driver the signed `bigint` with the same bits. */
export type SnowflakeIdType = { data: bigint; driverData: string }

/** A column holding a Snowflake ID: `bigint` in JS and in PostgreSQL, the same 64 bits. */
export declare const snowflakeId: ReturnType<typeof customType<SnowflakeIdType>>

type SnowflakeIdBuilder = ReturnType<typeof snowflakeId>

/** The primary key whose default is `generator.nextId()`, called once per inserted row. */
export declare function snowflakeKey(
  generator: Generator,
  name?: string,
): ReturnType<ReturnType<SnowflakeIdBuilder['primaryKey']>['$defaultFn']>

/** `column` holds an ID of `layout` issued from `since` to `until`, both included. */
export declare function idRange(
  column: PgColumn,
  layout: Layout | PresetName,
  since: Date | number | bigint,
  until: Date | number | bigint,
): SQL | undefined
