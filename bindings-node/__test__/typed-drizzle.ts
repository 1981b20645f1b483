// Type-checked by tsc (make test-node): polyflake/drizzle's typings as a user writes them.
import { Generator } from 'polyflake'
import { idRange, snowflakeId, snowflakeKey } from 'polyflake/drizzle'
import { pgTable, text } from 'drizzle-orm/pg-core'
import type { NodePgDatabase } from 'drizzle-orm/node-postgres'

const ids = new Generator('twitter', { datacenterId: 1, machineId: 7 })

export const orders = pgTable('orders', {
  id: snowflakeKey(ids),
  parentId: snowflakeId('parent_id'),
  item: text('item').notNull(),
})

export async function recent(db: NodePgDatabase): Promise<bigint[]> {
  const since = new Date(Date.now() - 3_600_000)
  const rows = await db.select().from(orders).where(idRange(orders.id, 'twitter', since, new Date()))
  const inserted: typeof orders.$inferInsert = { item: 'tea' } // the key is optional: it has a default
  await db.insert(orders).values(inserted)
  const parent: bigint | null = rows[0]?.parentId ?? null
  return rows.map((row) => row.id).concat(parent === null ? [] : [parent])
}

// What the typings must refuse.
// @ts-expect-error: the key is a bigint, never a lossy number
export const wrong: typeof orders.$inferSelect = { id: 1, parentId: null, item: 'x' }
// @ts-expect-error: snowflakeKey takes the process's generator, not a layout's name
snowflakeKey('twitter')
