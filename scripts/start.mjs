// `npm start`: everything a fresh clone needs to run the product, then the server.
// Installs dependencies when missing, generates the Prisma client, builds the client when its
// sources changed, and starts the server (embedded database unless DATABASE_URL is set).
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'

function run(command, args, label) {
  process.stdout.write(`> ${label}\n`)
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: process.env })
  if (result.status !== 0) {
    console.error(`${label} failed (exit ${result.status ?? result.signal})`)
    process.exit(result.status ?? 1)
  }
}

function newestMtime(dir) {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue
    const full = path.join(dir, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs)
  }
  return newest
}

const installed = existsSync(path.join(root, 'node_modules/.package-lock.json'))
const lockChanged =
  installed &&
  statSync(path.join(root, 'package-lock.json')).mtimeMs > statSync(path.join(root, 'node_modules/.package-lock.json')).mtimeMs
if (!installed || lockChanged) run(npm, ['ci', '--no-audit', '--no-fund'], 'Installing dependencies (npm ci)')

run(process.execPath, [path.join(root, 'scripts/ensure-generated.mjs')], 'Prisma client')

const indexHtml = path.join(root, 'apps/web/dist/index.html')
const sources = Math.max(newestMtime(path.join(root, 'apps/web')), newestMtime(path.join(root, 'packages/contracts/src')))
if (!existsSync(indexHtml) || statSync(indexHtml).mtimeMs < sources) {
  run(npm, ['run', 'build', '-w', '@citrus/web'], 'Building the web client')
}

const tsx = path.join(root, 'node_modules/tsx/dist/cli.mjs')
const server = spawn(process.execPath, [tsx, path.join(root, 'apps/server/src/main.ts')], {
  cwd: root,
  stdio: 'inherit',
  env: { SEED_DEMO: 'true', ...process.env },
})
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal))
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
