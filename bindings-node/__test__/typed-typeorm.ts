// Type-checked by tsc (make test-node): polyflake/typeorm's typings as a user writes them,
// with TypeORM's decorators (experimentalDecorators, as TypeORM asks).
import { Generator } from 'polyflake'
import { SnowflakeColumn, SnowflakeKey, idRange, snowflakeColumn } from 'polyflake/typeorm'
import { Column, Entity, EntitySchema, type Repository } from 'typeorm'

const ids = new Generator('twitter', { datacenterId: 1, machineId: 7 })

@Entity({ name: 'orders' })
export class Order {
  @SnowflakeKey(ids)
  id!: bigint

  @SnowflakeColumn({ name: 'parent_id', nullable: true })
  parentId!: bigint | null

  @Column({ type: 'text' })
  item!: string
}

export const Customer = new EntitySchema<{ id: bigint; name: string }>({
  name: 'customers',
  columns: { id: { ...snowflakeColumn(), primary: true }, name: { type: 'text' } },
})

export async function recent(orders: Repository<Order>): Promise<bigint[]> {
  const since = new Date(Date.now() - 3_600_000)
  const rows = await orders.find({ where: { id: idRange('twitter', since, new Date()) } })
  return rows.map((row) => row.id)
}

// What the typings must refuse.
// @ts-expect-error: SnowflakeKey takes the process's generator, not a layout's name
SnowflakeKey('twitter')
// @ts-expect-error: a range needs its end
idRange('twitter', new Date())
