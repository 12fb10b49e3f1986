import type pg from 'pg'
import type { Progress } from './progress.js'
import { formatSeconds } from './progress.js'

/** Materialised views of the data platform (prisma/migrations/*_data_platform_spatial), in refresh order. */
export const MATERIALIZED_VIEWS = [
  'mv_patient_diagnoses',
  'mv_provider_code_volume',
  'mv_provider_prices',
  'mv_provider_panel',
  'mv_facility_snakebite',
  'mv_facility_antivenom_purchases',
  'mv_prescriber_summaries',
  'mv_search_words',
  'mv_region_neighbours',
] as const

const LOADED_TABLES = ['states', 'counties', 'zips', 'icd10_codes', 'procedure_codes', 'specialties', 'insurers', 'health_systems', 'facilities', 'providers', 'patients', 'claims', 'claim_diagnoses', 'claim_procedures', 'pharmacy_claims', 'facility_prices', 'snakebite_cases', 'antivenom_purchases', 'sales_territories', 'sales_territory_counties']

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

/**
 * Bulk loads insert into the GIN indexes' pending lists (fastupdate, fast to write); every look-up would
 * then scan those lists in full until a vacuum merges them, and autovacuum may be off (PGlite). Merge them
 * when a load finishes.
 */
export async function mergePendingIndexEntries(client: pg.ClientBase): Promise<void> {
  await client.query('SELECT gin_clean_pending_list(i::regclass) FROM unnest($1::text[]) AS i', [LOOKUP_GIN_INDEXES])
}

/**
 * Fresh planner statistics for the loaded tables, then every aggregate recomputed from the patient-level rows and
 * analysed in turn: a refreshed view keeps no statistics, and the app endpoints join them by the million.
 */
export async function analyzeAndRefresh(client: pg.ClientBase, progress: Progress, views: readonly string[] = MATERIALIZED_VIEWS): Promise<void> {
  let start = Date.now()
  await mergePendingIndexEntries(client)
  await client.query(`ANALYZE ${LOADED_TABLES.map((t) => `"${t}"`).join(', ')}`)
  progress.line(`  analyze                    ${formatSeconds(Date.now() - start)}`)
  for (const view of views) {
    start = Date.now()
    await client.query(`REFRESH MATERIALIZED VIEW "${view}"`)
    await client.query(`ANALYZE "${view}"`)
    progress.line(`  refresh ${view.padEnd(34)} ${formatSeconds(Date.now() - start)}`)
  }
}
