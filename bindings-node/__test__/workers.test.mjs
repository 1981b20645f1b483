import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Worker } from 'node:worker_threads'

const body = `
  const { parentPort, workerData } = require('node:worker_threads')
  const pf = require(${JSON.stringify(new URL('../polyflake.js', import.meta.url).pathname)})
  const g = new pf.Generator('snowflake', { nodeId: workerData })
  const ids = [...g.nextIds(20000)]
  for (let i = 0; i < 20000; i++) ids.push(g.nextId())
  parentPort.postMessage(ids)
`

test('worker threads, each with its own identity: no duplicates', async () => {
  const results = await Promise.all(
    [1, 2, 3, 4].map(
      (nodeId) =>
        new Promise((resolve, reject) => {
          const w = new Worker(body, { eval: true, workerData: nodeId })
          w.once('message', resolve)
          w.once('error', reject)
        }),
    ),
  )
  const all = new Set()
  for (const [i, ids] of results.entries()) {
    assert.equal(ids.length, 40000)
    for (let k = 1; k < ids.length; k++) assert.ok(ids[k - 1] < ids[k], 'strictly increasing within a worker')
    for (const id of ids) {
      assert.equal(Number((id >> 12n) & 1023n), i + 1)
      all.add(id)
    }
  }
  assert.equal(all.size, 160000)
})
