/**
 * The TiC reader's throughput (issue 37): generates an in-network-rates file of the size asked (gzip), then times
 * `gzip -dc` alone on it and the importer's streaming reader (decompression, tokenizer, CMS schema checks, records),
 * and samples the process's RSS. Prints measurements only; never passes or fails.
 *
 *   npx tsx bench/tic.ts [--mb 64] [--plain] [--keep] [--dir /tmp]
 *       --mb: uncompressed size of the generated file in MB (the figure: --mb 2048); --plain: no gzip
 *
 * With --db the whole import is measured instead of the reader alone: `runTicImport` (what `data import tic` runs)
 * into a scratch embedded database (`--db embedded`: PGlite in memory, in this process, so its memory is in the
 * RSS) or PostgreSQL (`--db postgres`: DATABASE_URL; migrations applied; the bench's file is deleted afterwards):
 * MB/s, prices/s and rate rows/s, peak RSS, the time in database writes (stage batches, the SQL resolution at the
 * end of the file, commit) against the rest (reading, gunzip, tokenizer, schema checks), then a second import of
 * the same file with the row counts before and after (it must change nothing).
 *
 *       --npis N (5) NPIs per provider group, --refs N (2) provider references per negotiated_rates element: the
 *       rate rows written are prices x npis x refs (10 by default; --npis 1 --refs 1 gives one row per price)
 *   npx tsx bench/tic.ts --db embedded --mb 32
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/helper_tic npx tsx bench/tic.ts --db postgres --mb 300
 */
import { spawnSync } from 'node:child_process'
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { createGzip } from 'node:zlib'
import { loadavg } from 'node:os'
import { loadEnv } from '../apps/server/src/config.ts'
import { createDatabase } from '../apps/server/src/db/database.ts'
import { startEmbeddedPostgres } from '../apps/server/src/db/embedded.ts'
import { applyMigrations } from '../apps/server/src/db/migrate.ts'
import { silentSink } from '../apps/server/src/data/progress.ts'
import { runTicImport, type TicImportSummary, type TicTimings } from '../apps/server/src/data/tic/import.ts'
import { readTic } from '../apps/server/src/data/tic/reader.ts'
import { openSource } from '../apps/server/src/data/tic/source.ts'
import { MIGRATIONS_DIR } from '../apps/server/src/runtime.ts'

const NEGOTIATED_TYPES = ['negotiated', 'derived', 'fee schedule', 'percentage', 'per diem'] as const

/** A deterministic generator (mulberry32). */
function random(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export interface GeneratedFile {
  file: string
  textBytes: number
  fileBytes: number
  items: number
  prices: number
}

/** The file's fan-out: NPIs per provider group and provider references per negotiated_rates element (rate rows = prices x npis x refs). */
export interface FanOut {
  npis: number
  refs: number
}

/** Writes an in-network file of about `megabytes` MB of JSON: 2,000 provider groups, CPT items of 40 rates of 3 prices. */
export async function generateInNetworkFile(
  file: string,
  megabytes: number,
  gzip: boolean,
  fanOut: FanOut = { npis: 5, refs: 2 },
): Promise<GeneratedFile> {
  const rand = random(37)
  const out = createWriteStream(file, { highWaterMark: 1 << 20 })
  const gz = gzip ? createGzip({ level: 1 }) : null
  if (gz) gz.pipe(out)
  const sink = gz ?? out
  let textBytes = 0
  let buffer = ''
  const write = async (text: string) => {
    buffer += text
    if (buffer.length < 1 << 20) return
    const chunk = buffer
    buffer = ''
    textBytes += Buffer.byteLength(chunk)
    if (!sink.write(chunk)) await new Promise<void>((resolve) => sink.once('drain', () => resolve()))
  }
  const groups = 2000
  await write(
    '{"reporting_entity_name":"Bench Health","reporting_entity_type":"health insurance issuer","plan_name":"Bench PPO","plan_id_type":"hios","plan_id":"12345",' +
      '"plan_market_type":"group","issuer_name":"Bench Health","last_updated_on":"2026-11-01","version":"2.0.0","provider_references":[',
  )
  for (let g = 1; g <= groups; g++) {
    const npis = Array.from({ length: fanOut.npis }, () => 1_000_000_000 + Math.floor(rand() * 8_999_999_999))
    await write(
      `${g > 1 ? ',' : ''}{"provider_group_id":${g},"network_name":["Bench Network"],"provider_groups":[{"npi":[${npis.join(',')}],"tin":{"type":"ein","value":"${String(10 + (g % 89)).padStart(2, '0')}-${String(g).padStart(7, '0')}","business_name":"Group ${g}"}}]}`,
    )
  }
  await write('],"in_network":[')
  const target = megabytes * 1e6
  let items = 0
  let prices = 0
  while (textBytes + buffer.length < target) {
    const code = String(10000 + (items % 89999))
    let item = `${items > 0 ? ',' : ''}{"negotiation_arrangement":"ffs","name":"Procedure ${code}","billing_code_type":"CPT","billing_code_type_version":"2026","billing_code":"${code}","description":"Bench procedure ${code}","negotiated_rates":[`
    for (let r = 0; r < 40; r++) {
      const refs = Array.from({ length: fanOut.refs }, () => 1 + Math.floor(rand() * groups))
      item += `${r > 0 ? ',' : ''}{"provider_references":[${refs.join(',')}],"negotiated_prices":[`
      for (let p = 0; p < 3; p++) {
        const type = NEGOTIATED_TYPES[Math.floor(rand() * NEGOTIATED_TYPES.length)]!
        const rate = type === 'percentage' ? (40 + rand() * 60).toFixed(1) : (20 + rand() * 5000).toFixed(2)
        item +=
          p % 2 === 0
            ? `${p > 0 ? ',' : ''}{"negotiated_type":"${type}","negotiated_rate":${rate},"expiration_date":"9999-12-31","service_code":["11","22"],"billing_class":"professional","setting":"outpatient","billing_code_modifier":["26"]}`
            : `,{"negotiated_type":"${type}","negotiated_rate":${rate},"expiration_date":"9999-12-31","billing_class":"institutional","setting":"both"}`
        prices++
      }
      item += ']}'
    }
    await write(`${item}]}`)
    items++
  }
  await write(']}')
  textBytes += Buffer.byteLength(buffer)
  sink.end(buffer)
  await new Promise<void>((resolve, reject) => out.on('finish', () => resolve()).on('error', reject))
  return { file, textBytes, fileBytes: statSync(file).size, items, prices }
}

export interface TicBenchResult {
  generated: GeneratedFile
  gzipSeconds: number | null
  readSeconds: number
  records: { items: number; prices: number; groups: number }
  peakRssMiB: number
}

export async function benchTic(options: { megabytes: number; gzip: boolean; dir: string; keep: boolean }): Promise<TicBenchResult> {
  const file = path.join(options.dir, `bench-in-network.json${options.gzip ? '.gz' : ''}`)
  const generated = await generateInNetworkFile(file, options.megabytes, options.gzip)
  try {
    let gzipSeconds: number | null = null
    if (options.gzip) {
      const started = process.hrtime.bigint()
      const result = spawnSync('sh', ['-c', `gzip -dc '${file}' > /dev/null`])
      if (result.status === 0) gzipSeconds = Number(process.hrtime.bigint() - started) / 1e9
    }
    global.gc?.()
    let peak = process.memoryUsage().rss
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100)
    const records = { items: 0, prices: 0, groups: 0 }
    const started = process.hrtime.bigint()
    const opened = await openSource({ name: file, path: file }, Number.MAX_SAFE_INTEGER)
    await readTic(opened.stream, (record) => {
      if (record.kind === 'item') records.items++
      else if (record.kind === 'rate') records.prices += record.rate.negotiated_prices.length
      else if (record.kind === 'provider_reference') records.groups++
    })
    const readSeconds = Number(process.hrtime.bigint() - started) / 1e9
    clearInterval(sampler)
    peak = Math.max(peak, process.memoryUsage().rss)
    return { generated, gzipSeconds, readSeconds, records, peakRssMiB: Math.max(peak, process.resourceUsage().maxRSS * 1024) / (1 << 20) }
  } finally {
    if (!options.keep) rmSync(file, { force: true })
  }
}

export function formatTicBench(r: TicBenchResult): string {
  const mb = r.generated.textBytes / 1e6
  const fmt = new Intl.NumberFormat('en-US')
  return [
    `TiC in-network file: ${mb.toFixed(0)} MB of JSON (${(r.generated.fileBytes / 1e6).toFixed(0)} MB on disk), ${fmt.format(r.generated.items)} items, ${fmt.format(r.generated.prices)} negotiated prices, ${fmt.format(r.records.groups)} provider groups`,
    r.gzipSeconds === null
      ? '  gzip -dc: -'
      : `  gzip -dc alone:     ${r.gzipSeconds.toFixed(1)} s  (${(mb / r.gzipSeconds).toFixed(0)} MB/s of JSON)`,
    `  reader (gunzip + tokenizer + schema checks): ${r.readSeconds.toFixed(1)} s  ${(mb / r.readSeconds).toFixed(1)} MB/s  ${fmt.format(Math.round(r.records.prices / r.readSeconds))} rates/s  (${(r.readSeconds / (r.gzipSeconds ?? r.readSeconds)).toFixed(1)}x gzip -dc)`,
    `  peak RSS: ${r.peakRssMiB.toFixed(0)} MiB`,
  ].join('\n')
}

export interface TicImportBenchResult {
  generated: GeneratedFile
  database: string
  gzipSeconds: number | null
  seconds: number
  summary: TicImportSummary
  timings: TicTimings
  peakRssMiB: number
  /** rows of the bench's file before and after the second import, and that import's time */
  again: { seconds: number; status: string; before: Counts; after: Counts }
}

interface Counts {
  files: number
  rates: number
  groups: number
  loads: number
}

/** The whole import (reader and database) of a generated file, then the same file again. */
export async function benchTicImport(options: {
  megabytes: number
  gzip: boolean
  dir: string
  keep: boolean
  db: 'embedded' | 'postgres'
  fanOut: FanOut
}): Promise<TicImportBenchResult> {
  const url = options.db === 'postgres' ? loadEnv({ LOG_LEVEL: 'silent' }).DATABASE_URL : undefined
  if (options.db === 'postgres' && !url) throw new Error('--db postgres needs DATABASE_URL')
  const embedded = url ? null : await startEmbeddedPostgres({})
  const databaseUrl = url ?? embedded!.url
  await applyMigrations(databaseUrl, MIGRATIONS_DIR)
  const db = createDatabase(databaseUrl, { maxConnections: 2 })
  const file = path.join(options.dir, `bench-in-network.json${options.gzip ? '.gz' : ''}`)
  try {
    const generated = await generateInNetworkFile(file, options.megabytes, options.gzip, options.fanOut)
    let gzipSeconds: number | null = null
    if (options.gzip) {
      const started = process.hrtime.bigint()
      const result = spawnSync('sh', ['-c', `gzip -dc '${file}' > /dev/null`])
      if (result.status === 0) gzipSeconds = Number(process.hrtime.bigint() - started) / 1e9
    }
    const counts = async (): Promise<Counts> => {
      const { rows } = await db.pool.query<Counts>(
        `SELECT (SELECT count(*)::int FROM tic_files WHERE source = $1) AS files,
           (SELECT count(*)::int FROM tic_rates r JOIN tic_files f ON f.id = r.file_id WHERE f.source = $1) AS rates,
           (SELECT count(*)::int FROM tic_provider_groups g JOIN tic_files f ON f.id = g.file_id WHERE f.source = $1) AS groups,
           (SELECT count(*)::int FROM data_loads WHERE status = 'done') AS loads`,
        [file],
      )
      return rows[0]!
    }
    // an earlier run's file of the same name (its digest differs when --mb differs)
    await db.pool.query('DELETE FROM tic_files WHERE source = $1', [file])
    global.gc?.()
    let peak = process.memoryUsage().rss
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100)
    const timings: TicTimings = { stageMs: 0, resolveMs: 0, commitMs: 0 }
    const started = process.hrtime.bigint()
    const summary = await runTicImport(db.pool, file, { sink: silentSink, timings })
    const seconds = Number(process.hrtime.bigint() - started) / 1e9
    clearInterval(sampler)
    peak = Math.max(peak, process.memoryUsage().rss)
    const before = await counts()
    const againStarted = process.hrtime.bigint()
    const again = await runTicImport(db.pool, file, { sink: silentSink })
    const againSeconds = Number(process.hrtime.bigint() - againStarted) / 1e9
    const after = await counts()
    if (url) await db.pool.query('DELETE FROM tic_files WHERE source = $1', [file])
    return {
      generated,
      database: url ? `PostgreSQL ${new URL(url).pathname.slice(1)}` : 'embedded PGlite (scratch, in memory, in this process)',
      gzipSeconds,
      seconds,
      summary,
      timings,
      peakRssMiB: Math.max(peak, process.resourceUsage().maxRSS * 1024) / (1 << 20),
      again: { seconds: againSeconds, status: again.files.map((f) => f.status).join(', '), before, after },
    }
  } finally {
    await db.close()
    await embedded?.stop()
    if (!options.keep) rmSync(file, { force: true })
  }
}

export function formatTicImportBench(r: TicImportBenchResult): string {
  const mb = r.generated.textBytes / 1e6
  const fmt = new Intl.NumberFormat('en-US')
  const db = r.timings.stageMs / 1000 + r.timings.resolveMs / 1000 + r.timings.commitMs / 1000
  const share = (s: number) => `${((100 * s) / r.seconds).toFixed(0)} %`
  const rows = r.summary.rates
  return [
    `TiC import into ${r.database}: ${mb.toFixed(0)} MB of JSON (${(r.generated.fileBytes / 1e6).toFixed(0)} MB on disk), ${fmt.format(r.generated.items)} items, ${fmt.format(r.generated.prices)} negotiated prices -> ${fmt.format(rows)} rate rows; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
    r.gzipSeconds === null
      ? '  gzip -dc: -'
      : `  gzip -dc alone: ${r.gzipSeconds.toFixed(1)} s (${(mb / r.gzipSeconds).toFixed(0)} MB/s of JSON)`,
    `  import: ${r.seconds.toFixed(1)} s  ${(mb / r.seconds).toFixed(2)} MB/s  ${fmt.format(Math.round(r.generated.prices / r.seconds))} prices/s  ${fmt.format(Math.round(rows / r.seconds))} rate rows/s  (${(r.seconds / (r.gzipSeconds ?? r.seconds)).toFixed(1)}x gzip -dc)`,
    `  database ${db.toFixed(1)} s (${share(db)}): stage writes ${(r.timings.stageMs / 1000).toFixed(1)} s (${share(r.timings.stageMs / 1000)}), resolution SQL ${(r.timings.resolveMs / 1000).toFixed(1)} s (${share(r.timings.resolveMs / 1000)}), commit ${(r.timings.commitMs / 1000).toFixed(1)} s; reading and parsing ${(r.seconds - db).toFixed(1)} s (${share(r.seconds - db)})`,
    `  peak RSS: ${r.peakRssMiB.toFixed(0)} MiB`,
    `  same file again: ${r.again.status} in ${r.again.seconds.toFixed(1)} s; rows before ${JSON.stringify(r.again.before)}, after ${JSON.stringify(r.again.after)}${JSON.stringify(r.again.before) === JSON.stringify(r.again.after) ? ' (unchanged)' : ' (CHANGED)'}`,
  ].join('\n')
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      mb: { type: 'string' },
      plain: { type: 'boolean' },
      keep: { type: 'boolean' },
      dir: { type: 'string' },
      db: { type: 'string' },
      npis: { type: 'string' },
      refs: { type: 'string' },
    },
  })
  if (values.db !== undefined && values.db !== 'embedded' && values.db !== 'postgres') throw new Error('--db must be embedded or postgres')
  const megabytes = values.mb === undefined ? 64 : Number(values.mb)
  if (!Number.isFinite(megabytes) || megabytes <= 0) throw new Error('--mb must be a positive number')
  const dir = mkdtempSync(path.join(values.dir ?? tmpdir(), 'citrus-tic-bench-'))
  try {
    const common = { megabytes, gzip: values.plain !== true, dir, keep: values.keep === true }
    const fanOut = { npis: Number(values.npis ?? 5), refs: Number(values.refs ?? 2) }
    if (![fanOut.npis, fanOut.refs].every((n) => Number.isInteger(n) && n >= 1))
      throw new Error('--npis and --refs must be whole numbers from 1')
    if (values.db === 'embedded' || values.db === 'postgres')
      console.log(formatTicImportBench(await benchTicImport({ ...common, db: values.db, fanOut })))
    else console.log(formatTicBench(await benchTic(common)))
  } finally {
    if (values.keep !== true) rmSync(dir, { recursive: true, force: true })
  }
}
