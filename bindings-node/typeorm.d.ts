// polyflake/typeorm: Snowflake keys for TypeORM on PostgreSQL (typeorm.js).
import type { ColumnOptions, FindOperator, ValueTransformer } from 'typeorm'
import type { Generator, Layout, PresetName } from './polyflake'

/** An ID: a `bigint` in 0..2^64 - 1 in JS, the signed `bigint` with the same bits in PostgreSQL. */
export declare const snowflakeTransformer: ValueTransformer

/** The options that make a column hold IDs. */
export type SnowflakeColumnOptions = { type: 'bigint'; transformer: ValueTransformer }

/** Column options for an ID (`EntitySchema` columns take them as they are). */
export declare function snowflakeColumn(): SnowflakeColumnOptions
export declare function snowflakeColumn<O extends ColumnOptions>(
  options: O,
): Omit<O, 'type' | 'transformer'> & SnowflakeColumnOptions

/** A column holding a Snowflake ID. */
export declare function SnowflakeColumn(options?: ColumnOptions): PropertyDecorator

/** The primary key, set to `generator.nextId()` before the entity's INSERT unless set already. */
export declare function SnowflakeKey(generator: Generator, options?: ColumnOptions): PropertyDecorator

/** The IDs of `layout` issued from `since` to `until`, both included, as a find operator. */
export declare function idRange(
  layout: Layout | PresetName,
  since: Date | number | bigint,
  until: Date | number | bigint,
): FindOperator<bigint>
