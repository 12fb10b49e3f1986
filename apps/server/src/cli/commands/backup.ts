import { spawn } from 'node:child_process'
import { chmodSync, closeSync, existsSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { Env } from '../../config.js'
import { createPGlite } from '../../db/pglite.js'
import { ensurePrivateDir, REPO_ROOT, runningEmbeddedUrl } from '../../runtime.js'
import { type Command, UsageError } from '../command.js'

/**
 * Backups of the whole database (docs/operations.md#backup-and-restore).
 *
 * - Embedded (no DATABASE_URL): PGlite's own copy of its data folder (`dumpDataDir`, a gzipped tar), taken and
 *   put back while no server holds the folder: PGlite opens a folder from one process only, and the wire port
 *   cannot serve pg_dump (a PostgreSQL 18 server needs pg_dump 18). A running server makes both commands refuse.
 * - PostgreSQL (DATABASE_URL): pg_dump's custom format and pg_restore, run while the server runs.
 *
 * A backup holds password hashes and API key digests: it is written owner-only (0600) under a temporary name
 * and renamed when complete, so a failed backup never leaves a file that looks whole.
 */

const GZIP_MAGIC = Buffer.from([0x1f, 0x8b])
const PG_DUMP_MAGIC = Buffer.from('PGDMP')

function embeddedDir(env: Env): { dataDir: string; pgliteDir: string } {
  const dataDir = path.resolve(REPO_ROOT, env.DATA_DIR)
  return { dataDir, pgliteDir: path.join(dataDir, 'pglite') }
}

function refuseWhileServing(env: Env, what: string): void {
  if (runningEmbeddedUrl(env)) {
    throw new Error(
      `A Citrus server is running on the embedded database in ${embeddedDir(env).dataDir}: stop it, then run ${what} again ` +
        '(the embedded database can be opened by one process only).',
    )
  }
}

function fileHead(file: string, bytes: number): Buffer {
  const fd = openSync(file, 'r')
  try {
    const head = Buffer.alloc(bytes)
    const read = readSync(fd, head, 0, bytes, 0)
    return head.subarray(0, read)
  } finally {
    closeSync(fd)
  }
}

type BackupKind = 'embedded' | 'postgres'

function kindOf(file: string): BackupKind | null {
  const head = fileHead(file, 5)
  if (head.subarray(0, 2).equals(GZIP_MAGIC)) return 'embedded'
  if (head.equals(PG_DUMP_MAGIC)) return 'postgres'
  return null
}

function targetFile(values: Record<string, unknown>, positionals: string[]): string {
  const file = positionals[0]
  if (!file || positionals.length > 1) throw new UsageError('name one backup file')
  const resolved = path.resolve(file)
  if (existsSync(resolved) && values.force !== true)
    throw new UsageError(`${resolved} exists: choose a new name or add --force to replace it`)
  return resolved
}

/** libpq connection settings for pg_dump / pg_restore, the password in the environment rather than on the command line. */
function libpqTarget(databaseUrl: string): { dbname: string; env: NodeJS.ProcessEnv } {
  const url = new URL(databaseUrl)
  const password = decodeURIComponent(url.password)
  url.password = ''
  // Prisma's own parameters mean nothing to libpq, which refuses unknown ones
  for (const name of ['schema', 'connection_limit', 'pool_timeout', 'pgbouncer', 'statement_cache_size', 'socket_timeout']) {
    url.searchParams.delete(name)
  }
  return { dbname: url.toString(), env: password ? { PGPASSWORD: password } : {} }
}

/** Runs a PostgreSQL client tool, stdout into `stdoutFd` when given; rejects with its own message on failure. */
function runTool(tool: string, args: string[], env: NodeJS.ProcessEnv, stdoutFd?: number): Promise<void> {
  return new Promise((resolve, reject) => {
    // eslint-disable-next-line no-restricted-properties -- the tool needs PATH, HOME and locale; the password is added
    const child = spawn(tool, args, { env: { ...process.env, ...env }, stdio: ['ignore', stdoutFd ?? 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr!.on('data', (chunk: Buffer) => {
      if (stderr.length < 16_000) stderr += chunk.toString()
    })
    child.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        new Error(
          error.code === 'ENOENT'
            ? `${tool} was not found on PATH: install the PostgreSQL client tools (the same major version as the server, or newer)`
            : `${tool} did not start: ${error.message}`,
        ),
      )
    })
    child.once('close', (code) => {
      if (code === 0) resolve()
      else reject(new Error(`${tool} failed (exit code ${code}): ${stderr.trim() || 'no message'}`))
    })
  })
}

/** Writes through `write` into `<file>.partial` (0600), renamed to `file` only when complete. */
async function writePrivately(file: string, write: (partial: string) => Promise<void>): Promise<void> {
  const partial = `${file}.partial`
  rmSync(partial, { force: true })
  try {
    await write(partial)
    chmodSync(partial, 0o600)
    renameSync(partial, file)
  } catch (error) {
    rmSync(partial, { force: true })
    throw error
  }
}

async function backupEmbedded(env: Env, file: string): Promise<number> {
  refuseWhileServing(env, 'backup')
  const { pgliteDir } = embeddedDir(env)
  if (!existsSync(path.join(pgliteDir, 'PG_VERSION'))) throw new Error(`There is no embedded database in ${pgliteDir} to back up.`)
  const db = await createPGlite({ dataDir: pgliteDir })
  try {
    const dump = await db.dumpDataDir('gzip')
    const bytes = Buffer.from(await dump.arrayBuffer())
    await writePrivately(file, async (partial) => writeFileSync(partial, bytes, { mode: 0o600, flag: 'wx' }))
    return bytes.length
  } finally {
    await db.close()
  }
}

async function restoreEmbedded(env: Env, file: string): Promise<string | null> {
  refuseWhileServing(env, 'restore')
  const { dataDir, pgliteDir } = embeddedDir(env)
  ensurePrivateDir(dataDir)
  // the database being replaced is kept beside it until the restored one has opened
  const aside = existsSync(pgliteDir) ? `${pgliteDir}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}` : null
  if (aside) renameSync(pgliteDir, aside)
  try {
    const db = await createPGlite({ dataDir: pgliteDir, loadDataDir: new Blob([readFileSync(file)]) })
    await db.query('SELECT 1')
    await db.close()
    chmodSync(pgliteDir, 0o700)
  } catch (error) {
    rmSync(pgliteDir, { recursive: true, force: true })
    if (aside) renameSync(aside, pgliteDir)
    throw new Error(`The backup could not be restored, the database is unchanged: ${(error as Error).message}`, { cause: error })
  }
  return aside
}

const BACKUP_USAGE = 'backup <file> [--force]   (embedded: stop the server first; PostgreSQL: pg_dump on PATH)'
const RESTORE_USAGE = 'restore <file>   (replaces the whole database; embedded: stop the server first; PostgreSQL: pg_restore on PATH)'

export const backupCommands: Command[] = [
  {
    name: 'backup',
    summary: 'Write a backup of the whole database to a file (owner-only, 0600)',
    usage: BACKUP_USAGE,
    opensDatabase: true,
    options: { force: { type: 'boolean' } },
    async run(context, values, positionals) {
      const file = targetFile(values, positionals)
      const databaseUrl = context.env.DATABASE_URL
      let mode: BackupKind
      if (databaseUrl) {
        const target = libpqTarget(databaseUrl)
        await writePrivately(file, async (partial) => {
          const fd = openSync(partial, 'wx', 0o600)
          try {
            await runTool('pg_dump', ['--format=custom', '--no-owner', '--no-privileges', `--dbname=${target.dbname}`], target.env, fd)
          } finally {
            closeSync(fd)
          }
        })
        mode = 'postgres'
      } else {
        await backupEmbedded(context.env, file)
        mode = 'embedded'
      }
      const bytes = statSync(file).size
      context.print({ file, database: mode, bytes }, () => `Backed up the ${mode} database to ${file} (${bytes} bytes, mode 0600).`)
    },
  },
  {
    name: 'restore',
    summary: 'Replace the whole database with a backup made by `backup`',
    usage: RESTORE_USAGE,
    opensDatabase: true,
    async run(context, _values, positionals) {
      const file = positionals[0]
      if (!file || positionals.length > 1) throw new UsageError('name one backup file')
      const resolved = path.resolve(file)
      if (!existsSync(resolved) || !statSync(resolved).isFile()) throw new UsageError(`${resolved} is not a file`)
      const kind = kindOf(resolved)
      const databaseUrl = context.env.DATABASE_URL
      const expected: BackupKind = databaseUrl ? 'postgres' : 'embedded'
      if (kind === null)
        throw new UsageError(`${resolved} is not a Citrus backup (neither an embedded database copy nor a pg_dump archive)`)
      if (kind !== expected) {
        throw new UsageError(
          kind === 'postgres'
            ? `${resolved} is a PostgreSQL backup (pg_dump): restore it with DATABASE_URL set to the PostgreSQL database`
            : `${resolved} is an embedded database backup: restore it without DATABASE_URL (into DATA_DIR)`,
        )
      }
      if (databaseUrl) {
        const target = libpqTarget(databaseUrl)
        await runTool(
          'pg_restore',
          [
            '--clean',
            '--if-exists',
            '--no-owner',
            '--no-privileges',
            '--single-transaction',
            '--exit-on-error',
            `--dbname=${target.dbname}`,
            resolved,
          ],
          target.env,
        )
        context.print({ file: resolved, database: 'postgres' }, () => `Restored the PostgreSQL database from ${resolved}.`)
        return
      }
      const aside = await restoreEmbedded(context.env, resolved)
      context.print(
        { file: resolved, database: 'embedded', replaced: aside },
        () =>
          `Restored the embedded database from ${resolved}.` +
          (aside ? `\nThe database it replaced is kept in ${aside}: delete it once the server runs as expected.` : ''),
      )
    },
  },
]
