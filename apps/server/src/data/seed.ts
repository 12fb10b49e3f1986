import { createReadStream, createWriteStream, mkdtempSync, rmSync, type WriteStream } from 'node:fs'
import { once } from 'node:events'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { SCALES, SyntheticDataset, type CopyValue, type Scale } from '@citrus/data-kit'
import type pg from 'pg'
import { bulkMethodOf, forceBulkMethod, openBulkWriter, quoteIdent, type BulkMethod, type BulkWriter } from './bulk.js'
import { finishLoad, startLoad, failLoad } from './loads.js'
import { Progress, formatCount, formatSeconds, type ProgressSink } from './progress.js'
import { loadReferenceData } from './reference.js'
import { loadPlanCostSharing } from './plan-designs.js'
import { analyzeAndRefresh } from './refresh.js'

export type ScaleName = Scale['name']
export const SCALE_NAMES = Object.keys(SCALES) as ScaleName[]
export const DEFAULT_SEED = 20_251_231

export interface SeedOptions {
  scale: ScaleName
  seed?: number
  sink?: ProgressSink
  /** COPY or batched inserts (DATA_LOAD_METHOD); unset = the engine's default */
  method?: BulkMethod
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
 * B-trees up to date row by row made the full scale's providers load at ~4,000 rows a second.
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
  await client.query('BEGIN')
  try {
    const deferred = await deferIndexes(client, table)
    const writer = await openBulkWriter(client, table, columns)
    for await (const row of rows) {
      await writer.write(row)
      step.tick()
    }
    const written = await writer.close()
    step.finish(written)
    await rebuildIndexes(client, progress, table, deferred)
    await client.query('COMMIT')
    return written
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined)
    throw error
  }
}

/** Rows spilled to a temporary file (one JSON array per line) while another table streams. */
class Spill {
  private readonly out: WriteStream
  rows = 0
  constructor(readonly file: string) {
    this.out = createWriteStream(file)
  }
  async push(values: readonly CopyValue[]) {
    this.rows++
    if (!this.out.write(`${JSON.stringify(values)}\n`)) await once(this.out, 'drain')
  }
  async close() {
    this.out.end()
    await once(this.out, 'close')
  }
  async *read(): AsyncGenerator<readonly CopyValue[]> {
    const lines = createInterface({ input: createReadStream(this.file), crlfDelay: Infinity })
    for await (const line of lines) if (line !== '') yield JSON.parse(line) as CopyValue[]
  }
}

const CLAIM_COLUMNS = ['id', 'patient_id', 'service_date', 'rendering_npi', 'facility_id', 'facility_npi', 'payer_type', 'insurer_name', 'place_of_service', 'list_amount', 'negotiated_amount', 'insurer_amount', 'patient_amount'] as const
const DIAGNOSIS_COLUMNS = ['claim_id', 'sequence', 'icd10_code'] as const
const LINE_COLUMNS = ['claim_id', 'line_number', 'procedure_code', 'units', 'list_amount', 'negotiated_amount', 'insurer_amount', 'patient_amount'] as const
const PATIENT_COLUMNS = ['id', 'age', 'birth_year', 'gender', 'zip_code', 'state', 'county_fips', 'payer_type', 'insurer_name'] as const
const PHARMACY_COLUMNS = ['id', 'patient_id', 'fill_date', 'prescriber_npi', 'facility_npi', 'ndc', 'drug_name', 'units', 'days_supply', 'payer_type', 'insurer_name', 'list_amount', 'negotiated_amount', 'insurer_amount', 'patient_amount'] as const

function pick<T extends object>(row: T, columns: readonly string[]): CopyValue[] {
  return columns.map((c) => (row as Record<string, unknown>)[c] as CopyValue)
}

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
  const unforce = forceBulkMethod(client, options.method)
  const counts: Record<string, number> = {}
  const started = Date.now()
  let loadId: number | null = null
  const spillDir = mkdtempSync(path.join(tmpdir(), 'citrus-seed-'))
  try {
    const method = await bulkMethodOf(client)
    // index builds after each bulk load sort in memory on PostgreSQL (reset when the connection goes back to the pool)
    if (method === 'copy') await client.query(`SET maintenance_work_mem = '512MB'`)
    loadId = await startLoad(client, { kind: 'seed', scale, seed })
    progress.line(`Loading the synthetic dataset: scale ${scale}, seed ${seed} (${method === 'copy' ? 'COPY FROM STDIN' : 'batched inserts, embedded database'})`)

    Object.assign(counts, await loadReferenceData(client, progress))

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

    const providerColumns = ['id', 'npi', 'first_name', 'middle_name', 'last_name', 'full_name', 'title', 'provider_kind', 'primary_taxonomy_code', 'cms_specialization', 'gender', 'age', 'years_in_practice', 'medical_school', 'phone_number', 'website', 'address', 'city', 'state', 'zip_code', 'county_fips', 'latitude', 'longitude', 'facility_id', 'accepting_new_patients', 'aggregated_insurance_networks_v1', 'last_verified_at', 'confidence', 'source']
    counts.providers = await loadTable(
      client,
      progress,
      'providers',
      providerColumns,
      (async function* () {
        for await (const p of ds.providers()) {
          yield [p.id, p.npi, p.first_name, p.middle_name || null, p.last_name, p.full_name, p.title || null, p.provider_kind, p.primary_taxonomy_code, p.cms_specialization, p.gender, p.age, p.years_in_practice, p.medical_school, p.phone_number, p.website, p.address_line_1, p.city, p.state, p.zip_code, p.county_fips, p.latitude, p.longitude, p.facility_id, p.accepting_new_patients, p.aggregated_insurance_networks_v1, p.last_verified_at, p.confidence, 'synthetic']
        }
      })(),
      ds.scale.providers,
    )

    const { rows: knownCounties } = await client.query<{ fips: string }>('SELECT fips FROM counties')
    const countySet = new Set(knownCounties.map((c) => c.fips))
    const territories = ds.salesTerritories()
    counts.sales_territories = await loadTable(client, progress, 'sales_territories', ['id', 'name', 'state'], territories.map((t) => [t.id, t.name, t.state]), territories.length)
    const territoryCounties = territories.flatMap((t) => t.county_fips.filter((f) => countySet.has(f)).map((f) => [t.id, f] as CopyValue[]))
    counts.sales_territory_counties = await loadTable(client, progress, 'sales_territory_counties', ['territory_id', 'county_fips'], territoryCounties, territoryCounties.length)

    // A snakebite case is one more emergency claim (and, when treated, a pharmacy line) of a sampled patient.
    const snakebites = Array.from({ length: ds.snakebiteCaseCount }, (_, i) => ds.snakebite(i))
    counts.patients = await loadTable(
      client,
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
    const diagnoses = new Spill(path.join(spillDir, 'diagnoses.ndjson'))
    const lines = new Spill(path.join(spillDir, 'lines.ndjson'))
    const fills = new Spill(path.join(spillDir, 'pharmacy.ndjson'))
    const claimStep = progress.step('claims', ds.scale.patients + snakebites.length)
    let claimRows = 0
    await client.query('BEGIN')
    let claimIndexes: string[] = []
    try {
      claimIndexes = await deferIndexes(client, 'claims')
      const writer: BulkWriter = await openBulkWriter(client, 'claims', CLAIM_COLUMNS)
      const writeBundle = async (bundle: ReturnType<SyntheticDataset['claimsOfPatient']>[number]) => {
        const c = bundle.claim
        await writer.write([c.id, c.patient_id, c.service_date, c.rendering_npi, c.facility_npi ? (facilityIdByNpi.get(c.facility_npi) ?? null) : null, c.facility_npi, c.payer_type, c.insurer_name, c.place_of_service, c.list_amount, c.negotiated_amount, c.insurer_amount, c.patient_amount])
        for (const d of bundle.diagnoses) await diagnoses.push(pick(d, DIAGNOSIS_COLUMNS))
        for (const l of bundle.procedures) await lines.push(pick(l, LINE_COLUMNS))
      }
      let done = 0
      for await (const p of ds.patients()) {
        const bundles = ds.claimsOfPatient(p)
        for (const b of bundles) await writeBundle(b)
        for (const f of ds.pharmacyOfPatient(p)) await fills.push(pick(f, PHARMACY_COLUMNS))
        claimStep.tick(bundles.length, ++done)
      }
      for (const s of snakebites) {
        await writeBundle(s.claim)
        if (s.pharmacy) await fills.push(pick(s.pharmacy, PHARMACY_COLUMNS))
        claimStep.tick(1, ++done)
      }
      claimRows = await writer.close()
      await rebuildIndexes(client, progress, 'claims', claimIndexes)
      await client.query('COMMIT')
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined)
      throw error
    } finally {
      await diagnoses.close()
      await lines.close()
      await fills.close()
    }
    claimStep.finish(claimRows)
    counts.claims = claimRows
    counts.claim_diagnoses = await loadTable(client, progress, 'claim_diagnoses', DIAGNOSIS_COLUMNS, diagnoses.read(), diagnoses.rows)
    counts.claim_procedures = await loadTable(client, progress, 'claim_procedures', LINE_COLUMNS, lines.read(), lines.rows)

    counts.pharmacy_claims = await loadTable(client, progress, 'pharmacy_claims', PHARMACY_COLUMNS, fills.read(), fills.rows)

    const caseColumns = ['id', 'patient_id', 'claim_id', 'facility_id', 'provider_npi', 'event_date', 'state', 'county_fips', 'zip_code', 'icd10_code', 'antivenom', 'units_used']
    counts.snakebite_cases = await loadTable(client, progress, 'snakebite_cases', caseColumns, snakebites.map((s) => pick(s.case, caseColumns)), snakebites.length)

    const purchases = ds.antivenomPurchases()
    const purchaseColumns = ['id', 'facility_id', 'product', 'ndc', 'purchase_date', 'units', 'amount']
    counts.antivenom_purchases = await loadTable(client, progress, 'antivenom_purchases', purchaseColumns, purchases.map((a) => pick(a, purchaseColumns)), purchases.length)

    const pricedFacilities = ds.facilities.filter((f) => f.facility_type !== 'urgent_care' && f.facility_type !== 'clinic').length
    const priceColumns = ['facility_id', 'procedure_code', 'code_type', 'description', 'setting', 'payer_name', 'plan_name', 'gross_charge', 'discounted_cash', 'negotiated_dollar', 'negotiated_percentage', 'methodology', 'median_amount', 'p10_amount', 'p90_amount', 'source']
    counts.facility_prices = await loadTable(
      client,
      progress,
      'facility_prices',
      priceColumns,
      (async function* () {
        for await (const r of ds.prices()) {
          yield [r.facility_id, r.procedure_code, /^\d/.test(r.procedure_code) ? 'CPT' : 'HCPCS', r.description, r.setting, r.payer_name ?? '', r.plan_name ?? '', r.gross_charge, r.discounted_cash, r.negotiated_dollar, r.negotiated_percentage, r.methodology, r.median_amount, r.p10_amount, r.p90_amount, 'synthetic']
        }
      })(),
      // about (priced procedures + 1) × (1 + payers) rows per priced facility; only for the percentage
      pricedFacilities * (ds.scale.priced_procedures_per_facility + 1) * 6,
    )

    await analyzeAndRefresh(client, progress)
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
    await client.query('RESET maintenance_work_mem').catch(() => undefined)
    client.release()
    rmSync(spillDir, { recursive: true, force: true })
  }
}
