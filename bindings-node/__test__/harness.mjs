// The suites' shared launchers (tests/*.py at the repository's root), as the
// Node tests call them: one way to start each kind of server in every
// language, stopped by PID with its directory removed.
import { execFileSync } from 'node:child_process'
import { createServer } from 'node:net'

const launcher = (name) => new URL(`../../tests/${name}`, import.meta.url).pathname

/** An etcd of the test's own (tests/etcd_cluster.py): { dir, endpoints, members: [{ name, endpoint, pid }] }. */
export function startEtcd(members = 1) {
  const out = execFileSync('python3', [launcher('etcd_cluster.py'), 'start', '--members', String(members)], {
    encoding: 'utf8',
  })
  return JSON.parse(out)
}

export function stopEtcd(dir) {
  execFileSync('python3', [launcher('etcd_cluster.py'), 'stop', dir])
}

/** etcd and `serve` replicas of `cli` (tests/service_cluster.py): { dir, etcd, replicas: [{ url, pid }] }. */
export function startService(cli, replicas = 3) {
  const out = execFileSync('python3', [launcher('service_cluster.py'), 'start', '--cli', cli, '--replicas', String(replicas)], {
    encoding: 'utf8',
  })
  return JSON.parse(out)
}

export function stopService(dir) {
  execFileSync('python3', [launcher('service_cluster.py'), 'stop', dir])
}

/** A port of 127.0.0.1 nobody listens on now: the kernel's choice, released (for an address that must refuse). */
export const closedPort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
