// Node's cluster: the primary runs the module, then each worker runs it
// again. The natural code makes the generator at the module's top, in the
// primary too, which never issues: made, it claims nothing (ADR 0017), so
// the four workers, alive at once, hold the four values of
// POLYFLAKE_WORKER_BITS=2.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'

const app = `
  const cluster = require('node:cluster')
  const pf = require(${JSON.stringify(new URL('../polyflake.js', import.meta.url).pathname)})
  const gen = pf.Generator.fromEnv('snowflake')

  if (cluster.isPrimary) {
    const answers = []
    for (let i = 0; i < 4; i++) cluster.fork()
    // Every worker stays alive, holding its value, until all four have
    // answered: a worker stopped early would free its value for another.
    cluster.on('message', (worker, answer) => {
      answers.push(answer)
      if (answers.length < 4) return
      console.log(JSON.stringify({ primaryClaimed: gen.claimed, answers }))
      for (const w of Object.values(cluster.workers)) w.kill()
    })
  } else {
    try {
      const ids = gen.nextIds(5000)
      process.send({ pid: process.pid, node: gen.nodeFields.nodeId, ids: [...ids].map(String) })
    } catch (e) {
      process.send({ pid: process.pid, error: e.code + ': ' + e.message })
    }
  }
`

test('cluster: a module-level generator claims nothing in the primary and serves every worker', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'polyflake-node-cluster-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'app.cjs'), app)
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('POLYFLAKE_')))
  Object.assign(env, { POLYFLAKE_NODE_ID: '5', POLYFLAKE_WORKER_BITS: '2', POLYFLAKE_STATE_DIR: join(dir, 'state') })
  const run = spawnSync(process.execPath, [join(dir, 'app.cjs')], { env, encoding: 'utf8', timeout: 60000 })
  assert.equal(run.status, 0, run.stderr)
  const { primaryClaimed, answers } = JSON.parse(run.stdout)
  assert.equal(primaryClaimed, false)
  assert.deepEqual(answers.filter((a) => a.error), [])
  assert.deepEqual(answers.map((a) => a.node).sort(), [20, 21, 22, 23])
  const ids = new Set(answers.flatMap((a) => a.ids))
  assert.equal(ids.size, 4 * 5000, 'duplicate IDs across workers')
})
