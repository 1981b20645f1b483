// Writes the package.json files of the npm packages that scripts/dist.sh packs,
// in napi-rs's layout: the main package `polyflake` (JS and typings) with an
// optional dependency on one package per platform, and the linux-x64-gnu
// platform package holding the prebuilt addon.
//   node npm-packages.mjs <bindings-node/package.json> <stage dir> <version>
import { readFileSync, writeFileSync } from 'node:fs'

const [source, stage, version] = process.argv.slice(2)
const base = JSON.parse(readFileSync(source, 'utf8'))
const platforms = [{ name: 'linux-x64-gnu', os: ['linux'], cpu: ['x64'], libc: ['glibc'] }]

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
  optionalDependencies: Object.fromEntries(platforms.map((p) => [`${base.name}-${p.name}`, version])),
}
if (main.version !== base.version) throw new Error(`package.json has ${base.version}, the workspace ${version}`)
writeFileSync(`${stage}/main/package.json`, JSON.stringify(main, null, 2) + '\n')

for (const p of platforms) {
  const addon = `${base.napi.binaryName}.${p.name}.node`
  const pkg = {
    name: `${base.name}-${p.name}`,
    version,
    description: `The prebuilt ${p.name} addon of ${base.name} (glibc >= 2.17)`,
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
