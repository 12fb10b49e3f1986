import type pg from 'pg'
import { quoteIdent } from './bulk.js'
import type { Progress } from './progress.js'
import { formatSeconds } from './progress.js'

/**
 * Aggregates of the data platform (prisma/migrations/*_data_platform_spatial), in refresh order: materialised views,
 * or tables filled from a view of their definition ({@link FILLED_AGGREGATES}).
 */
export const MATERIALIZED_VIEWS = [
  'mv_patient_diagnoses',
  'mv_provider_code_volume',
  'mv_provider_prices',
  'mv_provider_points',
  'mv_price_code_points',
  'mv_provider_panel',
  'mv_facility_snakebite',
  'mv_facility_antivenom_purchases',
  'mv_prescriber_summaries',
  'mv_search_words',
  'mv_region_neighbours',
] as const

export const LOADED_TABLES = ['states', 'counties', 'zips', 'icd10_codes', 'procedure_codes', 'specialties', 'insurers', 'health_systems', 'facilities', 'providers', 'patients', 'claims', 'claim_diagnoses', 'claim_procedures', 'pharmacy_claims', 'facility_prices', 'snakebite_cases', 'antivenom_purchases', 'sales_territories', 'sales_territory_counties']

/** GIN indexes the look-ups scan (prisma/migrations/*_data_platform_spatial, *_typeahead_search, *_typeahead_words). */
export const LOOKUP_GIN_INDEXES = [
  'specialties_display_name_trgm',
  'icd10_codes_description_trgm',
  'icd10_codes_search_terms',
  'procedure_codes_description_trgm',
  'procedure_codes_search_terms',
  'shoppable_procedures_name_trgm',
  'shoppable_procedures_cpt_codes',
] as const

/** The look-ups' word vocabulary (mv_search_words), recomputed from the codes' descriptions. */
export async function refreshSearchWords(client: pg.ClientBase): Promise<void> {
  await client.query('REFRESH MATERIALIZED VIEW mv_search_words')
}

/** The cost page's peer search (mv_provider_points, docs/decisions/0056), recomputed from the providers. */
export async function refreshProviderPoints(client: pg.ClientBase): Promise<void> {
  await client.query('REFRESH MATERIALIZED VIEW mv_provider_points')
  await client.query('ANALYZE mv_provider_points')
}

/** Price Check's candidates (mv_price_code_points, docs/decisions/0065), recomputed from the price lists and facilities. */
export async function refreshPriceCodePoints(client: pg.ClientBase): Promise<void> {
  await client.query('REFRESH MATERIALIZED VIEW mv_price_code_points')
  await client.query('ANALYZE mv_price_code_points')
}

/**
 * The aggregates over every claim, kept as tables filled from `<name>_source` (docs/decisions/0079): on the embedded
 * database, which runs one statement at a time, a fill goes in turns of KEYS_PER_TURN keys (patients or providers),
 * each a statement of well under a second, so that a serving server's requests wait for a turn, not the whole
 * aggregate. `keys` lists every key the aggregate's rows can have (the claims' foreign keys point into it).
 */
const FILLED_AGGREGATES: Readonly<Record<string, { key: string; keys: string }>> = {
  mv_patient_diagnoses: { key: 'patient_id', keys: 'SELECT id AS k FROM patients' },
  mv_provider_code_volume: { key: 'npi', keys: 'SELECT npi AS k FROM providers' },
  mv_provider_prices: { key: 'npi', keys: 'SELECT npi AS k FROM providers' },
}
const KEYS_PER_TURN = 1_000

/** The views that define the filled aggregates (`<name>_source`): counting one runs the whole aggregate. */
export const FILLED_AGGREGATE_SOURCES = Object.keys(FILLED_AGGREGATES).map((name) => `${name}_source`)

/**
 * Recomputes one aggregate: REFRESH for a materialised view; a filled aggregate is built beside the one readers use
 * (`<name>_next`) and swapped in by renaming, in one short transaction. In turns, the indexes are built first and
 * kept up by each turn; at once, the table is created from the whole query and indexed after.
 */
export async function refreshAggregate(client: pg.ClientBase, name: string, inTurns: boolean): Promise<void> {
  const filled = FILLED_AGGREGATES[name]
  if (!filled) {
    await client.query(`REFRESH MATERIALIZED VIEW ${quoteIdent(name)}`)
    return
  }
  const next = `${name}_next`
  const source = quoteIdent(`${name}_source`)
  const { rows: indexes } = await client.query<{ indexname: string; indexdef: string }>(
    'SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1 ORDER BY indexname',
    [name],
  )
  const nextIndexes = indexes.map((index) => {
    const nextName = `${index.indexname}_next`
    const definition = /^CREATE (UNIQUE )?INDEX \S+ ON \S+ (.*)$/s.exec(index.indexdef)
    if (!definition) throw new Error(`unexpected definition of index ${index.indexname}: ${index.indexdef}`)
    return { name: index.indexname, nextName, sql: `CREATE ${definition[1] ?? ''}INDEX ${quoteIdent(nextName)} ON ${quoteIdent(next)} ${definition[2]}` }
  })
  await client.query(`DROP TABLE IF EXISTS ${quoteIdent(next)}`)
  if (inTurns) {
    await client.query(`CREATE TABLE ${quoteIdent(next)} (LIKE ${quoteIdent(name)})`)
    for (const index of nextIndexes) await client.query(index.sql)
    const { rows: starts } = await client.query<{ k: string }>(
      `SELECT k FROM (SELECT k, row_number() OVER (ORDER BY k) AS n FROM (${filled.keys}) d) x WHERE n % $1 = 1 ORDER BY k`,
      [KEYS_PER_TURN],
    )
    const key = quoteIdent(filled.key)
    // Turn i takes the keys from start i (none below the first: a claim's key need not be in `keys`) up to start i + 1
    // (none above the last), in key order, as the whole query writes them (mv_provider_prices keeps a provider's rows
    // together). No keys at all: one turn of everything.
    const bounds = starts.length === 0 ? [[null, null]] : starts.map((_, i) => [i === 0 ? null : starts[i]!.k, starts[i + 1]?.k ?? null])
    for (const [from, to] of bounds) {
      const where = [from === null ? null : `${key} >= $1`, to === null ? null : `${key} < $${from === null ? 1 : 2}`].filter((c) => c !== null)
      const params = [from, to].filter((v) => v !== null)
      await client.query(
        `INSERT INTO ${quoteIdent(next)} SELECT * FROM ${source}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY ${key}`,
        params,
      )
    }
  } else {
    await client.query(`CREATE TABLE ${quoteIdent(next)} AS SELECT * FROM ${source}`)
    for (const index of nextIndexes) await client.query(index.sql)
  }
  await client.query('BEGIN')
  try {
    await client.query(`DROP TABLE ${quoteIdent(name)}`)
    await client.query(`ALTER TABLE ${quoteIdent(next)} RENAME TO ${quoteIdent(name)}`)
    for (const index of nextIndexes) await client.query(`ALTER INDEX ${quoteIdent(index.nextName)} RENAME TO ${quoteIdent(index.name)}`)
    await client.query('COMMIT')
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined)
    throw error
  }
}

/**
 * Bulk loads insert into the GIN indexes' pending lists (fastupdate, fast to write); every look-up would
 * then scan those lists in full until a vacuum merges them, and autovacuum may be off (PGlite). Merge them
 * when a load finishes.
 */
export async function mergePendingIndexEntries(client: pg.ClientBase): Promise<void> {
  // one statement per index: on the embedded database each statement holds the single session while it runs
  for (const index of LOOKUP_GIN_INDEXES) await client.query('SELECT gin_clean_pending_list($1::regclass)', [index])
}

/**
 * Views by the time their refresh takes at the full scale, longest first (measured 2026-11-25: provider code
 * volume ~5 min, provider prices ~3.5 min, patient diagnoses ~1.5 min, the rest seconds), so that lanes
 * side by side finish together.
 */
const LONGEST_FIRST = ['mv_provider_code_volume', 'mv_provider_prices', 'mv_patient_diagnoses']

/**
 * Fresh planner statistics for the loaded tables, then every aggregate recomputed from the patient-level rows and
 * analysed in turn: a refreshed view keeps no statistics, and the app endpoints join them by the million.
 * With `lanes` (a pool and how many of its connections to use; PostgreSQL), the tables are analysed and the
 * views refreshed side by side: each statement runs on one core of the server, and no view reads another.
 */
export async function analyzeAndRefresh(
  client: pg.ClientBase,
  progress: Progress,
  views: readonly string[] = MATERIALIZED_VIEWS,
  lanes?: { pool: pg.Pool; count: number },
): Promise<void> {
  let start = Date.now()
  await mergePendingIndexEntries(client)
  if (!lanes || lanes.count < 2) {
    // a few columns per statement, the large aggregates in turns: on the embedded database each statement holds
    // the single session while it runs
    for (const table of LOADED_TABLES) await analyzeInParts(client, table)
    progress.line(`  analyze                    ${formatSeconds(Date.now() - start)}`)
    for (const view of views) {
      start = Date.now()
      await refreshAggregate(client, view, true)
      await analyzeInParts(client, view)
      progress.line(`  refresh ${view.padEnd(34)} ${formatSeconds(Date.now() - start)}`)
    }
    return
  }
  await sideBySide(client, lanes.pool, lanes.count, LOADED_TABLES, async (lane, table) => lane.query(`ANALYZE "${table}"`))
  progress.line(`  analyze                    ${formatSeconds(Date.now() - start)} (${lanes.count} connections)`)
  const ordered = [...views].sort((a, b) => rank(a) - rank(b))
  await sideBySide(client, lanes.pool, lanes.count, ordered, async (lane, view) => {
    const began = Date.now()
    await refreshAggregate(lane, view, false)
    await lane.query(`ANALYZE "${view}"`)
    progress.line(`  refresh ${view.padEnd(34)} ${formatSeconds(Date.now() - began)}`)
  })
  progress.line(`  refreshed ${views.length} views        ${formatSeconds(Date.now() - start)} (${lanes.count} connections)`)
}

/** Columns per ANALYZE statement of {@link analyzeInParts}. */
export const ANALYZE_COLUMNS_PER_STATEMENT = 4

/**
 * The ANALYZE statements that give `table` the statistics one `ANALYZE table` gives, a few columns each (issue 32:
 * sign-in waits behind each statement of the embedded database): each statement samples the same number of rows
 * (the sample's size follows the statistics target, the same for every column) and computes its columns'
 * statistics. ANALYZE computes the statistics of an index's expressions only without a column list: a table with
 * such an index gets, after its columns, one transaction that sets every column's target to 0 (ANALYZE skips the
 * column and keeps its statistics), analyses the table (the expressions alone) and sets the targets back. A table
 * with extended statistics, or a column with a target of its own, is analysed whole.
 */
export async function analyzeStatements(client: pg.ClientBase, table: string): Promise<string[]> {
  const { rows } = await client.query<{ columns: string[]; expressions: boolean; whole: boolean }>(
    `SELECT array(SELECT attname::text FROM pg_attribute WHERE attrelid = c.oid AND attnum > 0 AND NOT attisdropped ORDER BY attnum) AS columns,
            EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indexprs IS NOT NULL) AS expressions,
            EXISTS (SELECT 1 FROM pg_statistic_ext e WHERE e.stxrelid = c.oid)
              OR EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attstattarget >= 0) AS whole
       FROM pg_class c WHERE c.oid = $1::regclass`,
    [quoteIdent(table)],
  )
  const { columns, expressions, whole } = rows[0]!
  const name = quoteIdent(table)
  if (whole || columns.length <= ANALYZE_COLUMNS_PER_STATEMENT) return [`ANALYZE ${name}`]
  const statements: string[] = []
  for (let at = 0; at < columns.length; at += ANALYZE_COLUMNS_PER_STATEMENT)
    statements.push(`ANALYZE ${name} (${columns.slice(at, at + ANALYZE_COLUMNS_PER_STATEMENT).map(quoteIdent).join(', ')})`)
  if (expressions) {
    const targets = (target: number) => `ALTER TABLE ${name} ${columns.map((column) => `ALTER COLUMN ${quoteIdent(column)} SET STATISTICS ${target}`).join(', ')}`
    // one simple query: one transaction, the targets never left at 0
    statements.push(`${targets(0)}; ANALYZE ${name}; ${targets(-1)}`)
  }
  return statements
}

/** ANALYZE of `table` in the statements of {@link analyzeStatements}, one after another. */
export async function analyzeInParts(client: pg.ClientBase, table: string): Promise<void> {
  for (const statement of await analyzeStatements(client, table)) await client.query(statement)
}

const rank = (view: string) => {
  const index = LONGEST_FIRST.indexOf(view)
  return index < 0 ? LONGEST_FIRST.length : index
}

/** Runs `job` for every item on `count` connections (the given client and pooled ones), each taking the next item. */
async function sideBySide<T>(client: pg.ClientBase, pool: pg.Pool, count: number, items: readonly T[], job: (lane: pg.ClientBase, item: T) => Promise<unknown>) {
  const queue = [...items]
  const work = async (lane: pg.ClientBase) => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await job(lane, item)
  }
  const results = await Promise.allSettled(
    Array.from({ length: Math.min(count, items.length) }, async (_, index) => {
      if (index === 0) return work(client)
      const lane = await pool.connect()
      try {
        await work(lane)
      } finally {
        lane.release()
      }
    }),
  )
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')
  if (failed) throw failed.reason
}
