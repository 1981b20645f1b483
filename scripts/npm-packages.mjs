// Writes the package.json files of the npm packages that scripts/dist.sh packs,
// in napi-rs's layout: the main package `polyflake` (JS and typings) with an
// optional dependency on one package per platform, and each platform package
// holding its prebuilt addon, with the os, cpu and libc npm matches it on.
//   node npm-packages.mjs <bindings-node/package.json> <stage dir> <version> <platform>...
// where a platform is napi-rs's name: linux-x64-gnu, linux-arm64-musl, darwin-arm64 …
import { readFileSync, writeFileSync } from 'node:fs'

const [source, stage, version, ...names] = process.argv.slice(2)
const base = JSON.parse(readFileSync(source, 'utf8'))
const LIBC = { gnu: 'glibc', musl: 'musl' }
const FLOOR = { gnu: 'glibc >= 2.17', musl: 'musl >= 1.2' }
const platforms = names.map((name) => {
  const [os, cpu, abi] = name.split('-')
  if (!['linux', 'darwin', 'win32'].includes(os) || !['x64', 'arm64'].includes(cpu)) throw new Error(`unknown platform ${name}`)
  if (os === 'linux' && !LIBC[abi]) throw new Error(`${name}: a linux platform names its libc`)
  return { name, os: [os], cpu: [cpu], ...(os === 'linux' ? { libc: [LIBC[abi]] } : {}), floor: FLOOR[abi] }
})
if (platforms.length === 0) throw new Error('no platform package')

const main = {
  name: base.name,
  version,
  description: base.description,
  license: base.license,
  main: base.main,
  types: base.types,
  exports: base.exports,
  files: [...base.files, 'README.md'],
  engines: base.engines,
  peerDependencies: base.peerDependencies,
  peerDependenciesMeta: base.peerDependenciesMeta,
  optionalDependencies: Object.fromEntries(platforms.map((p) => [`${base.name}-${p.name}`, version])),
}
if (main.version !== base.version) throw new Error(`package.json has ${base.version}, the workspace ${version}`)
writeFileSync(`${stage}/main/package.json`, JSON.stringify(main, null, 2) + '\n')

for (const p of platforms) {
  const addon = `${base.napi.binaryName}.${p.name}.node`
  const pkg = {
    name: `${base.name}-${p.name}`,
    version,
    description: `The prebuilt ${p.name} addon of ${base.name}${p.floor ? ` (${p.floor})` : ''}`,
    license: base.license,
    main: addon,
    files: [addon, 'LICENSE-MIT', 'LICENSE-APACHE'],
    os: p.os,
    cpu: p.cpu,
    ...(p.libc ? { libc: p.libc } : {}),
    engines: base.engines,
  }
  writeFileSync(`${stage}/${p.name}/package.json`, JSON.stringify(pkg, null, 2) + '\n')
}
