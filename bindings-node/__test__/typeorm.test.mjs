// polyflake/typeorm against a real PostgreSQL 15 (tests/postgres_cluster.py)
// through TypeORM and pg: keys minted by the process's generator before each
// INSERT, the ID's 64 bits in a bigint, time ranges on the key, JSON as strings.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'

import { Column, DataSource, Entity, PrimaryColumn } from 'typeorm'

import { Generator, decode, jsonReplacer, jsonReviver } from 'polyflake'
import { SnowflakeColumn, SnowflakeKey, idRange, snowflakeColumn } from 'polyflake/typeorm'

import { BAD_IDS, BIT_63, MAX, aroundBit63, composed, minuteEdges, startCluster, stopCluster } from './sql-support.mjs'


// The process's one generator, as an application makes it.
const ids = new Generator('twitter', { datacenterId: 4, machineId: 11 })

// The decorators as TypeScript applies them (@Entity() class Order { @SnowflakeKey(ids) id ... }).
class Order {
  id
  parentId
  item
}
SnowflakeKey(ids)(Order.prototype, 'id')
SnowflakeColumn({ name: 'parent_id', nullable: true })(Order.prototype, 'parentId')
Column({ type: 'text' })(Order.prototype, 'item')
Entity({ name: 'orders' })(Order)

// Keys the test writes itself, of any layout, for the range queries.
class Event {
  id
  atMs
}
PrimaryColumn(snowflakeColumn())(Event.prototype, 'id')
Column({ type: 'bigint', name: 'at_ms' })(Event.prototype, 'atMs')
Entity({ name: 'events' })(Event)

let dir, db, orders, events

before(async () => {
  const cluster = startCluster()
  dir = cluster.dir
  db = new DataSource({ type: 'postgres', url: cluster.url, entities: [Order, Event], synchronize: true })
  await db.initialize()
  orders = db.getRepository(Order)
  events = db.getRepository(Event)
})

after(async () => {
  if (db?.isInitialized) await db.destroy()
  if (dir) stopCluster(dir)
})

async function fresh() {
  await db.query('TRUNCATE orders, events')
}

test('keys come from the generator before the INSERT, every bit intact, and JSON carries them as strings', async () => {
  await fresh()
  const before = ids.nextId()
  const made = await orders.save(Array.from({ length: 50 }, (_, i) => orders.create({ item: `o${i}` })))
  const keys = made.map((o) => o.id)
  assert.ok(keys.every((k) => typeof k === 'bigint' && k > before))
  assert.equal(new Set(keys).size, 50)
  assert.ok(keys[0] > 2n ** 53n, "a Twitter ID of today is past a double's precision")
  const read = await orders.find({ order: { id: 'ASC' } })
  assert.deepEqual(
    read.map((o) => o.id),
    [...keys].sort((a, b) => (a < b ? -1 : 1)),
  )
  for (const key of keys) {
    const parts = decode(key, 'twitter')
    assert.deepEqual([parts.datacenterId, parts.machineId], [4, 11])
  }
  const one = await orders.findOneBy({ id: keys[7] })
  assert.equal(one.item, 'o7')
  // A key given by the caller is kept.
  const given = ids.nextId()
  assert.equal((await orders.save(orders.create({ id: given, item: 'given' }))).id, given)
  // The existing replacer and reviver: strings in JSON, bigint again after.
  const json = JSON.stringify(one, jsonReplacer)
  assert.match(json, /"id":"\d+"/)
  assert.doesNotMatch(json, /"id":\d/)
  assert.deepEqual(JSON.parse(json, jsonReviver(['id', 'parentId'])), { ...one })
})

test('a bigint holds the same 64 bits as the extension stores them', async () => {
  await fresh()
  await orders.save([orders.create({ item: 'wide', parentId: MAX }), orders.create({ item: 'bit 63', parentId: BIT_63 + 12345n })])
  const read = await orders.find()
  assert.deepEqual(Object.fromEntries(read.map((o) => [o.item, o.parentId])), {
    wide: MAX,
    'bit 63': BIT_63 + 12345n,
  })
  const raw = await db.query('SELECT item, parent_id::text AS p FROM orders ORDER BY item')
  assert.deepEqual(raw, [
    { item: 'bit 63', p: String(-(2n ** 63n) + 12345n) },
    { item: 'wide', p: '-1' },
  ])
  assert.equal((await orders.findOneBy({ parentId: MAX })).item, 'wide')
})

test('values outside 64 bits, and numbers, are refused before the database', async () => {
  await fresh()
  for (const [bad, code] of BAD_IDS) {
    await assert.rejects(orders.save(orders.create({ item: 'bad', parentId: bad })), (e) => {
      const cause = e.cause ?? e
      assert.equal(cause.code, code, String(e))
      return true
    })
  }
  assert.equal(await orders.count(), 0)
})

test('20,000 rows inserted in batches get 20,000 keys', async () => {
  await fresh()
  const rows = Array.from({ length: 20_000 }, (_, i) => orders.create({ item: `bulk ${i}` }))
  // PostgreSQL takes at most 65,535 parameters a statement.
  for (let i = 0; i < rows.length; i += 5_000) await orders.insert(rows.slice(i, i + 5_000))
  const [stats] = await db.query('SELECT count(*)::int AS n, count(DISTINCT id)::int AS d FROM orders')
  assert.deepEqual(stats, { n: 20_000, d: 20_000 })
  const keys = rows.map((o) => o.id)
  assert.deepEqual(keys, [...keys].sort((a, b) => (a < b ? -1 : 1)), 'keys increase in insertion order')
})

test('idRange selects by the key alone, across bit 63 too', async () => {
  await fresh()
  const start = Date.UTC(2026, 10, 30, 12)
  const times = minuteEdges(start)
  await events.insert(times.map((at, i) => ({ id: composed('twitter', at, i), atMs: String(at) })))
  const since = start + 60_000
  const until = start + 3 * 60_000 + 999
  const found = await events.find({ where: { id: idRange('twitter', new Date(since), until) } })
  const expected = times.filter((t) => t >= since && t <= until)
  assert.deepEqual(found.map((e) => Number(e.atMs)).sort(), expected)
  assert.equal(expected.length, 6)

  // discord sets bit 63 from 2^41 ms after its epoch on.
  await fresh()
  const { flip, around } = aroundBit63()
  await events.insert(around.map((at) => ({ id: composed('discord', at, 0), atMs: String(at) })))
  const [signs] = await db.query('SELECT min(id) < 0 AS neg, max(id) > 0 AS pos FROM events')
  assert.deepEqual(signs, { neg: true, pos: true })
  const across = await events.find({ where: { id: idRange('discord', flip - 2000, flip + 1000) } })
  assert.deepEqual(
    across.map((e) => Number(e.atMs)).sort(),
    around.filter((t) => t >= flip - 2000 && t <= flip + 1000),
  )
})

test('misuse is refused with a code', () => {
  assert.throws(() => SnowflakeKey('twitter'), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' })
  assert.throws(() => idRange('twitter', Date.now(), Date.now() - 60_000), {
    name: 'RangeError',
    code: 'ERR_OUT_OF_RANGE',
  })
  assert.throws(() => idRange('twitter', 0, 1), { code: 'TIMESTAMP_BEFORE_EPOCH' })
})

test('typeorm is an optional peer dependency', async () => {
  const { readFile } = await import('node:fs/promises')
  const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'))
  assert.equal(pkg.dependencies, undefined)
  assert.equal(pkg.peerDependenciesMeta?.typeorm?.optional, true)
})
