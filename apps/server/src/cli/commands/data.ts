import { existsSync } from 'node:fs'
import type pg from 'pg'
import { applyMigrations } from '../../db/migrate.js'
import { bulkMethodOf } from '../../data/bulk.js'
import { calibrationReport, formatCalibrationReport } from '../../data/calibration.js'
import { IMPORT_KINDS, runImport, type ImportKind } from '../../data/importers.js'
import { listLoads } from '../../data/loads.js'
import { formatCount, formatSeconds, Progress } from '../../data/progress.js'
import { analyzeAndRefresh } from '../../data/refresh.js'
import { DEFAULT_SEED, SCALE_NAMES, seedDataset, type ScaleName } from '../../data/seed.js'
import { MIGRATIONS_DIR } from '../../runtime.js'
import { type Command, UsageError } from '../command.js'
import { ticImportCommand } from './tic.js'

function parseSeed(value: unknown): number {
  if (value === undefined) return DEFAULT_SEED
  if (typeof value !== 'string' || !/^\d{1,10}$/.test(value) || Number(value) > 0xffffffff)
    throw new UsageError('--seed must be a whole number between 0 and 4294967295')
  return Number(value)
}

/** A database that no server has started yet (a fresh PostgreSQL): apply the migrations first. */
async function ensureMigrated(pool: pg.Pool): Promise<void> {
  const { rows } = await pool.query<{ t: string | null }>(`SELECT to_regclass('public.data_loads')::text AS t`)
  if (rows[0]?.t) return
  const url = (pool as pg.Pool & { options: { connectionString?: string } }).options.connectionString
  if (!url) throw new Error('The database has no data platform tables: start the server once to apply the migrations')
  await applyMigrations(url, MIGRATIONS_DIR)
}

/** The data platform's operator commands (issue 5): synthetic dataset, official-file importers, status. */
export const dataCommands: Command[] = [
  ticImportCommand,
  {
    name: 'data seed',
    summary: 'Generate and load the synthetic national dataset (replaces earlier synthetic rows)',
    usage: `data seed [--scale ${SCALE_NAMES.join('|')}] [--seed N] [--threads N]   (default: demo, seed ${DEFAULT_SEED}; threads: generator threads per table on PostgreSQL, default 2 from the demo scale on, 0 = none)`,
    options: { scale: { type: 'string' }, seed: { type: 'string' }, threads: { type: 'string' } },
    async run(context, values) {
      const scale = (values.scale ?? 'demo') as string
      if (!(SCALE_NAMES as string[]).includes(scale)) throw new UsageError(`--scale must be one of ${SCALE_NAMES.join(', ')}`)
      const seed = parseSeed(values.seed)
      const threads = values.threads === undefined ? undefined : Number(values.threads)
      if (threads !== undefined && (!Number.isInteger(threads) || threads < 0 || threads > 16))
        throw new UsageError('--threads must be a whole number from 0 to 16')
      await ensureMigrated(context.db.pool)
      const summary = await seedDataset(context.db.pool, {
        scale: scale as ScaleName,
        seed,
        method: context.env.DATA_LOAD_METHOD,
        generatorThreads: threads,
      })
      context.print(summary, () =>
        [
          `Loaded scale ${summary.scale} (seed ${summary.seed}) in ${formatSeconds(summary.seconds * 1000)} (${summary.method === 'copy' ? 'COPY' : 'batched inserts'}):`,
          ...Object.entries(summary.counts).map(([table, n]) => `  ${table.padEnd(26)} ${formatCount(n).padStart(12)}`),
        ].join('\n'),
      )
    },
  },
  {
    name: 'data import',
    summary: `Import an official file (${IMPORT_KINDS.join(', ')}); re-importing updates`,
    usage: `data import <${IMPORT_KINDS.join('|')}> <file> [--facility <id|npi|ccn>] [--max-reasons 20]`,
    options: { facility: { type: 'string' }, 'max-reasons': { type: 'string' } },
    async run(context, values, [kind, file]) {
      if (!kind || !(IMPORT_KINDS as readonly string[]).includes(kind))
        throw new UsageError(`the kind must be one of ${IMPORT_KINDS.join(', ')}`)
      if (!file) throw new UsageError('data import needs a file')
      if (!existsSync(file)) throw new UsageError(`no such file: ${file}`)
      const maxReasons = values['max-reasons'] === undefined ? 20 : Number(values['max-reasons'])
      if (!Number.isInteger(maxReasons) || maxReasons < 0) throw new UsageError('--max-reasons must be a whole number')
      await ensureMigrated(context.db.pool)
      const summary = await runImport(context.db.pool, kind as ImportKind, file, {
        ...(typeof values.facility === 'string' ? { facility: values.facility } : {}),
        maxReasons,
        method: context.env.DATA_LOAD_METHOD,
      })
      context.print(summary, () =>
        [
          `Imported ${summary.kind} from ${summary.file} in ${formatSeconds(summary.seconds * 1000)}:`,
          `  read ${formatCount(summary.read)}, written ${formatCount(summary.written)}, rejected ${formatCount(summary.rejected)}${summary.skipped ? `, skipped ${formatCount(summary.skipped)}` : ''}`,
          ...summary.reasons.map((r) => `  line ${r.line}: ${r.reason}`),
          ...(summary.rejected > summary.reasons.length
            ? [`  ... and ${formatCount(summary.rejected - summary.reasons.length)} more rejected rows`]
            : []),
          ...Object.entries(summary.skipped_reasons).map(([reason, n]) => `  skipped ${formatCount(n)}: ${reason}`),
        ].join('\n'),
      )
    },
  },
  {
    name: 'data refresh',
    summary: 'Recompute the aggregates (materialised views) from the patient-level rows',
    usage: 'data refresh',
    async run(context) {
      const client = await context.db.pool.connect()
      const started = Date.now()
      try {
        // PostgreSQL refreshes two views at a time; the embedded database is one engine
        const lanes = (await bulkMethodOf(client)) === 'copy' ? { pool: context.db.pool, count: 2 } : undefined
        await analyzeAndRefresh(client, new Progress(), undefined, lanes)
      } finally {
        client.release()
      }
      context.print(
        { refreshed: true, seconds: (Date.now() - started) / 1000 },
        () => `Aggregates refreshed in ${formatSeconds(Date.now() - started)}.`,
      )
    },
  },
  {
    name: 'data calibration',
    summary: 'Measure every calibration target (seed/CALIBRATION.md) on the loaded data: target, measured, deviation, pass/fail',
    usage: `data calibration [--scale ${SCALE_NAMES.join('|')}]   (default: the scale of the latest seed; exit code 1 when a target fails)`,
    options: { scale: { type: 'string' } },
    async run(context, values) {
      const scale = values.scale as string | undefined
      if (scale !== undefined && !(SCALE_NAMES as string[]).includes(scale))
        throw new UsageError(`--scale must be one of ${SCALE_NAMES.join(', ')}`)
      await ensureMigrated(context.db.pool)
      const report = await calibrationReport(context.db.pool, scale as ScaleName | undefined)
      context.print(report, () => formatCalibrationReport(report))
      const failed = report.results.filter((r) => r.status === 'fail')
      if (failed.length > 0)
        throw new Error(`${failed.length} calibration target(s) out of tolerance: ${failed.map((r) => r.key).join(', ')}`)
    },
  },
  {
    name: 'data status',
    summary: 'List the recent seeds and imports (data_loads)',
    usage: 'data status [--limit 20]',
    options: { limit: { type: 'string' } },
    async run(context, values) {
      const limit = values.limit === undefined ? 20 : Number(values.limit)
      if (!Number.isInteger(limit) || limit <= 0) throw new UsageError('--limit must be a positive whole number')
      const loads = await listLoads(context.db.pool, limit)
      context.print(loads, () =>
        loads.length === 0
          ? 'Nothing loaded yet: npm run cli -- data seed --scale demo'
          : loads
              .map((l) => {
                const total = Object.values(l.counts).reduce<number>((a, b) => a + (typeof b === 'number' ? b : 0), 0)
                const took = l.finished_at ? formatSeconds(l.finished_at.getTime() - l.started_at.getTime()) : '-'
                return `${String(l.id).padStart(4)}  ${l.kind.padEnd(6)} ${l.scale.padEnd(8)} ${String(l.seed ?? '').padEnd(10)} ${l.status.padEnd(7)} ${formatCount(total).padStart(12)} rows  ${took.padStart(9)}  ${l.started_at.toISOString()}${l.source_file ? `  ${l.source_file}` : ''}${l.error ? `  ${l.error}` : ''}`
              })
              .join('\n'),
      )
    },
  },
]
