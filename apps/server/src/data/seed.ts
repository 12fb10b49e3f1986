import { createReadStream, createWriteStream, mkdtempSync, rmSync, type WriteStream } from 'node:fs'
import { once } from 'node:events'
import { availableParallelism, tmpdir } from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { type Worker } from 'node:worker_threads'
import { SCALES, SyntheticDataset, copyTextRow, type CopyValue, type Scale } from '@citrus/data-kit'
import type pg from 'pg'
import type { Row } from '../db/kysely.js'
import { bulkMethodOf, copyFromFile, forceBulkMethod, limitInsertBatches, openBulkWriter, quoteIdent, type BulkMethod, type BulkWriter } from './bulk.js'
import { finishLoad, startLoad, failLoad } from './loads.js'
import { Progress, formatCount, formatSeconds, type ProgressSink } from './progress.js'
import { loadReferenceData } from './reference.js'
import { loadPlanCostSharing } from './plan-designs.js'
import { analyzeAndRefresh } from './refresh.js'
import { CLAIM_COLUMNS, DIAGNOSIS_COLUMNS, LINE_COLUMNS, PATIENT_COLUMNS, PHARMACY_COLUMNS, PRICE_COLUMNS, PROVIDER_COLUMNS, claimValues, pick, priceValues, providerValues, publishesPrices } from './seed-rows.js'
import type { SeedWorkerMessage, SeedWorkerTask } from './seed-worker.js'
import { startModuleWorker } from '../lib/worker.js'

export type ScaleName = Scale['name']
export const SCALE_NAMES = Object.keys(SCALES) as ScaleName[]
export const DEFAULT_SEED = 20_251_231

export interface SeedOptions {
  scale: ScaleName
  seed?: number
  sink?: ProgressSink
  /** COPY or batched inserts (DATA_LOAD_METHOD); unset = the engine's default */
  method?: BulkMethod
  /**
   * Generator threads per generated table with COPY (providers, claims, price lists); 0 = generate on the
   * loader's own thread. Unset: 2 on a machine with 2 or more cores for the demo and full scales, else 0.
   * Batched inserts (the embedded database) always generate on the loader's thread.
   */
  generatorThreads?: number
  /**
   * The load shares the embedded database with a running server (the first `npm start`): every batch is a
   * transaction of its own and the indexes stay, so that requests get the single session between batches
   * instead of waiting minutes for a table's transaction. A failed load leaves part of a table (`data seed`
   * replaces it).
   */
  shortTurns?: boolean
}

export interface SeedSummary {
  load_id: number
  scale: ScaleName
  seed: number
  method: 'copy' | 'insert'
  counts: Record<string, number>
  seconds: number
}

/**
 * Tables of the synthetic dataset, parents before children, with their foreign keys (child → parents).
 * A re-seed replaces their synthetic rows; `mixed` tables may also hold imported rows, which are kept.
 */
const SYNTHETIC_TABLES: readonly { table: string; parents: readonly string[]; mixed?: true }[] = [
  { table: 'health_systems', parents: [] },
  { table: 'facilities', parents: ['health_systems'], mixed: true },
  { table: 'providers', parents: ['facilities'], mixed: true },
  { table: 'sales_territories', parents: [] },
  { table: 'sales_territory_counties', parents: ['sales_territories'] },
  { table: 'patients', parents: [] },
  { table: 'claims', parents: ['patients', 'facilities'] },
  { table: 'claim_diagnoses', parents: ['claims'] },
  { table: 'claim_procedures', parents: ['claims'] },
  { table: 'pharmacy_claims', parents: ['patients'] },
  { table: 'facility_prices', parents: ['facilities'], mixed: true },
  { table: 'snakebite_cases', parents: ['patients', 'facilities'] },
  { table: 'antivenom_purchases', parents: ['facilities'] },
]

/**
 * Removes the synthetic rows: one TRUNCATE of every table that holds nothing else (fast at any scale), and
 * DELETE ... WHERE source = 'synthetic' where imported rows must survive (or where a table that keeps rows
 * still references it).
 */
export async function clearSyntheticData(client: pg.ClientBase): Promise<{ truncated: string[]; deleted: string[] }> {
  const keeps = new Set<string>()
  for (const spec of SYNTHETIC_TABLES) {
    if (!spec.mixed) continue
    const { rows } = await client.query(`SELECT 1 FROM ${quoteIdent(spec.table)} WHERE source <> 'synthetic' LIMIT 1`)
    if (rows.length > 0) keeps.add(spec.table)
  }
  const truncate = new Set(SYNTHETIC_TABLES.map((s) => s.table).filter((t) => !keeps.has(t)))
  // TRUNCATE fails when a table outside the set references one inside it: move such parents to DELETE.
  for (let changed = true; changed; ) {
    changed = false
    for (const spec of SYNTHETIC_TABLES) {
      if (truncate.has(spec.table)) continue
      for (const parent of spec.parents) if (truncate.delete(parent)) changed = true
    }
  }
  const deleted = SYNTHETIC_TABLES.map((s) => s.table).filter((t) => !truncate.has(t))
  await client.query('BEGIN')
  try {
    if (truncate.size > 0) await client.query(`TRUNCATE ${[...truncate].map(quoteIdent).join(', ')}`)
    for (const table of [...deleted].reverse()) {
      const mixed = SYNTHETIC_TABLES.find((s) => s.table === table)?.mixed
      await client.query(`DELETE FROM ${quoteIdent(table)}${mixed ? ` WHERE source = 'synthetic'` : ''}`)
    }
    await client.query('COMMIT')
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined)
    throw error
  }
  return { truncated: [...truncate], deleted }
}

/**
 * Inside a load's transaction, when the table is empty (truncated for the load): drops its secondary indexes
 * (not primary keys, unique indexes or indexes behind a constraint) and returns their definitions, so that
 * the rows go in without index maintenance and each index is built once afterwards (rebuildIndexes, before
 * COMMIT: DDL is transactional, so a failed load leaves every index in place). Keeping a GiST and seven
 * B-trees up to date row by row made the full scale's providers load at ~4,000 rows a second. Foreign keys
 * stay: dropping one locks its parent table exclusively, which would queue the lanes that load the parent's
 * other children side by side (docs/decisions/0055).
 */
async function deferIndexes(client: pg.ClientBase, table: string): Promise<string[]> {
  const { rows: probe } = await client.query(`SELECT 1 FROM ${quoteIdent(table)} LIMIT 1`)
  if (probe.length > 0) return []
  const { rows } = await client.query<{ schema: string; name: string; def: string }>(
    `SELECT n.nspname AS schema, c.relname AS name, pg_get_indexdef(i.indexrelid) AS def
     FROM pg_index i
     JOIN pg_class c ON c.oid = i.indexrelid
     JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE i.indrelid = $1::regclass AND NOT i.indisprimary AND NOT i.indisunique
       AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
     ORDER BY c.relname`,
    [quoteIdent(table)],
  )
  for (const r of rows) await client.query(`DROP INDEX ${quoteIdent(r.schema)}.${quoteIdent(r.name)}`)
  return rows.map((r) => r.def)
}

async function rebuildIndexes(client: pg.ClientBase, progress: Progress, table: string, definitions: readonly string[]) {
  if (definitions.length === 0) return
  const started = Date.now()
  for (const definition of definitions) await client.query(definition)
  progress.line(`  ${table}: ${definitions.length} ${definitions.length === 1 ? 'index' : 'indexes'} built in ${formatSeconds(Date.now() - started)}`)
}

/**
 * Whether a COPY load on `client` may skip the per-row foreign-key checks (session_replication_role = replica,
 * which only a superuser may set): each checked row costs the server an index probe and a row lock on the
 * parent (FOR KEY SHARE; two lanes locking the same claim make a MultiXact), for 70 million rows at the full
 * scale. verifyForeignKeys then checks every key in one query per constraint.
 */
async function mayDeferForeignKeys(client: pg.ClientBase): Promise<boolean> {
  if ((await bulkMethodOf(client)) !== 'copy') return false
  const { rows } = await client.query<{ superuser: boolean }>(`SELECT current_setting('is_superuser') = 'on' AS superuser`)
  return rows[0]?.superuser === true
}

/**
 * The table's foreign keys checked the way ALTER TABLE ... VALIDATE CONSTRAINT does, one anti-join per
 * constraint, after a load that ran without the per-row checks: the first row whose parent is missing fails
 * the load (the caller rolls it back). Run inside the load's transaction (work_mem raised for its hash joins).
 */
export async function verifyForeignKeys(client: pg.ClientBase, table: string): Promise<void> {
  const { rows } = await client.query<{ name: string; parent: string; columns: string[]; parent_columns: string[] }>(
    `SELECT c.conname AS name, c.confrelid::regclass::text AS parent,
            array(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(num, ord)
                  JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.num ORDER BY k.ord) AS columns,
            array(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY k(num, ord)
                  JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.num ORDER BY k.ord) AS parent_columns
     FROM pg_constraint c WHERE c.contype = 'f' AND c.conrelid = $1::regclass ORDER BY c.conname`,
    [quoteIdent(table)],
  )
  if (rows.length > 0) await client.query(`SET LOCAL work_mem = '64MB'`)
  for (const fk of rows) {
    const keys = fk.columns.map((c) => `x.${quoteIdent(c)}`)
    const match = fk.columns.map((c, i) => `p.${quoteIdent(fk.parent_columns[i]!)} = x.${quoteIdent(c)}`).join(' AND ')
    const { rows: orphans } = await client.query(
      `SELECT ${keys.join(', ')} FROM ${quoteIdent(table)} x WHERE ${keys.map((k) => `${k} IS NOT NULL`).join(' AND ')} AND NOT EXISTS (SELECT 1 FROM ${fk.parent} p WHERE ${match}) LIMIT 1`,
    )
    if (orphans.length > 0) throw new Error(`${table}: ${JSON.stringify(orphans[0])} has no row in ${fk.parent} (foreign key ${fk.name})`)
  }
}

/**
 * One table's load in its own transaction: its secondary indexes deferred (deferIndexes), `write` puts the rows
 * in and returns how many, the foreign keys are checked in bulk when the rows went in without the per-row
 * checks (mayDeferForeignKeys), the indexes are built, and COMMIT; any failure rolls all of it back.
 */
async function intoTable(client: pg.ClientBase, progress: Progress, table: string, write: () => Promise<number>): Promise<number> {
  if (shortTurnClients.has(client)) return write()
  await client.query('BEGIN')
  try {
    const deferred = await deferIndexes(client, table)
    const bulkForeignKeys = await mayDeferForeignKeys(client)
    if (bulkForeignKeys) await client.query(`SET LOCAL session_replication_role = replica`)
    const written = await write()
    if (bulkForeignKeys) {
      await client.query(`SET LOCAL session_replication_role = origin`)
      await verifyForeignKeys(client, table)
    }
    await rebuildIndexes(client, progress, table, deferred)
    await client.query('COMMIT')
    return written
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined)
    throw error
  }
}

/** Rows per transaction of the reference uploads with SeedOptions.shortTurns (states and counties carry their boundaries). */
const SHORT_REFERENCE_TURNS = { states: 10, counties: 100, zips: 2_000 }

/** Connections of loads with SeedOptions.shortTurns. */
const shortTurnClients = new WeakSet<pg.ClientBase>()

/** Loads rows into one table in its own transaction, with progress. */
async function loadTable(
  client: pg.ClientBase,
  progress: Progress,
  table: string,
  columns: readonly string[],
  rows: AsyncIterable<readonly CopyValue[]> | Iterable<readonly CopyValue[]>,
  total: number | null,
): Promise<number> {
  const step = progress.step(table, total)
  return intoTable(client, progress, table, async () => {
    const writer = await openBulkWriter(client, table, columns)
    for await (const row of rows) {
      await writer.write(row)
      step.tick()
    }
    const written = await writer.close()
    step.finish(written)
    return written
  })
}

/**
 * Rows spilled to a temporary file while another table streams. With COPY the file holds COPY text rows,
 * which go to the server byte for byte (copyFromFile: Node neither parses nor re-encodes them); with batched
 * inserts (the embedded database) one JSON array per line, read back row by row.
 */
class Spill {
  private readonly out: WriteStream
  private chunk = ''
  rows = 0
  constructor(
    readonly file: string,
    readonly format: 'copy' | 'json',
  ) {
    this.out = createWriteStream(file)
  }
  async push(values: readonly CopyValue[]) {
    this.rows++
    this.chunk += this.format === 'copy' ? copyTextRow(values) : `${JSON.stringify(values)}\n`
    if (this.chunk.length >= 1 << 16) await this.flush()
  }
  private async flush() {
    const text = this.chunk
    this.chunk = ''
    if (text !== '' && !this.out.write(text)) await once(this.out, 'drain')
  }
  private closing: Promise<void> | null = null
  /** Flushes and closes the file (idempotent). */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.flush()
      this.out.end()
      await once(this.out, 'close')
    })()
    return this.closing
  }
  async *read(): AsyncGenerator<readonly CopyValue[]> {
    const lines = createInterface({ input: createReadStream(this.file), crlfDelay: Infinity })
    for await (const line of lines) if (line !== '') yield JSON.parse(line) as CopyValue[]
  }
}

/** A file of COPY text rows written by a generator thread. */
interface SpillFile {
  file: string
  rows: number
}

/**
 * Loads a spilled table in its own transaction: with COPY, the loader's spill and the generator threads'
 * files straight into the server one after another; with batched inserts, the spill's rows.
 */
async function loadSpill(client: pg.ClientBase, progress: Progress, table: string, columns: readonly string[], spill: Spill, threadFiles: readonly SpillFile[] = []): Promise<number> {
  if (spill.format === 'json') return loadTable(client, progress, table, columns, spill.read(), spill.rows)
  await spill.close()
  const parts: SpillFile[] = [spill, ...threadFiles]
  const total = parts.reduce((sum, part) => sum + part.rows, 0)
  const step = progress.step(table, total)
  return intoTable(client, progress, table, async () => {
    let before = 0
    let reported = 0
    for (const part of parts) {
      await copyFromFile(client, table, columns, part.file, (sent, size) => {
        const rows = before + Math.floor((part.rows * sent) / Math.max(1, size))
        step.tick(rows - reported, rows)
        reported = rows
      })
      before += part.rows
    }
    step.finish(total)
    return total
  })
}

/**
 * Independent loads side by side, each on its own pooled connection: on PostgreSQL one table's COPY or index
 * build (the server's work) overlaps another's generation (Node's work), so both cores stay busy. Batched
 * inserts (the embedded database, a single engine) run the lanes one after another on the main connection.
 */
async function inLanes(
  pool: pg.Pool,
  main: pg.PoolClient,
  method: BulkMethod,
  lanes: readonly ((client: pg.ClientBase) => Promise<void>)[],
): Promise<void> {
  if (method !== 'copy') {
    for (const lane of lanes) await lane(main)
    return
  }
  const results = await Promise.allSettled(
    lanes.map(async (lane, index) => {
      if (index === 0) return lane(main)
      const client = await pool.connect()
      const unforce = forceBulkMethod(client, method)
      try {
        await client.query(`SET maintenance_work_mem = '${LOAD_MAINTENANCE_WORK_MEM}'`)
        await lane(client)
      } finally {
        unforce()
        await client.query('RESET maintenance_work_mem').catch(() => undefined)
        client.release()
      }
    }),
  )
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')
  if (failed) throw failed.reason
}

/** Starts a generator thread (seed-worker): the TypeScript source through tsx in development, the built file otherwise. */
function startSeedWorker(task: SeedWorkerTask): Worker {
  return startModuleWorker(import.meta.url, { source: './seed-worker.ts', built: './seed-worker.js' }, { workerData: task }, 'message')
}

interface ThreadChunk {
  text: string
  rows: number
  units: number
}

/**
 * The COPY text chunks of generator threads, in arrival order. Each chunk is acknowledged when the consumer
 * asks for the next one (it has been written by then), which lets its thread go on; `onDone` receives each
 * thread's spill counts. A thread's failure ends the iteration with its error; every thread is stopped at the end.
 */
async function* fromThreads(tasks: readonly SeedWorkerTask[], onDone?: (task: SeedWorkerTask, spilled: { diagnoses: number; lines: number; fills: number }) => void): AsyncGenerator<ThreadChunk> {
  const queue: { worker: Worker; task: SeedWorkerTask; message: SeedWorkerMessage }[] = []
  let notify: (() => void) | null = null
  const push = (entry: (typeof queue)[number]) => {
    queue.push(entry)
    notify?.()
    notify = null
  }
  const workers = tasks.map((task) => {
    const worker = startSeedWorker(task)
    let finished = false
    worker.on('message', (message: SeedWorkerMessage) => {
      if (message.type !== 'rows') finished = true
      push({ worker, task, message })
    })
    worker.on('error', (error) => push({ worker, task, message: { type: 'error', message: error.stack ?? error.message } }))
    worker.on('exit', (code) => {
      if (!finished) push({ worker, task, message: { type: 'error', message: `exited with code ${code} before it finished` } })
    })
    return worker
  })
  let running = workers.length
  try {
    while (running > 0) {
      const next = queue.shift()
      if (!next) {
        await new Promise<void>((resolve) => (notify = resolve))
        continue
      }
      const { worker, task, message } = next
      if (message.type === 'error') throw new Error(`generator thread (${task.kind} ${task.from}-${task.to}): ${message.message}`)
      if (message.type === 'done') {
        running--
        onDone?.(task, message.spilled)
        continue
      }
      yield message
      worker.postMessage({ type: 'ack' })
    }
  } finally {
    await Promise.all(workers.map((w) => w.terminate()))
  }
}

/** [from, to) ranges splitting `n` items into `parts` (no empty ones). */
function ranges(n: number, parts: number): [number, number][] {
  const count = Math.max(1, Math.min(parts, n))
  return Array.from({ length: count }, (_, i) => [Math.floor((n * i) / count), Math.floor((n * (i + 1)) / count)] as [number, number]).filter(([a, b]) => b > a)
}

/** Loads COPY text chunks (from generator threads) into one table in its own transaction, with progress. */
async function loadChunks(client: pg.ClientBase, progress: Progress, table: string, columns: readonly string[], chunks: AsyncIterable<ThreadChunk>, total: number): Promise<number> {
  const step = progress.step(table, total)
  return intoTable(client, progress, table, async () => {
    const writer = await openBulkWriter(client, table, columns, 'copy')
    let done = 0
    for await (const chunk of chunks) {
      await writer.writeText!(chunk.text, chunk.rows)
      step.tick(chunk.rows, (done += chunk.units))
    }
    const written = await writer.close()
    step.finish(written)
    return written
  })
}

/** Per load connection on PostgreSQL: each index build after a bulk load sorts in memory. */
const LOAD_MAINTENANCE_WORK_MEM = '512MB'

/**
 * Generates the synthetic national dataset for one scale and seed (data-kit) and loads it: reference data
 * upserted, synthetic rows replaced, each table in its own transaction, in dependency order; then ANALYZE and
 * REFRESH of the materialised views. Never touches the accounts tables. Recorded in data_loads.
 */
export async function seedDataset(pool: pg.Pool, options: SeedOptions): Promise<SeedSummary> {
  const seed = options.seed ?? DEFAULT_SEED
  const scale = options.scale
  const progress = new Progress(options.sink)
  const client = await pool.connect()
  // a connection lost mid-load (the server shutting down) fails the running query; unheard, it would end the process
  const ignoreLost = () => undefined
  client.on('error', ignoreLost)
  const unforce = forceBulkMethod(client, options.method)
  if (options.shortTurns) shortTurnClients.add(client)
  // about a quarter of a second per batch of the demo claims on a busy 2-core machine
  const unlimit = options.shortTurns ? limitInsertBatches(client, 1_000) : () => undefined
  const counts: Record<string, number> = {}
  const started = Date.now()
  let loadId: number | null = null
  const spillDir = mkdtempSync(path.join(tmpdir(), 'citrus-seed-'))
  try {
    const method = await bulkMethodOf(client)
    // index builds after each bulk load sort in memory on PostgreSQL (reset when the connection goes back to the pool)
    if (method === 'copy') await client.query(`SET maintenance_work_mem = '${LOAD_MAINTENANCE_WORK_MEM}'`)
    loadId = await startLoad(client, { kind: 'seed', scale, seed })
    const threads = method === 'copy' ? (options.generatorThreads ?? (scale !== 'ci' && availableParallelism() >= 2 ? 2 : 0)) : 0
    const how = method === 'copy' ? `COPY FROM STDIN, ${threads > 0 ? `${threads} generator threads per table` : 'generated on this thread'}` : 'batched inserts, embedded database'
    progress.line(`Loading the synthetic dataset: scale ${scale}, seed ${seed} (${how})`)

    // beside a serving embedded database: boundaries and points in turns of well under a second each
    Object.assign(counts, await loadReferenceData(client, progress, options.shortTurns ? SHORT_REFERENCE_TURNS : {}))

    // Price Check cost sharing: the plan designs the claims are generated with (docs/decisions/0048)
    counts.plan_cost_sharing = await loadPlanCostSharing(client)
    progress.line(`  plan_cost_sharing: ${counts.plan_cost_sharing} synthetic plan designs`)

    const genStart = Date.now()
    const ds = new SyntheticDataset({ seed, scale })
    progress.line(`  generator ready (${ds.zips.length} ZIPs, ${ds.facilities.length} facilities) in ${formatSeconds(Date.now() - genStart)}`)
    const cleared = await clearSyntheticData(client)
    progress.line(`  previous synthetic rows removed (${cleared.truncated.length} tables truncated${cleared.deleted.length ? `, ${cleared.deleted.length} pruned` : ''})`)

    counts.health_systems = await loadTable(client, progress, 'health_systems', ['id', 'healthsystem_id', 'name', 'control_type', 'state', 'city', 'website_domain', 'phone_number'], ds.healthSystems.map((h) => pick(h, ['id', 'healthsystem_id', 'name', 'control_type', 'state', 'city', 'website_domain', 'phone_number'])), ds.healthSystems.length)

    const facilityColumns = ['id', 'npi', 'name', 'facility_type', 'hco_compile_level_1', 'taxonomy_code', 'health_system_id', 'address_line_1', 'city', 'state', 'zip_code', 'county_fips', 'latitude', 'longitude', 'phone_number', 'bed_count', 'emergency_services']
    counts.facilities = await loadTable(client, progress, 'facilities', [...facilityColumns, 'source'], ds.facilities.map((f) => [...pick(f, facilityColumns), 'synthetic']), ds.facilities.length)

    // Generator threads (docs/decisions/0055): with COPY, providers, claims and price lists are generated on
    // `threads` threads per table, the loader only moves their COPY text to the server.
    const task = (kind: SeedWorkerTask['kind'], [from, to]: [number, number], spill?: SeedWorkerTask['spill']): SeedWorkerTask => ({ seed, scale, kind, from, to, spill })

    const loadProviders = async (lane: pg.ClientBase) => {
      counts.providers =
        threads > 0
          ? await loadChunks(lane, progress, 'providers', PROVIDER_COLUMNS, fromThreads(ranges(ds.scale.providers, threads).map((r) => task('providers', r))), ds.scale.providers)
          : await loadTable(
              lane,
              progress,
              'providers',
              PROVIDER_COLUMNS,
              (async function* () {
                for await (const p of ds.providers()) yield providerValues(p)
              })(),
              ds.scale.providers,
            )
    }

    // A snakebite case is one more emergency claim (and, when treated, a pharmacy line) of a sampled patient.
    const snakebites = Array.from({ length: ds.snakebiteCaseCount }, (_, i) => ds.snakebite(i))
    const spillFormat = method === 'copy' ? 'copy' : 'json'
    const diagnoses = new Spill(path.join(spillDir, 'diagnoses.spill'), spillFormat)
    const lines = new Spill(path.join(spillDir, 'lines.spill'), spillFormat)
    const fills = new Spill(path.join(spillDir, 'pharmacy.spill'), spillFormat)
    const threadSpills = { diagnoses: [] as SpillFile[], lines: [] as SpillFile[], fills: [] as SpillFile[] }

    const loadPatientsAndClaims = async (lane: pg.ClientBase) => {
      const { rows: knownCounties } = await lane.query<Pick<Row<'counties'>, 'fips'>>('SELECT fips FROM counties')
      const countySet = new Set(knownCounties.map((c) => c.fips))
      const territories = ds.salesTerritories()
      counts.sales_territories = await loadTable(lane, progress, 'sales_territories', ['id', 'name', 'state'], territories.map((t) => [t.id, t.name, t.state]), territories.length)
      const territoryCounties = territories.flatMap((t) => t.county_fips.filter((f) => countySet.has(f)).map((f) => [t.id, f] as CopyValue[]))
      counts.sales_territory_counties = await loadTable(lane, progress, 'sales_territory_counties', ['territory_id', 'county_fips'], territoryCounties, territoryCounties.length)

      counts.patients = await loadTable(
        lane,
        progress,
        'patients',
        PATIENT_COLUMNS,
        (async function* () {
          for await (const p of ds.patients()) yield pick(p, PATIENT_COLUMNS)
        })(),
        ds.scale.patients,
      )

      // Claims stream straight in; their diagnoses, lines and the patients' pharmacy fills are spilled to disk
      // and loaded next, so the generator runs once and memory stays flat at any scale.
      const facilityIdByNpi = new Map(ds.facilities.map((f) => [f.npi, f.id]))
      const claimStep = progress.step('claims', ds.scale.patients + snakebites.length)
      try {
        counts.claims = await intoTable(lane, progress, 'claims', async () => {
          const writer: BulkWriter = await openBulkWriter(lane, 'claims', CLAIM_COLUMNS)
          const writeBundle = async (bundle: ReturnType<SyntheticDataset['claimsOfPatient']>[number]) => {
            await writer.write(claimValues(bundle, facilityIdByNpi))
            for (const d of bundle.diagnoses) await diagnoses.push(pick(d, DIAGNOSIS_COLUMNS))
            for (const l of bundle.procedures) await lines.push(pick(l, LINE_COLUMNS))
          }
          let done = 0
          if (threads > 0) {
            const tasks = ranges(ds.scale.patients, threads).map((r, i) =>
              task('claims', r, { diagnoses: path.join(spillDir, `diagnoses-${i}.spill`), lines: path.join(spillDir, `lines-${i}.spill`), fills: path.join(spillDir, `pharmacy-${i}.spill`) }),
            )
            const chunks = fromThreads(tasks, (t, spilled) => {
              threadSpills.diagnoses.push({ file: t.spill!.diagnoses, rows: spilled.diagnoses })
              threadSpills.lines.push({ file: t.spill!.lines, rows: spilled.lines })
              threadSpills.fills.push({ file: t.spill!.fills, rows: spilled.fills })
            })
            for await (const chunk of chunks) {
              await writer.writeText!(chunk.text, chunk.rows)
              claimStep.tick(chunk.rows, (done += chunk.units))
            }
          } else {
            for await (const p of ds.patients()) {
              const bundles = ds.claimsOfPatient(p)
              for (const b of bundles) await writeBundle(b)
              for (const f of ds.pharmacyOfPatient(p)) await fills.push(pick(f, PHARMACY_COLUMNS))
              claimStep.tick(bundles.length, ++done)
            }
          }
          for (const s of snakebites) {
            await writeBundle(s.claim)
            if (s.pharmacy) await fills.push(pick(s.pharmacy, PHARMACY_COLUMNS))
            claimStep.tick(1, ++done)
          }
          const written = await writer.close()
          claimStep.finish(written)
          return written
        })
      } finally {
        await diagnoses.close()
        await lines.close()
        await fills.close()
      }
    }

    const loadPrices = async (lane: pg.ClientBase) => {
      const pricedFacilities = ds.facilities.filter((f) => publishesPrices(f.facility_type)).length
      // about (priced procedures + 1) × (1 + payers) rows per priced facility; only for the percentage
      const expected = pricedFacilities * (ds.scale.priced_procedures_per_facility + 1) * 6
      counts.facility_prices =
        threads > 0
          ? // the threads count facilities done (the percentage's unit)
            await loadChunks(lane, progress, 'facility_prices', PRICE_COLUMNS, fromThreads(ranges(ds.facilities.length, threads).map((r) => task('prices', r))), ds.facilities.length)
          : await loadTable(
              lane,
              progress,
              'facility_prices',
              PRICE_COLUMNS,
              (async function* () {
                for await (const r of ds.prices()) yield priceValues(r)
              })(),
              expected,
            )
    }

    const loadSnakebitesAndPurchases = async (lane: pg.ClientBase) => {
      const caseColumns = ['id', 'patient_id', 'claim_id', 'facility_id', 'provider_npi', 'event_date', 'state', 'county_fips', 'zip_code', 'icd10_code', 'antivenom', 'units_used']
      counts.snakebite_cases = await loadTable(lane, progress, 'snakebite_cases', caseColumns, snakebites.map((s) => pick(s.case, caseColumns)), snakebites.length)
      const purchases = ds.antivenomPurchases()
      const purchaseColumns = ['id', 'facility_id', 'product', 'ndc', 'purchase_date', 'units', 'amount']
      counts.antivenom_purchases = await loadTable(lane, progress, 'antivenom_purchases', purchaseColumns, purchases.map((a) => pick(a, purchaseColumns)), purchases.length)
    }

    try {
      // Node generates while the server copies and builds indexes: providers beside patients and claims,
      // then the price lists beside the spilled tables (each its own transaction; parents committed first).
      await inLanes(pool, client, method, [loadPatientsAndClaims, loadProviders])
      await inLanes(pool, client, method, [
        loadPrices,
        async (lane) => void (counts.claim_diagnoses = await loadSpill(lane, progress, 'claim_diagnoses', DIAGNOSIS_COLUMNS, diagnoses, threadSpills.diagnoses)),
        async (lane) => void (counts.claim_procedures = await loadSpill(lane, progress, 'claim_procedures', LINE_COLUMNS, lines, threadSpills.lines)),
        async (lane) => {
          counts.pharmacy_claims = await loadSpill(lane, progress, 'pharmacy_claims', PHARMACY_COLUMNS, fills, threadSpills.fills)
          await loadSnakebitesAndPurchases(lane)
        },
      ])
    } finally {
      await Promise.all([diagnoses.close(), lines.close(), fills.close()]).catch(() => undefined)
    }

    // the views side by side on PostgreSQL (each REFRESH runs on one server core)
    await analyzeAndRefresh(client, progress, undefined, method === 'copy' ? { pool, count: 2 } : undefined)
    const seconds = (Date.now() - started) / 1000
    await finishLoad(client, loadId, counts)
    const total = Object.values(counts).reduce((a, b) => a + b, 0)
    progress.line(`Loaded ${formatCount(total)} rows (scale ${scale}, seed ${seed}) in ${formatSeconds(Date.now() - started)}.`)
    return { load_id: loadId, scale, seed, method, counts, seconds }
  } catch (error) {
    if (loadId !== null) await failLoad(client, loadId, counts, error).catch(() => undefined)
    throw error
  } finally {
    unforce()
    unlimit()
    client.off('error', ignoreLost)
    shortTurnClients.delete(client)
    await client.query('RESET maintenance_work_mem').catch(() => undefined)
    client.release()
    rmSync(spillDir, { recursive: true, force: true })
  }
}
