// `npm test`: the whole suite on a fresh clone. Installs what the tests need when it is missing
// (npm dependencies; Debian's chromium for the browser tests and PostGIS for the local PostgreSQL when
// run as root with apt-get, as on the project's machines), builds the client, then runs vitest.
// Extra arguments go to vitest: npm test -- --project unit
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { bootstrap, buildWebClient, root, run } from './bootstrap.mjs'

function hasCommand(name) {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0
}

function debianPackageInstalled(name) {
  return spawnSync('dpkg', ['-s', name], { stdio: 'ignore' }).status === 0
}

function ensureSystemPackages() {
  const wanted = []
  const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
  if (!existsSync(chromium)) wanted.push('chromium')
  if (existsSync('/usr/lib/postgresql/15') && !debianPackageInstalled('postgresql-15-postgis-3')) wanted.push('postgresql-15-postgis-3')
  if (wanted.length === 0) return
  const canInstall = process.getuid?.() === 0 && hasCommand('apt-get')
  if (!canInstall) {
    console.error(
      `The tests need ${wanted.join(' and ')}. Install them (Debian: apt-get install -y ${wanted.join(' ')}) or set CHROMIUM_PATH.`,
    )
    process.exit(1)
  }
  run('apt-get', ['update', '-qq'], 'apt-get update')
  run('apt-get', ['install', '-y', '-qq', ...wanted], `Installing ${wanted.join(', ')}`, {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  })
}

bootstrap()
ensureSystemPackages()
buildWebClient()
const vitest = path.join(root, 'node_modules/vitest/vitest.mjs')
run(process.execPath, [vitest, 'run', ...process.argv.slice(2)], 'vitest run')
