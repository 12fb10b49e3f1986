import type { RegionType } from '@citrus/contracts'

/**
 * What an Atlas request asks the engines for (docs/decisions/0080): the patient filters and the search region,
 * and the SQL conditions that select the same patients and claims in the database while an index builds. The
 * services (services/atlas/) make these from the contract; the engines (patient-index.ts, claim-index.ts) give
 * the rows, and one function per figure counts them.
 */
export interface AtlasScope {
  type: RegionType
  /** COUNTRY: 'US'; STATE: the USPS code; ZIP_CODE_50KM: the ZIP codes (comma-joined) */
  value: string
  state: string | null
  zips: string[]
  name: string
}

export interface AtlasFilters {
  codes: string[]
  gender: 'M' | 'F' | null
  minAge: number | null
  maxAge: number | null
}

export interface PayerCounts {
  commercial: number
  medicare: number
  medicaid: number
  other: number
}

/** Claim-level metrics of a group: distinct patients, claims, rendering providers, facilities, systems. */
export interface GroupMetrics extends PayerCounts {
  patients: number
  claims: number
  providers: number
  facilities: number
  health_systems: number
  states: number
}

/** Every metric at zero (a region or entity without rows). */
export function emptyMetrics(): GroupMetrics {
  return {
    patients: 0,
    claims: 0,
    providers: 0,
    facilities: 0,
    health_systems: 0,
    states: 0,
    commercial: 0,
    medicare: 0,
    medicaid: 0,
    other: 0,
  }
}

/** SQL fragments and their parameters, numbered from `offset`. */
export class SqlParams {
  readonly values: unknown[] = []
  add(value: unknown): string {
    this.values.push(value)
    return `$${this.values.length}`
  }
}

/**
 * The WHERE conditions of the patient filters over a relation aliased `alias` that has the patient's
 * gender, age, state and zip_code (mv_patient_diagnoses, patients).
 */
export function patientConditions(alias: string, filters: AtlasFilters, scope: AtlasScope, params: SqlParams): string[] {
  const where: string[] = []
  if (filters.gender) where.push(`${alias}.gender = ${params.add(filters.gender)}`)
  if (filters.minAge !== null) where.push(`${alias}.age >= ${params.add(filters.minAge)}`)
  if (filters.maxAge !== null) where.push(`${alias}.age <= ${params.add(filters.maxAge)}`)
  if (scope.type === 'STATE') where.push(`${alias}.state = ${params.add(scope.state)}`)
  if (scope.type === 'ZIP_CODE_50KM') where.push(`${alias}.zip_code IN (${scopeZipsSql(scope, params)})`)
  return where
}

/** The ZIP areas of a ZIP scope: centres within 50 km of any of its ZIP codes' centres (GiST on zips.geog). */
export function scopeZipsSql(scope: AtlasScope, params: SqlParams): string {
  return `SELECT DISTINCT z.zip FROM zips c JOIN zips z ON ST_DWithin(z.geog, c.geog, ${params.add(50_000)}) WHERE c.zip = ANY(${params.add(scope.zips)}::text[])`
}

/**
 * The code condition: each prefix is a range of the text_pattern_ops index (`~>=~` / `~<~`), OR-ed, so
 * the planner takes one bitmap index scan per prefix. Codes hold only [A-Z0-9.], all below '~'.
 * Null when there are no codes (all conditions).
 */
export function codeConditionSql(column: string, filters: AtlasFilters, params: SqlParams): string | null {
  if (filters.codes.length === 0) return null
  const ranges = filters.codes.map((code) => `(${column} ~>=~ ${params.add(code)} AND ${column} ~<~ ${params.add(`${code}~`)})`)
  return `(${ranges.join(' OR ')})`
}
