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
] as const

const LOADED_TABLES = ['states', 'counties', 'zips', 'icd10_codes', 'procedure_codes', 'specialties', 'insurers', 'health_systems', 'facilities', 'providers', 'patients', 'claims', 'claim_diagnoses', 'claim_procedures', 'pharmacy_claims', 'facility_prices', 'snakebite_cases', 'antivenom_purchases', 'sales_territories', 'sales_territory_counties']

/** Fresh planner statistics for the loaded tables, then every aggregate recomputed from the patient-level rows. */
export async function analyzeAndRefresh(client: pg.ClientBase, progress: Progress, views: readonly string[] = MATERIALIZED_VIEWS): Promise<void> {
  let start = Date.now()
  await client.query(`ANALYZE ${LOADED_TABLES.map((t) => `"${t}"`).join(', ')}`)
  progress.line(`  analyze                    ${formatSeconds(Date.now() - start)}`)
  for (const view of views) {
    start = Date.now()
    await client.query(`REFRESH MATERIALIZED VIEW "${view}"`)
    progress.line(`  refresh ${view.padEnd(34)} ${formatSeconds(Date.now() - start)}`)
  }
}
