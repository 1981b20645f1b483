// Generator.fromService against real `polyflake serve` replicas leasing from
// one real etcd (tests/service_cluster.py starts them and stops them by PID):
// one replica killed and one paused while IDs are taken, synchronously and
// through nextIdsAsync.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'

import { Generator, ServiceGenerator, decode } from 'polyflake'

import { closedPort, startService, stopService } from './harness.mjs'

let cluster

before(() => {
  const cli = process.env.POLYFLAKE_CLI
  assert.ok(cli, 'POLYFLAKE_CLI names a polyflake built with serve (scripts/test-node.sh sets it)')
  cluster = startService(cli)
})

after(() => {
  if (cluster) stopService(cluster.dir)
})

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

test('a killed and a paused replica cost no duplicate and no error', async () => {
  const { replicas } = cluster
  const service = Generator.fromService(
    replicas.map((r) => r.url),
    { batch: 500, requestTimeoutMs: 300 },
  )
  assert.ok(service instanceof ServiceGenerator)
  assert.deepEqual([service.batch, service.lowWater], [500, 250])
  const ids = []
  let longest = 0
  // The faults at their times, each while IDs are being taken.
  const faults = [
    [1500, () => process.kill(replicas[0].pid, 'SIGKILL')],
    [3000, () => process.kill(replicas[1].pid, 'SIGSTOP')],
    [5000, () => process.kill(replicas[1].pid, 'SIGCONT')],
  ]
  const began = Date.now()
  while (Date.now() - began < 6000) {
    while (faults.length > 0 && Date.now() - began >= faults[0][0]) faults.shift()[1]()
    for (let i = 0; i < 2000; i++) {
      const t = process.hrtime.bigint()
      ids.push(service.nextId())
      const took = Number(process.hrtime.bigint() - t) / 1e6
      if (took > longest) longest = took
    }
    // The async path: a refill awaited off the event loop, which runs the timers meanwhile.
    const [batch] = await Promise.all([service.nextIdsAsync(300), sleep(1)])
    assert.ok(batch instanceof BigUint64Array)
    ids.push(...batch)
  }
  assert.equal(new Set(ids).size, ids.length, 'no ID twice')
  assert.ok(ids.length > 10_000, `${ids.length} IDs`)
  const stats = service.stats()
  // Batches of 500 to 8,000 (the default maxBatch, 16 × 500).
  assert.ok(service.batch >= 500 && service.batch <= 8000, `${service.batch}`)
  assert.ok(stats.batches * 8000 >= ids.length)
  assert.ok(stats.failovers >= 1, `the killed replica was skipped: ${JSON.stringify(stats)}`)
  assert.equal(stats.refused, 0)
  const nodes = new Set(ids.map((id) => { const p = decode(id, 'twitter'); return `${p.datacenterId}/${p.machineId}` }))
  assert.ok(nodes.size >= 2, [...nodes].join(' '))
  console.log(`${ids.length} IDs, stalls ${stats.stalls}, longest nextId ${longest.toFixed(0)} ms`)
  service.close()
  assert.throws(() => service.nextId(), (e) => e.code === 'LEASE_LOST' && e.reason === 'closed')
})

test('no replica answering is a typed, retryable error, thrown or rejected', async () => {
  const port = await closedPort()
  const service = Generator.fromService(`http://127.0.0.1:${port}`, { deadlineMs: 300 })
  const began = Date.now()
  assert.throws(() => service.nextIdString(), (e) => {
    assert.equal(e.code, 'LEASE_LOST')
    assert.equal(e.reason, 'unreachable')
    assert.equal(e.retryable, true)
    assert.match(e.message, new RegExp(`127\\.0\\.0\\.1:${port}`))
    return true
  })
  assert.ok(Date.now() - began >= 290)
  // The same error from the thread pool: the event loop stays free meanwhile.
  let ticks = 0
  const timer = setInterval(() => ticks++, 10)
  await assert.rejects(service.nextIdsAsync(5), (e) => e instanceof Error && e.code === 'LEASE_LOST' && e.reason === 'unreachable')
  clearInterval(timer)
  assert.ok(ticks >= 10, `the event loop ran ${ticks} timers while the call waited`)
  assert.equal(service.stats().refused, 2)
  service.close()
})

test('bad settings are coded errors', () => {
  const url = 'http://127.0.0.1:1'
  const cases = [
    [[[]], 'INVALID_ARGUMENT'],
    [['https://127.0.0.1:1'], 'INVALID_ARGUMENT'],
    [[7], 'ERR_INVALID_ARG_TYPE'],
    [[url, { batch: 0 }], 'FIELD_OUT_OF_RANGE'],
    [[url, { batch: 100_001 }], 'FIELD_OUT_OF_RANGE'],
    [[url, { batch: 10, lowWater: 11 }], 'FIELD_OUT_OF_RANGE'],
    [[url, { batch: 1.5 }], 'ERR_INVALID_ARG_TYPE'],
    [[url, { deadlineMs: 0 }], 'INVALID_ARGUMENT'],
    [[url, { deadlineMs: -1 }], 'ERR_OUT_OF_RANGE'],
    [[url, { retries: 3 }], 'INVALID_ARGUMENT'],
    [[url, 'fast'], 'ERR_INVALID_ARG_TYPE'],
  ]
  for (const [args, code] of cases) {
    assert.throws(() => Generator.fromService(...args), (e) => e.code === code, JSON.stringify(args))
  }
})
