// polyflake/drizzle against a real PostgreSQL 15 (tests/postgres_cluster.py)
// through drizzle-orm and pg: keys minted by the process's generator, the
// ID's 64 bits in a bigint, time ranges on the key, JSON as strings.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'

import { and, count, countDistinct, eq, max, min, sql } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/node-postgres'
import { bigint, pgTable, text } from 'drizzle-orm/pg-core'
import pg from 'pg'

import { Generator, decode, jsonReplacer, jsonReviver } from 'polyflake'
import { idRange, snowflakeId, snowflakeKey } from 'polyflake/drizzle'

import { BAD_IDS, BIT_63, MAX, aroundBit63, composed, minuteEdges, startCluster, stopCluster } from './sql-support.mjs'


// The process's one generator, as an application makes it.
const ids = new Generator('twitter', { datacenterId: 3, machineId: 9 })

const orders = pgTable('orders', {
  id: snowflakeKey(ids),
  parentId: snowflakeId('parent_id'),
  item: text('item').notNull(),
})
// Keys the test writes itself, of any layout, for the range queries.
const events = pgTable('events', {
  id: snowflakeId('id').primaryKey(),
  atMs: bigint('at_ms', { mode: 'number' }).notNull(),
})

let dir, pool, db

before(() => {
  const cluster = startCluster()
  dir = cluster.dir
  pool = new pg.Pool({ connectionString: cluster.url })
  db = drizzle(pool)
})

after(async () => {
  await pool?.end()
  if (dir) stopCluster(dir)
})

async function fresh() {
  await db.execute(sql`DROP TABLE IF EXISTS orders, events`)
  await db.execute(sql`CREATE TABLE orders (id bigint PRIMARY KEY, parent_id bigint, item text NOT NULL)`)
  await db.execute(sql`CREATE TABLE events (id bigint PRIMARY KEY, at_ms bigint NOT NULL)`)
}

test('keys come from the generator, every bit intact, and JSON carries them as strings', async () => {
  await fresh()
  const before = ids.nextId()
  const made = await db.insert(orders).values(Array.from({ length: 50 }, (_, i) => ({ item: `o${i}` }))).returning()
  const keys = made.map((o) => o.id)
  assert.ok(keys.every((k) => typeof k === 'bigint' && k > before))
  assert.equal(new Set(keys).size, 50)
  assert.ok(keys[0] > 2n ** 53n, "a Twitter ID of today is past a double's precision")
  const read = await db.select().from(orders).orderBy(orders.id)
  assert.deepEqual(read.map((o) => o.id), [...keys].sort((a, b) => (a < b ? -1 : 1)))
  for (const key of keys) {
    const parts = decode(key, 'twitter')
    assert.deepEqual([parts.datacenterId, parts.machineId], [3, 9])
  }
  // The existing replacer and reviver: strings in JSON, bigint again after.
  const json = JSON.stringify(read[0], jsonReplacer)
  assert.match(json, /"id":"\d+"/)
  assert.deepEqual(JSON.parse(json, jsonReviver(['id', 'parentId'])), read[0])
})

test('a bigint holds the same 64 bits as the extension stores them', async () => {
  await fresh()
  await db.insert(orders).values([
    { item: 'wide', parentId: MAX },
    { item: 'bit 63', parentId: BIT_63 + 12345n },
  ])
  const read = await db.select().from(orders)
  assert.deepEqual(Object.fromEntries(read.map((o) => [o.item, o.parentId])), {
    wide: MAX,
    'bit 63': BIT_63 + 12345n,
  })
  const raw = await pool.query('SELECT item, parent_id::text AS p FROM orders ORDER BY item')
  assert.deepEqual(raw.rows, [
    { item: 'bit 63', p: String(-(2n ** 63n) + 12345n) },
    { item: 'wide', p: '-1' },
  ])
  const [found] = await db.select().from(orders).where(eq(orders.parentId, MAX))
  assert.equal(found.item, 'wide')
})

test('values outside 64 bits, and numbers, are refused before the database', async () => {
  await fresh()
  for (const [bad, code] of BAD_IDS) {
    await assert.rejects(db.insert(orders).values({ item: 'bad', parentId: bad }), (e) => {
      const cause = e.cause ?? e
      assert.equal(cause.code, code, String(e))
      return true
    })
  }
  assert.equal((await db.select({ n: count() }).from(orders))[0].n, 0)
})

test('100,000 rows in one insert get 100,000 keys', async () => {
  await fresh()
  const rows = Array.from({ length: 100_000 }, (_, i) => ({ item: `bulk ${i}` }))
  // PostgreSQL takes at most 65,535 parameters a statement.
  for (let i = 0; i < rows.length; i += 20_000) await db.insert(orders).values(rows.slice(i, i + 20_000))
  const [stats] = await db
    .select({ rows: count(), distinct: countDistinct(orders.id), low: min(orders.id), high: max(orders.id) })
    .from(orders)
  assert.equal(stats.rows, 100_000)
  assert.equal(stats.distinct, 100_000)
  for (const key of [stats.low, stats.high]) assert.equal(decode(BigInt.asUintN(64, BigInt(key)), 'twitter').machineId, 9)
})

test('idRange selects by the key alone, across bit 63 too', async () => {
  await fresh()
  const start = Date.UTC(2026, 10, 30, 12)
  const times = minuteEdges(start)
  await db.insert(events).values(times.map((at, i) => ({ id: composed('twitter', at, i), atMs: at })))
  const since = start + 60_000
  const until = start + 3 * 60_000 + 999
  const found = await db.select().from(events).where(idRange(events.id, 'twitter', new Date(since), until))
  const expected = times.filter((t) => t >= since && t <= until)
  assert.deepEqual(found.map((e) => e.atMs).sort(), expected)
  assert.equal(expected.length, 6)

  // discord sets bit 63 from 2^41 ms after its epoch on.
  await fresh()
  const { flip, around } = aroundBit63()
  await db.insert(events).values(around.map((at) => ({ id: composed('discord', at, 0), atMs: at })))
  const [signs] = (await pool.query('SELECT min(id) < 0 AS neg, max(id) > 0 AS pos FROM events')).rows
  assert.deepEqual(signs, { neg: true, pos: true })
  const across = await db
    .select()
    .from(events)
    .where(and(idRange(events.id, 'discord', flip - 2000, flip + 1000)))
  assert.deepEqual(across.map((e) => e.atMs).sort(), around.filter((t) => t >= flip - 2000 && t <= flip + 1000))
})

test('misuse is refused with a code', () => {
  assert.throws(() => snowflakeKey('twitter'), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' })
  assert.throws(() => idRange(events.id, 'twitter', Date.now(), Date.now() - 60_000), {
    name: 'RangeError',
    code: 'ERR_OUT_OF_RANGE',
  })
  assert.throws(() => idRange(events.id, 'twitter', 0, 1), { code: 'TIMESTAMP_BEFORE_EPOCH' })
})

test('the base package depends on no framework: every peer dependency is optional', async () => {
  const { readFile } = await import('node:fs/promises')
  const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'))
  assert.equal(pkg.dependencies, undefined)
  const peers = Object.keys(pkg.peerDependencies ?? {})
  assert.ok(peers.includes('drizzle-orm'))
  for (const peer of peers) assert.equal(pkg.peerDependenciesMeta?.[peer]?.optional, true, peer)
})
