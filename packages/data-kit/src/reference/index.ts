import { ANTIVENOM_PRODUCTS, type AntivenomProduct } from './data/antivenom.ts'
import { COUNTY_AREA_CODES } from './data/area-codes.ts'
import { COUNTY_POPULATION, COUNTY_POPULATION_YEAR } from './data/county-population.ts'
import { CONDITION_DRUGS, GENERIC_DISPENSING_SHARE, MAINTENANCE_DRUGS, THERAPY_OF, type MaintenanceDrug } from './data/drugs.ts'
import { ICD10_CM_STARTER } from './data/icd10cm-starter.ts'
import { INSURERS, type InsurerSeed } from './data/insurers.ts'
import { PROCEDURE_CODES, SHOPPABLE_PROCEDURES, type ProcedureCategory } from './data/procedures.ts'
import { SPECIALTY_TAXONOMIES } from './data/specialties.ts'
import type { ProviderKind } from './provider-kinds.ts'

export {
  ANTIVENOM_PRODUCTS,
  CONDITION_DRUGS,
  COUNTY_AREA_CODES,
  COUNTY_POPULATION,
  COUNTY_POPULATION_YEAR,
  GENERIC_DISPENSING_SHARE,
  INSURERS,
  MAINTENANCE_DRUGS,
  SHOPPABLE_PROCEDURES,
  THERAPY_OF,
}
export type { AntivenomProduct, InsurerSeed, MaintenanceDrug, ProcedureCategory }
export * from './geo.ts'
export * from './provider-kinds.ts'
export * from './states.ts'

/** Area codes in use in each state (the county table's codes, by the county's state FIPS). */
export function stateAreaCodes(): Map<string, Set<string>> {
  const byFips = new Map<string, Set<string>>()
  for (const [county, code] of Object.entries(COUNTY_AREA_CODES)) {
    const set = byFips.get(county.slice(0, 2)) ?? new Set<string>()
    set.add(code)
    byFips.set(county.slice(0, 2), set)
  }
  return byFips
}

/** Row shape of icd10_codes (the typeahead's code option: code, description, long_description, parent_code). */
export interface Icd10Code {
  code: string
  description: string
  long_description: string
  parent_code: string | null
  billable: boolean
}

export function icd10StarterCodes(): Icd10Code[] {
  return ICD10_CM_STARTER.map(([code, billable, short, long]) => {
    const compact = code.replace('.', '')
    const parent = compact.length > 3 ? compact.slice(0, -1) : null
    return {
      code,
      description: short,
      long_description: long || short,
      parent_code: parent && parent.length > 3 ? `${parent.slice(0, 3)}.${parent.slice(3)}` : parent,
      billable,
    }
  })
}

export interface ProcedureCode {
  code: string
  code_system: 'CPT' | 'HCPCS'
  /** Plain-language name written for this project (never the AMA descriptor). */
  description: string
  category: ProcedureCategory
  base_price: number
}

export function procedureCodes(): ProcedureCode[] {
  return PROCEDURE_CODES.map(([code, code_system, description, category, base_price]) => ({
    code,
    code_system,
    description,
    category,
    base_price,
  }))
}

export interface Specialty {
  code: string
  grouping: string
  classification: string
  specialization: string | null
  display_name: string
  provider_kind: ProviderKind
}

export function specialties(): Specialty[] {
  return SPECIALTY_TAXONOMIES.map(([code, grouping, classification, specialization, display_name, provider_kind]) => ({
    code,
    grouping,
    classification,
    specialization: specialization || null,
    display_name,
    provider_kind,
  }))
}

/** The /insurers/ list: insurer names, sorted. */
export function insurerNames(): string[] {
  return INSURERS.map((i) => i.name).sort((a, b) => a.localeCompare(b))
}
