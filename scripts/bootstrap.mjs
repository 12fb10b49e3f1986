// Shared first steps of `npm start` and `npm test` on a fresh clone: install the npm dependencies when
// missing or stale, and generate the Prisma client. Plain Node (no dependencies), so it runs before install.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'

export function run(command, args, label, options = {}) {
  process.stdout.write(`> ${label}\n`)
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: process.env, ...options })
  if (result.status !== 0) {
    console.error(`${label} failed (exit ${result.status ?? result.signal})`)
    process.exit(result.status ?? 1)
  }
}

export function runNpm(args, label) {
  run(npm, args, label)
}

export function newestMtime(dir) {
  let newest = 0
  if (!existsSync(dir)) return newest
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue
    const full = path.join(dir, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs)
  }
  return newest
}

export function installDependencies() {
  const marker = path.join(root, 'node_modules/.package-lock.json')
  const stale = existsSync(marker) && statSync(path.join(root, 'package-lock.json')).mtimeMs > statSync(marker).mtimeMs
  if (!existsSync(marker) || stale) runNpm(['ci', '--no-audit', '--no-fund'], 'Installing dependencies (npm ci)')
}

export function generatePrismaClient() {
  run(process.execPath, [path.join(root, 'scripts/ensure-generated.mjs')], 'Prisma client')
}

/** Builds the web client when it is missing or older than its sources. */
export function buildWebClient({ force = false } = {}) {
  const indexHtml = path.join(root, 'apps/web/dist/index.html')
  const sources = Math.max(newestMtime(path.join(root, 'apps/web')), newestMtime(path.join(root, 'packages')))
  if (force || !existsSync(indexHtml) || statSync(indexHtml).mtimeMs < sources) {
    runNpm(['run', 'build', '-w', '@citrus/web'], 'Building the web client')
  }
}

export function bootstrap() {
  installDependencies()
  generatePrismaClient()
}
