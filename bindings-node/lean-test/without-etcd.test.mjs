// Run against an addon built without the `etcd` feature (the default source
// build); scripts/test-node.sh points POLYFLAKE_LEAN_ADDON at it.
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { test } from 'node:test'

const path = process.env.POLYFLAKE_LEAN_ADDON
assert.ok(path, 'POLYFLAKE_LEAN_ADDON names the lean addon')
const addon = createRequire(import.meta.url)(path)

const refused = (e) =>
  e.code === 'INVALID_ARGUMENT' && /built without the cargo feature `etcd`/.test(e.message) && /--features etcd/.test(e.message)

test('a build without etcd refuses POLYFLAKE_ETCD_ENDPOINTS with the documented error', () => {
  process.env.POLYFLAKE_ETCD_ENDPOINTS = 'http://127.0.0.1:1'
  try {
    assert.throws(() => addon.Generator.fromEnv('twitter'), refused)
  } finally {
    delete process.env.POLYFLAKE_ETCD_ENDPOINTS
  }
})

test('a build without etcd refuses fromEtcd with the same error', () => {
  assert.throws(() => addon.Generator.fromEtcd('twitter', { endpoints: 'http://127.0.0.1:1' }), refused)
})

test('a build without test hooks has none', () => {
  assert.equal(addon._panicForTests, undefined)
  assert.equal(addon._floor, undefined)
})
