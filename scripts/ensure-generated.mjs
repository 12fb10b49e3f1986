// Generates the Prisma client (and the Kysely table types, apps/server/src/generated/kysely) when it is missing or older than prisma/schema.prisma.
// Prisma 7's CLI wants a schema-engine binary it would download; generate does not use it, so
// any executable satisfies the check (docs/decisions/0002) and nothing is fetched.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const schema = path.join(root, 'prisma/schema.prisma')
const outDir = path.join(root, 'apps/server/src/generated/prisma')
const stampFile = path.join(outDir, '.schema-hash')
const hash = createHash('sha256')
  .update(readFileSync(schema))
  .update(readFileSync(path.join(root, 'package-lock.json')))
  .digest('hex')

if (existsSync(path.join(outDir, 'client.ts')) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === hash) {
  process.exit(0)
}
const prismaCli = path.join(root, 'node_modules/prisma/build/index.js')
if (!existsSync(prismaCli) && existsSync(path.join(outDir, 'client.ts'))) {
  // A production install (npm prune --omit=dev, as in the Docker image) keeps the client it was built with.
  process.exit(0)
}
const result = spawnSync(process.execPath, [prismaCli, 'generate', '--schema', schema], {
  cwd: root,
  stdio: ['ignore', 'inherit', 'inherit'],
  env: {
    ...process.env,
    // the Kysely types' generator (prisma-kysely) is found as a command, as npm scripts find it
    PATH: `${path.join(root, 'node_modules/.bin')}${path.delimiter}${process.env.PATH ?? ''}`,
    PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath,
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
    CHECKPOINT_DISABLE: '1',
  },
})
if (result.status !== 0) {
  console.error('prisma generate failed')
  process.exit(result.status ?? 1)
}
writeFileSync(stampFile, hash)
