import { randomBytes } from 'node:crypto'
import { readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import type { CopyValue } from '@citrus/data-kit'
import type pg from 'pg'
import type { Row } from '../../db/kysely.js'
import { badRequest } from '../../lib/errors.js'
import { forceBulkMethod, openBulkWriter, quoteIdent, type BulkMethod, type BulkWriter } from '../bulk.js'
import { failLoad, finishLoad, startLoad } from '../loads.js'
import { Progress, formatCount, formatSeconds, type ProgressSink } from '../progress.js'
import { createStage } from '../reference.js'
import { JsonPositionError, type JsonStreamLimits } from './json-stream.js'
import { readTic, type TicKind, type TicRecord } from './reader.js'
import type { ReportingPlan, ReportingStructure, TicHeader } from './schema.js'
import { digestOfFile, headText, openSource, refusedUrl, type TicSource } from './source.js'

/**
 * `data import tic` (issue 37): payers' Transparency-in-Coverage files into tic_files / tic_rates /
 * tic_provider_groups / tic_allowed_amounts.
 *
 * One file is one transaction: its records are spooled in order into one temporary stage table (provider groups,
 * in_network item heads, negotiated prices with their provider references, allowed amounts), and at the end of
 * the file the references are resolved by SQL — so a provider_references array that comes after in_network, or
 * an item whose billing code follows its rates, resolves the same — the rates are written per provider (NPI, else
 * TIN), the providers of the file's groups join the payer's network, an earlier import of the same source is
 * replaced, and the transaction commits. A malformed file (syntax or schema) rolls back with the line, column and
 * JSON path; nothing of it stays. A file whose SHA-256 is already imported is not read again.
 */

export interface TicImportOptions {
  /** the payer name rates and networks are filed under (default: the file's issuer_name, else reporting_entity_name) */
  payer?: string
  /** insurers.kind when the payer is new to the insurers table */
  payerKind?: string
  /** download the URLs a table of contents lists when no copy is next to it (https; http from this machine only) */
  fetch?: boolean
  /** most bytes read from one file: downloaded, and of JSON once decompressed */
  maxBytes?: number
  /** most seconds one download may take, from the request to its last byte (the import of what arrives included) */
  fetchTimeoutSeconds?: number
  /** most seconds without a byte from the server while the importer waits for one */
  fetchStallSeconds?: number
  limits?: Partial<JsonStreamLimits>
  /** filled with the milliseconds spent in the database (bench/tic.ts: the rest is reading and parsing) */
  timings?: TicTimings
  sink?: ProgressSink
  method?: BulkMethod
}

/** Milliseconds of an import spent in the database, summed over its files. */
export interface TicTimings {
  /** bulk writes of the records into the stage while the file is read */
  stageMs: number
  /** the end of a file: references resolved, rates written, networks updated (resolveFile) */
  resolveMs: number
  commitMs: number
}

export const DEFAULT_TIC_MAX_BYTES = 256 * 2 ** 30
/** 12 hours: a 100 GB file at 2.5 MB/s */
export const DEFAULT_TIC_FETCH_TIMEOUT_SECONDS = 12 * 3600
export const DEFAULT_TIC_FETCH_STALL_SECONDS = 120

export interface TicFileSummary {
  source: string
  kind: TicKind | null
  /** imported; unchanged (same digest already imported); skipped (not readable, with the reason) */
  status: 'imported' | 'unchanged' | 'skipped' | 'table_of_contents'
  file_id: number | null
  payer_name: string | null
  plan_name: string | null
  bytes: number
  items: number
  rates: number
  allowed_amounts: number
  provider_groups: number
  /** distinct NPIs of the file's provider groups found in the directory (providers or facilities) / not found */
  npis_matched: number
  npis_unmatched: number
  /** rates whose NPI is not in the directory (kept, counted) and rates keyed by TIN alone */
  rates_unmatched: number
  rates_tin_only: number
  /** providers who joined the payer's network */
  network_joined: number
  skipped: Record<string, number>
  seconds: number
}

export interface TicImportSummary {
  load_id: number | null
  files: TicFileSummary[]
  rates: number
  allowed_amounts: number
  npis_matched: number
  npis_unmatched: number
  seconds: number
}

/** The stage: one wide row per record ('g' provider group NPI, 'i' in_network item, 'r' negotiated price, 'o' out_of_network item, 'a' allowed amount). */
const STAGE_COLUMNS = [
  'rec',
  'item_no',
  'ref_ids',
  'group_id',
  'npi',
  'tin_type',
  'tin',
  'business_name',
  'network_names',
  'arrangement',
  'name',
  'bct',
  'bctv',
  'code',
  'contained',
  'ntype',
  'amount',
  'setting',
  'bclass',
  'service_codes',
  'modifiers',
  'expiration',
  'info',
  'billed',
] as const
const STAGE_DEFINITION = `rec text, item_no int, ref_ids bigint[], group_id bigint, npi text, tin_type text, tin text, business_name text, network_names text[],
  arrangement text, name text, bct text, bctv text, code text, contained text[], ntype text, amount numeric, setting text, bclass text, service_codes text[],
  modifiers text[], expiration date, info text, billed numeric`
type StageRow = Partial<Record<(typeof STAGE_COLUMNS)[number], CopyValue>>
/** rows per bulk write into the stage */
const STAGE_BATCH_ROWS = 20_000
const stageValues = (row: StageRow): CopyValue[] => STAGE_COLUMNS.map((c) => row[c] ?? null)

const DIRECTORY_MATCH = (npi: string) =>
  `(${npi} IS NOT NULL AND (EXISTS (SELECT 1 FROM providers p WHERE p.npi = ${npi}) OR EXISTS (SELECT 1 FROM facilities f WHERE f.npi = ${npi})))`

/** An NPI from a file: 10 digits; 0 = none given (keyed by TIN); anything else is skipped. */
function npiText(n: number): string | null | undefined {
  if (n === 0) return null
  return Number.isInteger(n) && n >= 1_000_000_000 && n <= 9_999_999_999 ? String(n) : undefined
}

class Skips {
  readonly counts: Record<string, number> = {}
  add(reason: string, n = 1) {
    this.counts[reason] = (this.counts[reason] ?? 0) + n
  }
}

interface FileTask {
  source: TicSource
  plans: ReportingPlan[]
}

/** Expands the command's argument: a file, a directory of files (tables of contents first), or a table of contents. */
async function listTargets(target: string): Promise<string[]> {
  if (!statSync(target).isDirectory()) return [target]
  const files = readdirSync(target)
    .filter((f) => /\.json(\.gz)?$/i.test(f))
    .sort()
    .map((f) => path.join(target, f))
  const tocs: string[] = []
  const rest: string[] = []
  for (const file of files) ((await headText(file)).includes('"reporting_structure"') ? tocs : rest).push(file)
  return [...tocs, ...rest]
}

/** A location of a table of contents: a local path (relative to it), a file next to it named like the URL, or the URL (--fetch). */
function resolveLocation(tocPath: string, location: string, fetchRemote: boolean): TicSource | { skip: string } {
  const dir = path.dirname(tocPath)
  if (/^https?:\/\//i.test(location)) {
    let base: string
    try {
      base = path.basename(new URL(location).pathname)
    } catch {
      return { skip: 'location is not a valid URL' }
    }
    for (const candidate of [base, `${base}.gz`]) {
      const local = path.join(dir, candidate)
      if (candidate && existsFile(local)) return { name: local, path: local }
    }
    if (!fetchRemote) return { skip: 'remote file not present next to the table of contents (pass --fetch to download it)' }
    const refused = refusedUrl(location)
    return refused ? { skip: refused } : { name: location, url: location }
  }
  const local = path.resolve(dir, location.replace(/^file:\/\//, ''))
  return existsFile(local) ? { name: local, path: local } : { skip: 'local file not found' }
}

function existsFile(file: string): boolean {
  try {
    return statSync(file).isFile()
  } catch {
    return false
  }
}

const emptySummary = (source: string, status: TicFileSummary['status']): TicFileSummary => ({
  source,
  kind: null,
  status,
  file_id: null,
  payer_name: null,
  plan_name: null,
  bytes: 0,
  items: 0,
  rates: 0,
  allowed_amounts: 0,
  provider_groups: 0,
  npis_matched: 0,
  npis_unmatched: 0,
  rates_unmatched: 0,
  rates_tin_only: 0,
  network_joined: 0,
  skipped: {},
  seconds: 0,
})

/**
 * Imports a TiC file, a directory of them, or a table of contents and the files it lists. Throws a 400 AppError
 * (with the position) for a malformed file, after rolling it back; files imported before it stay.
 */
export async function runTicImport(pool: pg.Pool, target: string, options: TicImportOptions = {}): Promise<TicImportSummary> {
  const started = Date.now()
  const progress = new Progress(options.sink)
  const client = await pool.connect()
  const unforce = forceBulkMethod(client, options.method)
  const files: TicFileSummary[] = []
  let loadId: number | null = null
  const ensureLoad = async () => {
    if (loadId === null) loadId = await startLoad(client, { kind: 'import', scale: 'tic', source_file: target })
  }
  let queue: FileTask[] = []
  let current: string | null = null
  try {
    queue = (await listTargets(target)).map((p) => ({ source: { name: path.resolve(p), path: path.resolve(p) }, plans: [] }))
    const seen = new Set<string>()
    while (queue.length > 0) {
      const task = queue.shift()!
      current = task.source.name
      const listed: FileTask[] = []
      if (seen.has(task.source.name)) continue
      seen.add(task.source.name)
      const summary = await importOne(client, task, options, progress, ensureLoad, () => loadId)
      files.push(summary.file)
      for (const structure of summary.structures) {
        for (const location of [...(structure.in_network_files ?? []), ...(structure.allowed_amount_file ? [structure.allowed_amount_file] : [])]) {
          const resolved = resolveLocation(task.source.path ?? '.', location.location, options.fetch === true)
          if ('skip' in resolved) {
            const skipped = emptySummary(location.location, 'skipped')
            skipped.skipped[resolved.skip] = 1
            files.push(skipped)
            progress.line(`  ${location.location}: skipped, ${resolved.skip}`)
            continue
          }
          listed.push({ source: resolved, plans: structure.reporting_plans })
        }
      }
      // the files a table of contents lists come next, with its plans (before the same files met in a directory)
      queue.unshift(...listed)
      current = null
    }
    const totals = {
      rates: files.reduce((s, f) => s + f.rates, 0),
      allowed_amounts: files.reduce((s, f) => s + f.allowed_amounts, 0),
      npis_matched: files.reduce((s, f) => s + f.npis_matched, 0),
      npis_unmatched: files.reduce((s, f) => s + f.npis_unmatched, 0),
    }
    if (loadId !== null && !files.some((f) => f.status === 'imported')) {
      // every file was read and found imported before (a download is known by its digest once it has arrived): the
      // load opened for it is dropped, so the same files again make no new data version
      await client.query('DELETE FROM data_loads WHERE id = $1', [loadId])
      loadId = null
    }
    if (loadId !== null) await finishLoad(client, loadId, { files: files.filter((f) => f.status === 'imported').length, ...totals })
    return { load_id: loadId, files, ...totals, seconds: (Date.now() - started) / 1000 }
  } catch (error) {
    const imported = files.filter((f) => f.status === 'imported')
    if (error instanceof Error && current !== null && (files.length > 0 || queue.length > 0)) {
      // a run of several files (a directory, a table of contents): which were kept and which not
      const notRead = [current, ...queue.map((t) => t.source.name).filter((n) => n !== current)]
      const others = files.filter((f) => f.status !== 'imported' && f.status !== 'table_of_contents')
      error.message += `\n  imported (kept): ${imported.length === 0 ? 'none' : imported.map((f) => f.source).join(', ')}`
      if (others.length > 0) error.message += `\n  ${others.map((f) => `${f.source}: ${f.status}${f.status === 'skipped' ? ` (${Object.keys(f.skipped).join('; ')})` : ''}`).join('\n  ')}`
      error.message += `\n  not imported: ${notRead.join(', ')}`
    }
    // the failure is journalled even when it came before anything was written; the files kept before it are a
    // finished load of their own (a new data version), the failure another
    await (async () => {
      if (loadId !== null && imported.length > 0) {
        await finishLoad(client, loadId, { files: imported.length, rates: imported.reduce((s, f) => s + f.rates, 0), allowed_amounts: imported.reduce((s, f) => s + f.allowed_amounts, 0) })
        loadId = null
      }
      await ensureLoad()
      await failLoad(client, loadId!, { files: files.length }, error)
    })().catch(() => undefined)
    throw error
  } finally {
    unforce()
    client.release()
  }
}

interface OneResult {
  file: TicFileSummary
  structures: ReportingStructure[]
}

async function importOne(
  client: pg.ClientBase,
  task: FileTask,
  options: TicImportOptions,
  progress: Progress,
  ensureLoad: () => Promise<void>,
  loadId: () => number | null,
): Promise<OneResult> {
  const started = Date.now()
  const name = task.source.name
  const summary = emptySummary(name, 'imported')
  // the same bytes imported before: nothing to do (a local file is hashed before it is parsed)
  if (task.source.path) {
    const digest = await digestOfFile(task.source.path)
    const { rows } = await client.query<Pick<Row<'tic_files'>, 'id' | 'kind'>>('SELECT id, kind FROM tic_files WHERE digest = $1', [digest])
    if (rows[0]) {
      progress.line(`${name}: unchanged (imported before as file ${rows[0].id})`)
      return { file: { ...summary, status: 'unchanged', file_id: rows[0].id, kind: rows[0].kind as TicKind, seconds: (Date.now() - started) / 1000 }, structures: [] }
    }
  }
  const opened = await openSource(task.source, {
    maxBytes: options.maxBytes ?? DEFAULT_TIC_MAX_BYTES,
    timeoutMs: (options.fetchTimeoutSeconds ?? DEFAULT_TIC_FETCH_TIMEOUT_SECONDS) * 1000,
    stallMs: (options.fetchStallSeconds ?? DEFAULT_TIC_FETCH_STALL_SECONDS) * 1000,
  })
  const skips = new Skips()
  const structures: ReportingStructure[] = []
  let begun = false
  /** rows waiting for the next bulk write: each batch is a whole COPY (or insert), so no COPY is open while the file is parsed */
  let pending: CopyValue[][] = []
  const flush = async () => {
    if (pending.length === 0) return
    const batch = pending
    pending = []
    const flushStarted = performance.now()
    const writer: BulkWriter = await openBulkWriter(client, stage, STAGE_COLUMNS)
    for (const values of batch) await writer.write(values)
    await writer.close()
    if (options.timings) options.timings.stageMs += performance.now() - flushStarted
  }
  let stage = ''
  let fileId = 0
  let inTransaction = false
  let rates = 0
  let inlineGroup = 0
  const step = progress.step(path.basename(name).slice(0, 26), 1000)
  const size = opened.totalBytes() ?? 0
  let lastLine = Date.now()

  /** The transaction and the stage open at the first record of a data file (a table of contents writes nothing). */
  const begin = async () => {
    await ensureLoad()
    await client.query('BEGIN')
    inTransaction = true
    stage = await createStage(client, 'tic', STAGE_DEFINITION)
    const placeholder = randomBytes(32).toString('hex')
    const { rows } = await client.query<Pick<Row<'tic_files'>, 'id'>>(
      `INSERT INTO tic_files (digest, source, kind, payer_name, reporting_entity_name, reporting_entity_type, last_updated_on, version, bytes, data_load_id)
       VALUES ($1, $2, 'pending', '', '', '', current_date, '', 0, $3) RETURNING id`,
      [placeholder, name, loadId()],
    )
    fileId = rows[0]!.id
    begun = true
  }
  const put = async (row: StageRow) => {
    if (!begun) await begin()
    pending.push(stageValues(row))
    if (pending.length >= STAGE_BATCH_ROWS) await flush()
  }
  const groupRows = async (groupId: number, providers: { npi: number[]; tin: { type: string; value: string; business_name?: string | undefined } }[], networks: string[]) => {
    for (const group of providers) {
      const npis = group.npi.map(npiText)
      for (const npi of npis) {
        if (npi === undefined) {
          skips.add('NPI that is not 10 digits (left out of its provider group)')
          continue
        }
        await put({ rec: 'g', group_id: groupId, npi, tin_type: group.tin.type, tin: group.tin.value, business_name: group.tin.business_name ?? null, network_names: networks })
      }
    }
  }

  const handle = async (record: TicRecord) => {
    switch (record.kind) {
      case 'structure':
        structures.push(record.structure)
        return
      case 'provider_reference': {
        summary.provider_groups++
        if (!record.ref.provider_groups) {
          skips.add('provider reference by location (a separate provider file, not fetched)')
          return
        }
        await groupRows(record.ref.provider_group_id, record.ref.provider_groups, record.ref.network_name ?? [])
        return
      }
      case 'rate': {
        const refs: number[] = [...(record.rate.provider_references ?? [])]
        if (record.rate.provider_groups && record.rate.provider_groups.length > 0) {
          // inline groups (schema 1.x): a group of their own, below the file's ids
          const id = -++inlineGroup
          await groupRows(id, record.rate.provider_groups, [])
          refs.push(id)
        }
        for (const price of record.rate.negotiated_prices) {
          await put({
            rec: 'r',
            item_no: record.item,
            ref_ids: refs,
            ntype: price.negotiated_type,
            amount: price.negotiated_rate,
            setting: price.setting,
            bclass: price.billing_class,
            service_codes: price.service_code ?? [],
            modifiers: price.billing_code_modifier ?? [],
            expiration: price.expiration_date,
            info: price.additional_information ?? null,
          })
          rates++
        }
        break
      }
      case 'item': {
        summary.items++
        const contained = [...(record.head.bundled_codes ?? []), ...(record.head.covered_services ?? [])].map((c) => `${c.billing_code_type}:${c.billing_code}`)
        await put({
          rec: 'i',
          item_no: record.item,
          arrangement: record.head.negotiation_arrangement,
          name: record.head.name,
          bct: record.head.billing_code_type,
          bctv: record.head.billing_code_type_version,
          code: record.head.billing_code,
          contained,
        })
        break
      }
      case 'oon_item': {
        summary.items++
        await put({ rec: 'o', item_no: record.item, name: record.head.name, bct: record.head.billing_code_type, bctv: record.head.billing_code_type_version, code: record.head.billing_code })
        break
      }
      case 'allowed': {
        const a = record.amount
        for (const payment of a.payments)
          for (const provider of payment.providers)
            for (const n of provider.npi) {
              const npi = npiText(n)
              if (npi === undefined) {
                skips.add('NPI that is not 10 digits (allowed amount left out)')
                continue
              }
              await put({
                rec: 'a',
                item_no: record.item,
                npi,
                tin_type: a.tin.type,
                tin: a.tin.value,
                setting: a.setting ?? null,
                bclass: a.billing_class,
                service_codes: a.service_code ?? [],
                modifiers: payment.billing_code_modifier ?? [],
                amount: payment.allowed_amount,
                billed: provider.billed_charge,
              })
              rates++
            }
        break
      }
    }
    const fraction = size > 0 ? opened.rawBytes() / size : 0
    step.tick(0, Math.floor(Math.min(1, fraction) * 1000))
    if (Date.now() - lastLine > 10_000) {
      lastLine = Date.now()
      const seconds = (Date.now() - started) / 1000
      progress.line(
        `    ${(opened.textBytes() / 1e6).toFixed(0)} MB read (${(opened.textBytes() / 1e6 / seconds).toFixed(1)} MB/s), ${formatCount(summary.items)} items, ${formatCount(rates)} rates (${formatCount(rates / seconds)}/s)`,
      )
    }
  }

  try {
    let read
    try {
      read = await readTic(opened.stream, handle, options.limits)
    } catch (error) {
      if (error instanceof JsonPositionError) throw badRequest(`${name}: malformed, nothing of it imported: ${error.message}`)
      throw error
    }
    summary.kind = read.kind
    summary.bytes = opened.rawBytes()
    if (read.kind === 'table_of_contents') {
      step.finish(0)
      progress.line(`${name}: table of contents, ${structures.length} reporting structure(s)`)
      return { file: { ...summary, status: 'table_of_contents', seconds: (Date.now() - started) / 1000 }, structures }
    }
    if (!begun) await begin()
    await flush()
    const digest = opened.digest()
    const { rows: before } = await client.query<Pick<Row<'tic_files'>, 'id'>>('SELECT id FROM tic_files WHERE digest = $1', [digest])
    if (before[0]) {
      // a remote file that turned out to be imported already
      await client.query('ROLLBACK')
      inTransaction = false
      step.finish(0)
      return { file: { ...summary, status: 'unchanged', file_id: before[0].id, seconds: (Date.now() - started) / 1000 }, structures: [] }
    }
    const resolveStarted = performance.now()
    await resolveFile(client, stage, fileId, read.kind, read.header, task.plans, digest, summary, skips, options)
    summary.skipped = skips.counts
    summary.file_id = fileId
    summary.seconds = (Date.now() - started) / 1000
    await client.query(`UPDATE tic_files SET counts = $2::jsonb WHERE id = $1`, [fileId, JSON.stringify(countsOf(summary))])
    const commitStarted = performance.now()
    await client.query('COMMIT')
    if (options.timings) {
      options.timings.resolveMs += commitStarted - resolveStarted
      options.timings.commitMs += performance.now() - commitStarted
    }
    inTransaction = false
    step.finish(summary.kind === 'in_network' ? summary.rates : summary.allowed_amounts)
    progress.line(
      `${name}: ${formatCount(summary.rates)} rates, ${formatCount(summary.allowed_amounts)} allowed amounts from ${formatCount(summary.items)} items; NPIs in the directory ${formatCount(summary.npis_matched)}, not ${formatCount(summary.npis_unmatched)}; ${((summary.bytes / 1e6) / Math.max(summary.seconds, 0.001)).toFixed(1)} MB/s, ${formatSeconds(Date.now() - started)}`,
    )
    return { file: summary, structures: [] }
  } catch (error) {
    if (inTransaction) await client.query('ROLLBACK').catch(() => undefined)
    step.finish(0)
    throw error
  }
}

const countsOf = (s: TicFileSummary) => ({
  items: s.items,
  rates: s.rates,
  allowed_amounts: s.allowed_amounts,
  provider_groups: s.provider_groups,
  npis_matched: s.npis_matched,
  npis_unmatched: s.npis_unmatched,
  rates_unmatched: s.rates_unmatched,
  rates_tin_only: s.rates_tin_only,
  network_joined: s.network_joined,
  skipped: s.skipped,
})

/** The payer's canonical insurer name (an existing insurer of that name in any case, else a new insurer). */
async function payerName(client: pg.ClientBase, name: string, kind: string): Promise<string> {
  const { rows } = await client.query<Pick<Row<'insurers'>, 'name'>>('SELECT name FROM insurers WHERE lower(name) = lower($1) ORDER BY name = $1 DESC LIMIT 1', [name])
  if (rows[0]) return rows[0].name
  await client.query(`INSERT INTO insurers (name, kind, states) VALUES ($1, $2, '{}') ON CONFLICT (name) DO NOTHING`, [name, kind])
  return name
}

/** The end of a data file: header, references resolved into rates, networks, the earlier import of the source replaced. */
async function resolveFile(
  client: pg.ClientBase,
  stageName: string,
  fileId: number,
  kind: TicKind,
  header: TicHeader,
  plans: ReportingPlan[],
  digest: string,
  summary: TicFileSummary,
  skips: Skips,
  options: TicImportOptions,
): Promise<void> {
  const stage = quoteIdent(stageName)
  const payer = await payerName(client, options.payer ?? header.issuer_name ?? plans[0]?.issuer_name ?? header.reporting_entity_name, options.payerKind ?? 'commercial')
  const plan = header.plan_name ? { ...header } : plans.length === 1 ? { ...plans[0]! } : null
  const planName = header.plan_name ?? plans.map((p) => p.plan_name).join('; ')
  summary.payer_name = payer
  summary.plan_name = planName
  await client.query(
    `UPDATE tic_files SET digest = $2, kind = $3, payer_name = $4, reporting_entity_name = $5, reporting_entity_type = $6, plan_name = $7, plan_id = $8,
       plan_id_type = $9, plan_market_type = $10, issuer_name = $11, plan_sponsor_name = $12, last_updated_on = $13::date, version = $14, bytes = $15 WHERE id = $1`,
    [
      fileId,
      digest,
      kind,
      payer,
      header.reporting_entity_name,
      header.reporting_entity_type,
      planName,
      plan?.plan_id ?? null,
      plan?.plan_id_type ?? null,
      plan?.plan_market_type ?? null,
      plan?.issuer_name ?? null,
      plan?.plan_sponsor_name ?? null,
      header.last_updated_on,
      header.version,
      summary.bytes,
    ],
  )
  await client.query(`CREATE INDEX ON ${stage} (rec, item_no)`)
  await client.query(`CREATE INDEX ON ${stage} (rec, group_id)`)
  await client.query(`ANALYZE ${stage}`)
  if (kind === 'in_network') {
    await client.query(
      `INSERT INTO tic_provider_groups (file_id, group_id, npi, tin_type, tin, business_name, network_names)
       SELECT $1, group_id, npi, tin_type, tin, business_name, coalesce(network_names, '{}') FROM ${stage} WHERE rec = 'g'`,
      [fileId],
    )
    const { rows: missing } = await client.query<{ id: string; prices: string }>(
      `SELECT ref.id::text AS id, count(*)::text AS prices FROM ${stage} r CROSS JOIN LATERAL unnest(r.ref_ids) AS ref(id)
       WHERE r.rec = 'r' AND NOT EXISTS (SELECT 1 FROM ${stage} g WHERE g.rec = 'g' AND g.group_id = ref.id) GROUP BY ref.id ORDER BY ref.id LIMIT 1000`,
    )
    for (const m of missing) skips.add(`negotiated price referring to provider_group_id ${m.id}, which the file does not define`, Number(m.prices))
    const inserted = await client.query(
      `INSERT INTO tic_rates (file_id, npi, tin_type, tin, provider_matched, billing_code_type, billing_code_type_version, billing_code, name, negotiation_arrangement,
         contained_codes, negotiated_type, negotiated_rate, setting, billing_class, service_codes, billing_code_modifiers, expiration_date, additional_information)
       SELECT $1, g.npi, g.tin_type, g.tin, ${DIRECTORY_MATCH('g.npi')}, i.bct, i.bctv, i.code, i.name, i.arrangement,
         coalesce(i.contained, '{}'), r.ntype, r.amount, r.setting, r.bclass, coalesce(r.service_codes, '{}'), coalesce(r.modifiers, '{}'), r.expiration, r.info
       FROM ${stage} r JOIN ${stage} i ON i.rec = 'i' AND i.item_no = r.item_no
       CROSS JOIN LATERAL unnest(r.ref_ids) AS ref(id)
       JOIN ${stage} g ON g.rec = 'g' AND g.group_id = ref.id
       WHERE r.rec = 'r'`,
      [fileId],
    )
    summary.rates = inserted.rowCount ?? 0
    const { rows: npis } = await client.query<{ matched: string; unmatched: string }>(
      `SELECT count(*) FILTER (WHERE m)::text AS matched, count(*) FILTER (WHERE NOT m)::text AS unmatched
       FROM (SELECT DISTINCT tg.npi, ${DIRECTORY_MATCH('tg.npi')} AS m FROM tic_provider_groups tg WHERE tg.file_id = $1 AND tg.npi IS NOT NULL) d`,
      [fileId],
    )
    summary.npis_matched = Number(npis[0]?.matched ?? 0)
    summary.npis_unmatched = Number(npis[0]?.unmatched ?? 0)
    const { rows: rateCounts } = await client.query<{ unmatched: string; tin_only: string }>(
      `SELECT count(*) FILTER (WHERE npi IS NOT NULL AND NOT provider_matched)::text AS unmatched, count(*) FILTER (WHERE npi IS NULL)::text AS tin_only
       FROM tic_rates WHERE file_id = $1`,
      [fileId],
    )
    summary.rates_unmatched = Number(rateCounts[0]?.unmatched ?? 0)
    summary.rates_tin_only = Number(rateCounts[0]?.tin_only ?? 0)
    // the providers of the file's groups are in the payer's network (Care Connect's in-network filter)
    const joined = await client.query(
      `UPDATE providers p SET aggregated_insurance_networks_v1 = p.aggregated_insurance_networks_v1 || jsonb_build_object($2::text, true), updated_at = now()
       WHERE p.npi IN (SELECT npi FROM tic_provider_groups WHERE file_id = $1 AND npi IS NOT NULL)
         AND (p.aggregated_insurance_networks_v1 -> $2::text) IS DISTINCT FROM 'true'::jsonb`,
      [fileId, payer],
    )
    summary.network_joined = joined.rowCount ?? 0
  } else {
    const inserted = await client.query(
      `INSERT INTO tic_allowed_amounts (file_id, npi, tin_type, tin, provider_matched, billing_code_type, billing_code_type_version, billing_code, name, setting,
         billing_class, service_codes, billing_code_modifiers, allowed_amount, billed_charge)
       SELECT $1, a.npi, a.tin_type, a.tin, ${DIRECTORY_MATCH('a.npi')}, i.bct, i.bctv, i.code, i.name, a.setting, a.bclass, coalesce(a.service_codes, '{}'),
         coalesce(a.modifiers, '{}'), a.amount, a.billed
       FROM ${stage} a JOIN ${stage} i ON i.rec = 'o' AND i.item_no = a.item_no WHERE a.rec = 'a'`,
      [fileId],
    )
    summary.allowed_amounts = inserted.rowCount ?? 0
    const { rows: npis } = await client.query<{ matched: string; unmatched: string }>(
      `SELECT count(*) FILTER (WHERE m)::text AS matched, count(*) FILTER (WHERE NOT m)::text AS unmatched
       FROM (SELECT DISTINCT npi, provider_matched AS m FROM tic_allowed_amounts WHERE file_id = $1 AND npi IS NOT NULL) d`,
      [fileId],
    )
    summary.npis_matched = Number(npis[0]?.matched ?? 0)
    summary.npis_unmatched = Number(npis[0]?.unmatched ?? 0)
    summary.rates_unmatched = 0
  }
  // a changed file from the same source replaces the earlier import (same transaction)
  await client.query('DELETE FROM tic_files WHERE source = $1 AND id <> $2', [summary.source, fileId])
  await client.query('ANALYZE tic_rates')
}

