// Generator.fromEnv with POLYFLAKE_ETCD_ENDPOINTS against a real etcd
// (Debian's etcd-server), from the suites' shared launcher and stopped by PID.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'

import { Generator } from '../polyflake.js'
import { closedPort, startEtcd, stopEtcd } from './harness.mjs'

let etcd
let url

before(() => {
  etcd = startEtcd(1)
  url = etcd.endpoints
})

after(() => stopEtcd(etcd.dir))

test('fromEnv leases distinct identities from etcd', () => {
  process.env.POLYFLAKE_ETCD_ENDPOINTS = url
  process.env.POLYFLAKE_ETCD_PREFIX = '/node-test'
  try {
    const a = Generator.fromEnv('twitter')
    const b = Generator.fromEnv('twitter')
    assert.match(a.identitySource, /^etcd lease on node \d+ \(\/node-test\/twitter\/workers\//)
    assert.notDeepEqual(a.nodeFields, b.nodeFields)
    const ids = [...a.nextIds(1000), ...b.nextIds(1000)]
    assert.equal(new Set(ids).size, 2000)
  } finally {
    delete process.env.POLYFLAKE_ETCD_ENDPOINTS
    delete process.env.POLYFLAKE_ETCD_PREFIX
  }
})

test('an unreachable etcd is a LEASE_LOST error', async () => {
  process.env.POLYFLAKE_ETCD_ENDPOINTS = `http://127.0.0.1:${await closedPort()}`
  try {
    assert.throws(() => Generator.fromEnv('twitter').claim(),
      (e) => e.code === 'LEASE_LOST' && /cannot reach etcd/.test(e.message) && e.reason === 'unreachable' && e.retryable === true)
  } finally {
    delete process.env.POLYFLAKE_ETCD_ENDPOINTS
  }
})

test('fromEtcd takes the etcd settings; bad ones are INVALID_ARGUMENT', () => {
  const a = Generator.fromEtcd('twitter', { endpoints: url, prefix: '/node-from-etcd', nodeRange: [5, 7], ttlMs: 4000, keepAliveMs: 1000, safetyMarginMs: 1000, requestTimeoutMs: 1000 })
  const b = Generator.fromEtcd('twitter', { endpoints: [url], prefix: '/node-from-etcd', nodeRange: [5, 7] })
  assert.match(a.identitySource, /on node 5 /)
  assert.match(b.identitySource, /on node 6 /)
  assert.throws(() => Generator.fromEtcd('twitter', { endpoints: [url], prefix: '/node-from-etcd', nodeRange: [5, 7] }).claim(),
    (e) => e.code === 'LEASE_LOST' && /every one of the 2 node values/.test(e.message) && e.reason === 'exhausted')
  assert.throws(() => Generator.fromEtcd('twitter', { endpoints: url, ttlMs: 2500 }),
    (e) => e.code === 'INVALID_ARGUMENT' && /whole seconds/.test(e.message) && e.kind === 'configuration')
  assert.throws(() => Generator.fromEtcd('twitter', { endpoints: url, datacenterId: 1 }),
    (e) => e.code === 'INVALID_ARGUMENT' && /datacenterId/.test(e.message))
  assert.ok(a.nextId() > 0n)
  // Zero turns the peers' clock check off: taken, and a lease is held.
  const unchecked = Generator.fromEtcd('twitter', { endpoints: url, prefix: '/node-gap', maxClockGapMs: 0 })
  assert.match(unchecked.identitySource, /^etcd lease on node/)
  unchecked.close()
  assert.throws(() => Generator.fromEtcd('twitter', { endpoints: url, maxClockGapMs: -1 }), (e) => e instanceof RangeError && e.code !== undefined)
  const { lease } = a.stats()
  assert.deepEqual(lease, { renewals: lease.renewals, losses: 0, reacquisitions: 0 })
  assert.equal(new Generator('twitter', { datacenterId: 1, machineId: 1 }).stats().lease, undefined)
})

test('a check that refuses value 0 leads to value 1; a throwing check is an error', () => {
  const seen = []
  const g = Generator.fromEtcd('twitter', {
    endpoints: url, prefix: '/node-check', nodeRange: [0, 3],
    check: (nodes) => { seen.push(nodes); return !(nodes[0] === 0 && nodes[1] === 0) },
  })
  assert.deepEqual(g.nodeFields, { datacenterId: 0, machineId: 1 })
  assert.deepEqual(seen, [[0, 0], [0, 1]])
  // The refused value was released at once.
  const plain = Generator.fromEtcd('twitter', { endpoints: url, prefix: '/node-check', nodeRange: [0, 3] })
  assert.deepEqual(plain.nodeFields, { datacenterId: 0, machineId: 0 })
  assert.throws(() => Generator.fromEtcd('twitter', { endpoints: url, prefix: '/node-check', check: () => { throw new Error('registry down') } }).claim(),
    (e) => e.code === 'INVALID_ARGUMENT' && /check threw Error: registry down/.test(e.message) && e.kind === 'node_check')
  // Every value of the range refused: the lease has none left to offer.
  assert.throws(() => Generator.fromEtcd('twitter', { endpoints: url, prefix: '/node-refuse-all', nodeRange: [0, 2], check: () => false }).claim(),
    (e) => e.code === 'LEASE_LOST' && e.reason === 'check_refused' && e.retryable === false)
  assert.throws(() => Generator.fromEtcd('twitter', { endpoints: url, prefix: '/node-check', check: () => 1 }).claim(),
    (e) => e.code === 'INVALID_ARGUMENT' && /must return a boolean/.test(e.message))
  assert.throws(() => Generator.fromEtcd('twitter', { endpoints: url, prefix: '/node-check', check: 5 }),
    (e) => e.name === 'TypeError' && /check/.test(e.message))
  assert.ok(g.nextId() > 0n)
})
