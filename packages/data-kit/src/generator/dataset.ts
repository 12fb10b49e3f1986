import { makeNpi } from '../npi.ts'
import {
  ANTIVENOM_PRODUCTS,
  CONDITION_DRUGS,
  COUNTY_AREA_CODES,
  INSURERS,
  MAINTENANCE_DRUGS,
  procedureCodes,
  specialties,
  THERAPY_OF,
  type ProcedureCode,
  type Specialty,
} from '../reference/index.ts'
import { COUNTY_POPULATION } from '../reference/data/county-population.ts'
import { loadCountyGeometries, loadZipRows, multiPolygonContains, type CountyGeoRow, type ZipRow } from '../reference/geo.ts'
import type { ProviderKind } from '../reference/provider-kinds.ts'
import { STATE_BY_ABBR, STATES } from '../reference/states.ts'
import {
  ageBand,
  ANTIVENOM_TREATED_SHARE,
  CONDITIONS,
  CREDENTIALS,
  CROFAB_SHARE,
  DO_SHARE,
  FACILITY_LEVEL_1,
  FACILITY_MIX_FULL,
  FACILITY_TAXONOMY,
  FEMALE_SHARE,
  PAYER_MIX,
  PRIMARY_CARE,
  PROVIDER_MIX_FULL,
  SNAKEBITE_CODES,
  SNAKEBITE_STATE_SHARE,
  SNAKEBITES_PER_YEAR,
  SYSTEM_AFFILIATED_SHARE,
  TAXONOMY_WEIGHTS,
  type FacilityType,
  type PayerType,
} from './calibration.ts'
import {
  FACILITY_SUFFIXES,
  FEMALE_NAMES,
  LAST_NAMES,
  MALE_NAMES,
  MEDICAL_SCHOOLS,
  MIDDLE_INITIALS,
  OSTEOPATHIC_SCHOOL_FROM,
  REGIONAL_NAME_WORDS,
  SYSTEM_NAME_SUFFIXES,
  SYSTEM_NAME_WORDS,
} from './names.ts'
import {
  dispersed,
  isDrugCode,
  medicareFee,
  patientShares,
  priceLine as priceOf,
  type CostSharingState,
  type EncounterKind,
  type ServiceSetting,
} from './pricing.ts'
import { hash32, rngFor, WeightedTable, type Rng } from './prng.ts'
import {
  AGE_PYRAMID,
  BIRTHS_PER_1000_WOMEN,
  CHARGE_MARKUP,
  COMMERCIAL_MULTIPLE,
  CESAREAN_SHARE,
  CKD_DIAGNOSIS_BOOST_DIABETES,
  COMMERCIAL_PLANS,
  COMMERCIAL_SHARES,
  CONDITION_MIN_AGE,
  CONDITION_ORDER,
  CONDITION_UTILISATION,
  DIAGNOSED_SHARE,
  ED_LEVELS,
  ED_PAYER_RELATIVE,
  ED_RELATIVE,
  ED_VISITS_PER_100,
  EM_ESTABLISHED,
  EM_NEW,
  FACILITY_PRICE_SIGMA,
  HIP_REPLACEMENTS_PER_100K,
  INPATIENT_RELATIVE,
  INPATIENT_STAYS_PER_100,
  JOINT_SETTING,
  KNEE_REPLACEMENTS_PER_100K,
  MEDICAID_MANAGED_CARE_SHARE,
  MEDICAID_MCO_SHARES,
  MEDICAID_PLAN,
  MEDICARE_ADVANTAGE_PLAN,
  MEDICARE_ADVANTAGE_SHARE,
  MEDICARE_ADVANTAGE_SHARES,
  MEDICARE_FFS_PLAN,
  OLDEST_AGE_DECAY,
  PHYSICIANS_PER_100K,
  PREVENTIVE_CODES,
  RISK_FACTORS,
  SATURDAY_OFFICE_SHARE,
  SNAKE_CODES_BY_REGION,
  SNAKE_REGION,
  TRICARE_PLAN,
  TRICARE_SHARE_OF_OTHER,
  UNINSURED_PLAN,
  type PlanDesign,
} from './realism.ts'
import { REFERENCE_DATE, SCALES, type Scale } from './scales.ts'

export type ClinicianKind = Exclude<ProviderKind, 'facility'>

export interface HealthSystemRow {
  id: number
  healthsystem_id: string
  name: string
  control_type: string
  state: string
  city: string
  website_domain: string
  phone_number: string
}

export interface FacilityRow {
  id: number
  npi: string
  name: string
  facility_type: FacilityType
  hco_compile_level_1: string
  taxonomy_code: string
  health_system_id: number | null
  address_line_1: string
  city: string
  state: string
  zip_code: string
  county_fips: string | null
  latitude: number
  longitude: number
  phone_number: string
  bed_count: number | null
  emergency_services: boolean
}

export interface ProviderRow {
  id: number
  npi: string
  first_name: string
  middle_name: string
  last_name: string
  full_name: string
  title: string
  gender: 'M' | 'F'
  provider_kind: ClinicianKind
  primary_taxonomy_code: string
  cms_specialization: string
  age: number
  years_in_practice: number
  medical_school: string | null
  phone_number: string
  address_line_1: string
  city: string
  state: string
  zip_code: string
  county_fips: string | null
  latitude: number
  longitude: number
  facility_id: number | null
  hco_npi: string | null
  hco_name: string | null
  website: string | null
  accepting_new_patients: boolean
  aggregated_insurance_networks_v1: Record<string, boolean>
  last_verified_at: string
  confidence: number
}

/** A provider's row as the loader writes it: the insurer networks as their JSON text. */
export type ProviderCopyRow = Omit<ProviderRow, 'aggregated_insurance_networks_v1'> & { aggregated_insurance_networks_v1: string }

export interface PatientRow {
  id: number
  age: number
  birth_year: number
  gender: 'M' | 'F'
  zip_code: string
  state: string
  county_fips: string | null
  payer_type: PayerType
  insurer_name: string | null
  /** Diagnosed (claims-coded) conditions, CONDITIONS keys. */
  conditions: string[]
  /** Day of birth (not loaded: the patients table keeps the birth year); no claim precedes it. */
  birth_date: string
  /** The ICD-10-CM code each diagnosed condition is coded with (one CKD stage, one diabetes code, ...). */
  condition_codes: Record<string, string>
  /** Cost-sharing design of the patient's coverage (not loaded). */
  plan: PlanDesign
}

export interface ClaimRow {
  id: number
  patient_id: number
  service_date: string
  rendering_npi: string
  facility_npi: string | null
  payer_type: PayerType
  insurer_name: string | null
  place_of_service: 'office' | 'outpatient' | 'inpatient' | 'emergency'
  list_amount: number
  negotiated_amount: number
  insurer_amount: number
  patient_amount: number
}
export interface ClaimDiagnosisRow {
  claim_id: number
  /** the claim's patient: every claim table is keyed by patient under Citus (docs/scaling.md) */
  patient_id: number
  sequence: number
  icd10_code: string
}
export interface ClaimProcedureRow {
  claim_id: number
  /** the claim's patient, as on ClaimDiagnosisRow */
  patient_id: number
  line_number: number
  procedure_code: string
  units: number
  list_amount: number
  negotiated_amount: number
  insurer_amount: number
  patient_amount: number
}
export interface ClaimBundle {
  claim: ClaimRow
  diagnoses: ClaimDiagnosisRow[]
  procedures: ClaimProcedureRow[]
}

export interface PharmacyClaimRow {
  id: number
  patient_id: number
  fill_date: string
  prescriber_npi: string
  facility_npi: string | null
  ndc: string
  drug_name: string
  units: number
  /** days the fill lasts; null for a drug given in hospital (antivenom) */
  days_supply: number | null
  payer_type: PayerType
  insurer_name: string | null
  list_amount: number
  negotiated_amount: number
  insurer_amount: number
  patient_amount: number
}

export interface SnakebiteCaseRow {
  id: number
  patient_id: number
  claim_id: number
  facility_id: number
  provider_npi: string
  event_date: string
  state: string
  county_fips: string | null
  zip_code: string
  icd10_code: string
  antivenom: 'crofab' | 'anavip' | null
  units_used: number
}

export interface AntivenomPurchaseRow {
  id: number
  facility_id: number
  product: 'crofab' | 'anavip'
  ndc: string
  purchase_date: string
  units: number
  amount: number
}

export interface FacilityPriceRow {
  facility_id: number
  procedure_code: string
  description: string
  setting: 'inpatient' | 'outpatient' | 'both'
  payer_name: string | null
  plan_name: string | null
  gross_charge: number
  discounted_cash: number
  negotiated_dollar: number | null
  /** Percent of gross charges, for 'percent of total billed charges' rows (negotiated_dollar is then null). */
  negotiated_percentage: number | null
  methodology: string
  median_amount: number | null
  p10_amount: number | null
  p90_amount: number | null
}

export interface SalesTerritoryRow {
  id: number
  name: string
  state: string
  county_fips: string[]
}

export interface DatasetOptions {
  seed: number
  scale: Scale | Scale['name']
  /** County populations to weight ZIPs; defaults to the Census Vintage 2023 table (reference/data/county-population.ts). */
  countyPopulation?: ReadonlyMap<string, number>
}

interface ProviderCore {
  kind: ClinicianKind
  taxonomy: string
  zipIndex: number
}

const round2 = (n: number) => Math.round(n * 100) / 100
/** Pharmacy fills cover the last year up to the reference date. */
export const PHARMACY_WINDOW_DAYS = 365
/** Share of refills picked up when due. */
const FILL_ADHERENCE = 0.85
const DRUG_BY_KEY = new Map(MAINTENANCE_DRUGS.map((d) => [d.key, d]))
const drugName = (drug: { brand_name: string; generic_name: string; strength?: string; generic?: boolean }) =>
  drug.generic ? `${drug.generic_name} ${drug.strength ?? ''} (generic)`.replace('  ', ' ') : `${drug.brand_name} (${drug.generic_name})`
const DAY = 86_400_000
const PRICE_LEVEL_STREAMS = { facility: 'price-level-facility', practice: 'price-level-practice' } as const
const MD_SCHOOLS = MEDICAL_SCHOOLS.slice(0, OSTEOPATHIC_SCHOOL_FROM)
const DO_SCHOOLS = MEDICAL_SCHOOLS.slice(OSTEOPATHIC_SCHOOL_FROM)

/** The carriers whose network a clinician of a state may be in, in INSURERS order, with the chance of being in it. */
interface NetworkEntry {
  name: string
  chance: number
  /** this carrier's `"name":` in the networks' JSON text, after `{` for the first one, else after `,` */
  jsonKey: string
}
const networkEntriesByState = new Map<string, readonly NetworkEntry[]>()
function networkEntries(state: string): readonly NetworkEntry[] {
  let entries = networkEntriesByState.get(state)
  if (!entries) {
    const list: NetworkEntry[] = []
    for (const insurer of INSURERS) {
      if (insurer.states && !insurer.states.includes(state)) continue
      const chance = insurer.kind === 'medicare' ? 0.9 : insurer.kind === 'medicaid' ? 0.6 : insurer.kind === 'military' ? 0.5 : 0.8
      list.push({ name: insurer.name, chance, jsonKey: `${list.length === 0 ? '{' : ','}${JSON.stringify(insurer.name)}:` })
    }
    networkEntriesByState.set(state, (entries = list))
  }
  return entries
}
/** Who builds a clinician's insurer networks from the drawn memberships: the object, or its JSON text. */
type NetworksOf<N> = (entries: readonly NetworkEntry[], inNetwork: Uint8Array) => N
const networksObject: NetworksOf<Record<string, boolean>> = (entries, inNetwork) => {
  const networks: Record<string, boolean> = {}
  for (let k = 0; k < entries.length; k++) networks[(entries[k] as NetworkEntry).name] = inNetwork[k] === 1
  return networks
}
/** Equal to JSON.stringify(networksObject(...)), without building the object. */
const networksJson: NetworksOf<string> = (entries, inNetwork) => {
  if (entries.length === 0) return '{}'
  let text = ''
  for (let k = 0; k < entries.length; k++) text += (entries[k] as NetworkEntry).jsonKey + (inNetwork[k] === 1 ? 'true' : 'false')
  return text + '}'
}
const inNetworkScratch = new Uint8Array(INSURERS.length)
const REF = Date.parse(`${REFERENCE_DATE}T00:00:00Z`)
const isoDays = new Map<number, string>()
/** YYYY-MM-DD of a UTC time (memoised: the generator formats the same few thousand days millions of times). */
const isoDay = (ms: number) => {
  let day = isoDays.get(ms)
  if (day === undefined) {
    day = new Date(ms).toISOString().slice(0, 10)
    if (isoDays.size >= 100_000) isoDays.clear()
    isoDays.set(ms, day)
  }
  return day
}
const REF_YEAR = Number(REFERENCE_DATE.slice(0, 4))
const CONDITION_BY_KEY = new Map(CONDITIONS.map((c) => [c.key, c]))
const AGE_GROUP_TABLE = new WeightedTable(AGE_PYRAMID.map((g) => [g, g[2]] as const))
const OLDEST_TABLE = new WeightedTable(Array.from({ length: 15 }, (_, k) => [85 + k, OLDEST_AGE_DECAY ** k] as const))
const COMMERCIAL_PLAN_TABLE = new WeightedTable(COMMERCIAL_PLANS)
const SNAKEBITE_STATE_TABLE = new WeightedTable(Object.entries(SNAKEBITE_STATE_SHARE))
const TABLES = new WeakMap<object, WeightedTable<unknown>>()
/** The weighted table of a constant list, built once. */
function tableOf<T>(entries: readonly (readonly [T, number])[]): WeightedTable<T> {
  let t = TABLES.get(entries) as WeightedTable<T> | undefined
  if (!t) TABLES.set(entries, (t = new WeightedTable(entries)))
  return t
}
const PAYER_TABLES = new Map(
  Object.entries(PAYER_MIX).map(([band, mix]) => [band, new WeightedTable(Object.entries(mix) as [PayerType, number][])]),
)
/** A day of the birth year, no later than the reference date. */
function birthDate(rng: Rng, year: number): string {
  const first = Date.UTC(year, 0, 1)
  const last = Math.min(REF, Date.UTC(year, 11, 31))
  return isoDay(first + rng.int(0, Math.round((last - first) / DAY)) * DAY)
}
/**
 * E[product of relative risks] of each condition per age band under the drawing model (exact enumeration over
 * the latent states of the risk factors), so that a band's marginal prevalence stays the published one.
 */
const RISK_NORM: ReadonlyMap<string, number> = (() => {
  const norms = new Map<string, number>()
  const factors = new Set(Object.values(RISK_FACTORS).flatMap((list) => list.map(([f]) => f)))
  for (const band of ['child', 'young_adult', 'middle_age', 'senior'] as const) {
    let states = new Map<string, number>([['', 1]])
    for (const key of CONDITION_ORDER) {
      const condition = CONDITION_BY_KEY.get(key)
      if (!condition) continue
      const rrOf = (state: string) => (RISK_FACTORS[key] ?? []).reduce((r, [f, risk]) => (state.split(',').includes(f) ? r * risk : r), 1)
      let norm = 0
      for (const [state, p] of states) norm += p * rrOf(state)
      norms.set(`${key}|${band}`, norm)
      if (!factors.has(key)) continue
      const next = new Map<string, number>()
      for (const [state, p] of states) {
        const q = Math.min(0.95, (condition.prevalence[band] * rrOf(state)) / norm)
        next.set(state ? `${state},${key}` : key, (next.get(state ? `${state},${key}` : key) ?? 0) + p * q)
        next.set(state, (next.get(state) ?? 0) + p * (1 - q))
      }
      states = next
    }
  }
  return norms
})()

/** One encounter before pricing: date, rendering clinician (index), facility, setting and lines (code, units). */
interface Visit {
  ms: number
  provider: number
  facility: FacilityRow | null
  setting: ServiceSetting
  kind: EncounterKind
  lines: [string, number][]
  dx: string[]
  stayDays?: number
  /** Chance that a first visit with a clinician outside the care team is a new-patient visit. */
  newChance?: number
}
/** Placeholders of the visit's own code, set in date order (new or established, intake or session, age at service). */
const PREVENTIVE_VISIT = '@preventive'
const OFFICE_VISIT = '@office'
const BEHAVIORAL_VISIT = '@behavioral'
const THERAPY_VISIT = '@therapy'
const PEDIATRIC_CARE = ['208000000X', '363LP0200X', '207Q00000X']
/** The clinicians of one patient by claim year (index 0 = the first year of the window). */
interface CareTeam {
  pcp: number[]
  managers: Map<string, number[]>
  /** Clinicians whose first visit in the window is a new-patient visit. */
  newAtFirstVisit: Set<number>
}
/** Share of patients who start with (or change to) a new primary-care clinician in a year (assumption). */
const NEW_PCP_SHARE = 0.2
/** Share of specialist-managed conditions referred to a new specialist in a later year (assumption). */
const SPECIALIST_REFERRAL_SHARE = 0.35
const EMERGENCY_MEDICINE = ['207P00000X']
const EMERGENCY_AND_TOXICOLOGY = ['207P00000X', '207PT0002X']
const OBSTETRICS = ['207V00000X']
const ORTHOPAEDICS = ['207X00000X', '207XX0005X']
const PEDIATRICS = ['208000000X']
const INTERNAL_MEDICINE = ['207R00000X']
const KIND_CODES = Object.keys(PROVIDER_MIX_FULL) as ClinicianKind[]
/** Each condition's specialists (its specialties other than primary care). */
const SPECIALISTS_OF = new Map(CONDITIONS.map((c) => [c.key, c.specialties.filter((t) => !PRIMARY_CARE.includes(t))]))
/** Share of diagnosed patients whose condition a specialist manages (assumption; see seed/CALIBRATION.md). */
const SPECIALIST_SHARE: Readonly<Record<string, number>> = {
  depression: 0.55,
  rheumatoid_arthritis: 0.8,
  heart_failure: 0.6,
  ckd: 0.25,
  type2_diabetes: 0.15,
  osteoarthritis: 0.35,
  asthma: 0.2,
  copd: 0.25,
  hypertension: 0.1,
  obesity: 0,
}
/** Clinicians who may prescribe: physicians, nurse practitioners, physician assistants. */
export const PRESCRIBER_KINDS: ReadonlySet<ClinicianKind> = new Set(['physician', 'nurse_practitioner', 'physician_assistant'])
const BEHAVIORAL_KINDS: ReadonlySet<ClinicianKind> = new Set(['psychologist', 'counselor', 'social_worker'])
const PSYCHOTHERAPY: readonly (readonly [string, number])[] = [
  ['90834', 5],
  ['90837', 3],
  ['90832', 2],
]
/** Codes that are the visit itself, not an add-on test or treatment. */
const NOT_ANCILLARY = /^(99[0-9]{3}|90[0-9]{3}|97[0-9]{3})$/
const FACILITY_ANCILLARY: ReadonlySet<string> = new Set(['73721', '71250', '93306', '95810', '70551', '72148', '74177'])
const LAB_CODES: ReadonlySet<string> = new Set(['80048', '80053', '80061', '83036', '82043', '81003', '85025', '86431', '84443'])
/** Categories whose fee includes the facility (surgery, deliveries): inpatient copays and deductibles attach to them. */
const FACILITY_INCLUSIVE: ReadonlySet<string> = new Set(['surgery', 'maternity'])
const CHILD_ACUTE_DX: readonly (readonly [string, number])[] = [
  ['J06.9', 5],
  ['J02.9', 3],
  ['H66.90', 3],
  ['J20.9', 1.5],
  ['R50.9', 2],
  ['K52.9', 1],
]
const ADULT_ACUTE_DX: readonly (readonly [string, number])[] = [
  ['J06.9', 3],
  ['J02.9', 1.5],
  ['J20.9', 2],
  ['J01.90', 1.5],
  ['M54.50', 3],
  ['M25.561', 1],
  ['M54.2', 1],
  ['N39.0', 1.5],
  ['K21.9', 1],
  ['G43.909', 0.7],
  ['F41.1', 1],
  ['R10.9', 1],
  ['R51.9', 0.7],
  ['E78.5', 1.5],
]
const CHILD_ED_DX: readonly (readonly [string, number])[] = [
  ['R50.9', 4],
  ['J06.9', 3],
  ['H66.90', 2],
  ['S93.401A', 1],
  ['K52.9', 2],
  ['R10.9', 1.5],
  ['J20.9', 1],
]
const ADULT_ED_DX: readonly (readonly [string, number])[] = [
  ['R07.9', 5],
  ['R10.9', 5],
  ['J06.9', 2],
  ['J02.9', 1],
  ['S93.401A', 2],
  ['M54.50', 2],
  ['N39.0', 2],
  ['R51.9', 2],
  ['R55', 1],
  ['J20.9', 1.5],
  ['K52.9', 1.5],
  ['F41.1', 1],
  ['J18.9', 0.8],
  ['I48.91', 0.4],
  ['I21.4', 0.2],
  ['N17.9', 0.3],
]
const ED_ANCILLARIES: readonly (readonly [string, number])[] = [
  ['85025', 0.4],
  ['80053', 0.3],
  ['71046', 0.25],
  ['93000', 0.15],
  ['74177', 0.08],
  ['81003', 0.15],
]
const CHILD_IP_DX: readonly (readonly [string, number])[] = [
  ['J18.9', 4],
  ['K52.9', 2],
  ['A41.9', 1],
  ['N39.0', 1],
]
const ADULT_IP_DX: readonly (readonly [string, number])[] = [
  ['J18.9', 4],
  ['A41.9', 3],
  ['I21.4', 1.5],
  ['I63.9', 1.5],
  ['I48.91', 1.5],
  ['N17.9', 1.5],
  ['N39.0', 1.5],
  ['R07.9', 1],
]
/** Pharmacy allowed amounts relative to the list price, by payer (PBM discounts; rounded assumption). */
const RX_NEGOTIATED: Readonly<Record<PayerType, number>> = { commercial: 0.8, medicare: 0.78, medicaid: 0.7, other: 0.9 }
/** Chance of a yearly preventive visit at an age (NHIS/NAMCS: most children, about half of adults). */
function preventiveRate(age: number, payer: PayerType): number {
  // 'other' is mostly the uninsured, who seldom have check-ups (NHIS: about a third as often) and whose few
  // are mostly seen free at health centres and never billed; so self-paid check-ups stay rare on claims
  if (payer === 'other') return age < 18 ? 0.15 : 0.05
  if (age < 18) return 0.65
  if (age >= 65) return 0.5
  return payer === 'commercial' ? 0.5 : payer === 'medicaid' ? 0.4 : 0.45
}
/** Births a year per woman of an age (NVSS 2023 age pattern around 54.5 per 1,000 women 15-44). */
function birthRate(age: number): number {
  if (age < 15 || age > 44) return 0
  const shape = age < 20 ? 0.25 : age < 25 ? 1.05 : age < 30 ? 1.7 : age < 35 ? 1.75 : age < 40 ? 0.95 : 0.22
  return (BIRTHS_PER_1000_WOMEN / 1000) * shape
}

/**
 * The synthetic national dataset for one seed and scale. Small reference tables (ZIPs, systems, facilities) are
 * built eagerly; providers, patients and claims are produced on demand from their index, so any range can be
 * generated independently and a full run streams in constant memory.
 */
export class SyntheticDataset {
  readonly seed: number
  readonly scale: Scale
  readonly zips: readonly ZipRow[]
  private readonly zipTable: WeightedTable<number>
  /** ZIPs weighted by population × physicians per 100,000 of the state (AAMC), for placing physicians. */
  private readonly physicianZipTable: WeightedTable<number>
  private readonly countyGeometry: Map<string, CountyGeoRow>
  private readonly zipTablesByState = new Map<string, WeightedTable<number>>()
  private readonly kindTable: WeightedTable<ClinicianKind>
  private readonly taxonomyTables = new Map<ClinicianKind, WeightedTable<string>>()
  private readonly specialtyByCode: Map<string, Specialty>
  private readonly procedures: Map<string, ProcedureCode>
  readonly healthSystems: readonly HealthSystemRow[]
  readonly facilities: readonly FacilityRow[]
  private readonly hospitalsByState = new Map<string, FacilityRow[]>()
  private providerIndex: Map<string, Map<string, Int32Array>> | undefined

  constructor(options: DatasetOptions) {
    this.seed = options.seed >>> 0
    this.scale = typeof options.scale === 'string' ? SCALES[options.scale] : options.scale
    this.specialtyByCode = new Map(specialties().map((s) => [s.code, s]))
    this.procedures = new Map(procedureCodes().map((p) => [p.code, p]))
    // Placement: 50 states + DC at their Census population; within a state by county population (Census
    // Vintage 2023), shared evenly among the county's ZCTAs (no ZCTA population table is available offline).
    // A ZCTA whose internal point lies outside its own county (ZCTAs cross county lines) is left out, so that
    // every placed point can lie inside the county it is recorded in.
    this.countyGeometry = new Map(loadCountyGeometries().map((c) => [c.fips, c]))
    this.zips = loadZipRows().filter((z) => {
      if (!z.is_zcta || !STATE_BY_ABBR.get(z.state)?.population_2023) return false
      const county = z.county_fips ? this.countyGeometry.get(z.county_fips) : undefined
      return !county || multiPolygonContains(county.geometry, z.lng, z.lat)
    })
    const countyPopulation = options.countyPopulation ?? new Map(Object.entries(COUNTY_POPULATION))
    const perState = new Map<string, number[]>()
    this.zips.forEach((z, i) => {
      const list = perState.get(z.state) ?? []
      list.push(i)
      perState.set(z.state, list)
    })
    const zipsPerCounty = new Map<string, number>()
    for (const z of this.zips) if (z.county_fips) zipsPerCounty.set(z.county_fips, (zipsPerCounty.get(z.county_fips) ?? 0) + 1)
    const entries: [number, number][] = []
    const physicianEntries: [number, number][] = []
    for (const [state, list] of perState) {
      const pop = STATE_BY_ABBR.get(state)?.population_2023 ?? 0
      const covered = new Set<string>()
      let coveredPop = 0
      for (const i of list) {
        const fips = (this.zips[i] as ZipRow).county_fips
        if (fips && !covered.has(fips) && countyPopulation.has(fips)) {
          covered.add(fips)
          coveredPop += countyPopulation.get(fips) ?? 0
        }
      }
      // ZIPs whose county has no figure share what the state's counties leave over
      const uncovered = list.filter((i) => !covered.has((this.zips[i] as ZipRow).county_fips ?? ''))
      const rest = Math.max(pop - coveredPop, pop * 0.001)
      const weights = list.map((i) => {
        const z = this.zips[i] as ZipRow
        return z.county_fips && covered.has(z.county_fips)
          ? (countyPopulation.get(z.county_fips) ?? 0) / (zipsPerCounty.get(z.county_fips) ?? 1)
          : rest / Math.max(1, uncovered.length)
      })
      const sum = weights.reduce((a, b) => a + b, 0) || 1
      const stateEntries = list.map((i, k) => [i, ((weights[k] ?? 0) / sum) * pop] as [number, number])
      entries.push(...stateEntries)
      const density = PHYSICIANS_PER_100K[state] ?? 260
      for (const [i, w] of stateEntries) physicianEntries.push([i, w * density])
      this.zipTablesByState.set(state, new WeightedTable(stateEntries))
    }
    this.zipTable = new WeightedTable(entries)
    this.physicianZipTable = new WeightedTable(physicianEntries)
    this.kindTable = new WeightedTable(Object.entries(PROVIDER_MIX_FULL) as [ClinicianKind, number][])
    for (const kind of Object.keys(PROVIDER_MIX_FULL) as ClinicianKind[]) {
      const codes = specialties().filter((s) => s.provider_kind === kind)
      this.taxonomyTables.set(kind, new WeightedTable(codes.map((s) => [s.code, TAXONOMY_WEIGHTS[s.code] ?? 1] as const)))
    }
    this.healthSystems = Array.from({ length: this.scale.health_systems }, (_, i) => this.healthSystem(i))
    this.facilities = this.buildFacilities()
    for (const f of this.facilities) {
      if (f.facility_type !== 'hospital' && f.facility_type !== 'critical_access') continue
      const list = this.hospitalsByState.get(f.state) ?? []
      list.push(f)
      this.hospitalsByState.set(f.state, list)
    }
  }

  // ---------- identifiers ----------
  /** Individual NPIs: a bijection of the index onto 8 digits after a leading 1, then the Luhn check digit. */
  private npiOffset: number | undefined
  providerNpi(index: number): string {
    this.npiOffset ??= hash32(this.seed, 'npi') % 100_000_000
    const body = (index * 48_271 + this.npiOffset) % 100_000_000
    return makeNpi(`1${String(body).padStart(8, '0')}`)
  }
  facilityNpi(index: number): string {
    const body = (index * 69_621 + (hash32(this.seed, 'org-npi') % 100_000_000)) % 100_000_000
    return makeNpi(`2${String(body).padStart(8, '0')}`)
  }

  private placeZip(rng: Rng, state?: string): ZipRow {
    const table = state ? (this.zipTablesByState.get(state) ?? this.zipTable) : this.zipTable
    return this.zips[table.pick(rng)] as ZipRow
  }
  /**
   * A point up to ~3 km around the ZCTA internal point that lies inside the ZIP's county polygon (the same
   * polygons as counties.geom): a few draws, then smaller radii, then the ZIP's own point.
   */
  private jitter(rng: Rng, z: ZipRow): [number, number] {
    const county = z.county_fips ? this.countyGeometry.get(z.county_fips) : undefined
    for (let attempt = 0; attempt < 8; attempt++) {
      const r = (attempt < 4 ? 0.027 : 0.027 / (attempt - 2)) * Math.sqrt(rng.next())
      const t = rng.next() * 2 * Math.PI
      const lat = Math.round((z.lat + r * Math.sin(t)) * 1e6) / 1e6
      const lng = Math.round((z.lng + (r * Math.cos(t)) / Math.cos((z.lat * Math.PI) / 180)) * 1e6) / 1e6
      if (!county || multiPolygonContains(county.geometry, lng, lat)) return [lat, lng]
    }
    // the ZIP's own point lies inside its county (ZIPs are filtered so)
    return [z.lat, z.lng]
  }
  /**
   * A fictional number (555-01xx lines are reserved for fictional use) with the area code of the county (the
   * code its hospitals answer on, CMS Hospital General Information); the three digit draws stay so that every
   * later draw keeps its value.
   */
  private phone(rng: Rng, county: string | null): string {
    const drawn = `${rng.int(2, 9)}${rng.int(0, 8)}${rng.int(0, 9)}`
    const area = (county && COUNTY_AREA_CODES[county]) || drawn
    return `${area}55501${String(rng.int(0, 99)).padStart(2, '0')}`
  }
  /** Each ZIP's place among its city's ZIPs (and how many the city has), for house numbers. */
  private zipSlot(z: ZipRow): [number, number] {
    if (!this.zipSlots) {
      const byCity = new Map<string, string[]>()
      for (const row of this.zips) {
        const key = `${row.state}|${row.city}`
        let list = byCity.get(key)
        if (!list) byCity.set(key, (list = []))
        list.push(row.zip)
      }
      this.zipSlots = new Map()
      for (const list of byCity.values()) list.sort().forEach((zip, i) => this.zipSlots!.set(zip, [i, list.length]))
    }
    return this.zipSlots.get(z.zip) ?? [0, 1]
  }
  private zipSlots: Map<string, [number, number]> | undefined
  /**
   * A street address in ZIP z. The house number modulo the city's ZIP count is the ZIP's place among them, so
   * the same address in a city never lies in two ZIPs (USPS: one address, one ZIP).
   */
  private street(rng: Rng, z: ZipRow): string {
    const names = [
      'Main',
      'Oak',
      'Maple',
      'Cedar',
      'Pine',
      'Elm',
      'Washington',
      'Lake',
      'Hill',
      'Park',
      'River',
      'Church',
      'Center',
      'Highland',
      'Sunset',
      'Madison',
      'Jefferson',
      'Lincoln',
      'Walnut',
      'Spring',
    ]
    const kinds = ['St', 'Ave', 'Blvd', 'Rd', 'Dr', 'Way', 'Pkwy']
    const [slot, slots] = this.zipSlot(z)
    const house = Math.floor(rng.int(1, 9899) / slots) * slots + slot + 1
    return `${house} ${rng.pick(names)} ${rng.pick(kinds)}`
  }

  // ---------- health systems and facilities ----------
  private healthSystem(i: number): HealthSystemRow {
    const rng = rngFor(this.seed, 'health-system', i)
    const z = this.placeZip(rng)
    // a regional word only where the home state lies in its region
    const word = rng.pick(SYSTEM_NAME_WORDS.filter((w) => REGIONAL_NAME_WORDS[w]?.includes(z.state) ?? true))
    const name = `${rng.chance(0.4) ? z.city + ' ' : ''}${word} ${rng.pick(SYSTEM_NAME_SUFFIXES)}`
    return {
      id: i + 1,
      healthsystem_id: `HS${String(i + 1).padStart(5, '0')}`,
      name,
      control_type: rng.pick(['Private', 'Private', 'Private', 'Non-profit', 'Non-profit', 'Government', 'Church-operated']),
      state: z.state,
      city: z.city,
      website_domain: `${name.toLowerCase().replace(/[^a-z0-9]+/g, '')}.example.org`,
      phone_number: this.phone(rng, z.county_fips),
    }
  }

  private buildFacilities(): FacilityRow[] {
    const systemsByState = new Map<string, HealthSystemRow[]>()
    for (const s of this.healthSystems) systemsByState.set(s.state, [...(systemsByState.get(s.state) ?? []), s])
    const divisionOf = (state: string) => STATE_BY_ABBR.get(state)?.division ?? state
    const systemsByDivision = new Map<string, HealthSystemRow[]>()
    for (const s of this.healthSystems)
      systemsByDivision.set(divisionOf(s.state), [...(systemsByDivision.get(divisionOf(s.state)) ?? []), s])
    const rows: FacilityRow[] = []
    for (const type of Object.keys(FACILITY_MIX_FULL) as FacilityType[]) {
      const count = Math.max(1, Math.round(FACILITY_MIX_FULL[type] * this.scale.facility_fraction))
      for (let k = 0; k < count; k++) {
        const index = rows.length
        const rng = rngFor(this.seed, `facility-${type}`, k)
        const isHospital = type === 'hospital' || type === 'critical_access'
        // critical access hospitals are rural: weight them away from dense states by drawing twice and keeping the smaller-city draw
        const z = this.placeZip(rng)
        const [lat, lng] = this.jitter(rng, z)
        const local = systemsByState.get(z.state) ?? []
        const affiliated = isHospital ? rng.chance(SYSTEM_AFFILIATED_SHARE) : rng.chance(0.35)
        // systems are regional (AHRQ Compendium: most own hospitals in one state): a system of the state, else
        // one of the state's Census division, else none
        const regional = systemsByDivision.get(divisionOf(z.state)) ?? []
        const useLocal = local.length > 0 && rng.chance(0.85)
        const system = affiliated ? (useLocal ? rng.pick(local) : regional.length > 0 ? rng.pick(regional) : undefined) : undefined
        const suffixes = FACILITY_SUFFIXES[type] ?? ['Center']
        const systemBase = system?.name.replace(
          / (Health System|Health|Healthcare|Medical Group|Health Partners|Regional Health|Health Network)$/,
          '',
        )
        // a system named after its home city lends that name only to hospitals of that city
        const lendsName = system !== undefined && (system.city === z.city || !systemBase?.startsWith(system.city + ' '))
        const ownWord = rng.chance(0.3)
          ? ' ' + rng.pick(SYSTEM_NAME_WORDS.filter((w) => REGIONAL_NAME_WORDS[w]?.includes(z.state) ?? true))
          : ''
        const base = system && rng.chance(0.5) && lendsName ? (systemBase as string) : `${z.city}${ownWord}`
        rows.push({
          id: index + 1,
          npi: this.facilityNpi(index),
          name: `${base} ${rng.pick(suffixes)}`,
          facility_type: type,
          hco_compile_level_1: FACILITY_LEVEL_1[type],
          taxonomy_code: FACILITY_TAXONOMY[type],
          health_system_id: system?.id ?? null,
          address_line_1: this.street(rng, z),
          city: z.city,
          state: z.state,
          zip_code: z.zip,
          county_fips: z.county_fips,
          latitude: lat,
          longitude: lng,
          phone_number: this.phone(rng, z.county_fips),
          bed_count: type === 'hospital' ? Math.round(25 + rng.lognormal(0.8) * 120) : type === 'critical_access' ? rng.int(4, 25) : null,
          emergency_services: isHospital ? rng.chance(0.93) : false,
        })
      }
    }
    return rows
  }

  // ---------- providers ----------
  private providerCore(i: number, rng: Rng = rngFor(this.seed, 'provider', i)): ProviderCore {
    const kind = this.kindTable.pick(rng)
    const taxonomy = (this.taxonomyTables.get(kind) as WeightedTable<string>).pick(rng)
    const zipIndex = (kind === 'physician' ? this.physicianZipTable : this.zipTable).pick(rng)
    return { kind, taxonomy, zipIndex }
  }

  provider(i: number): ProviderRow {
    return this.providerWith(i, networksObject)
  }

  /**
   * Provider `i` with its insurer networks as JSON text (exactly JSON.stringify of provider(i)'s networks), which
   * is what the loader writes: the same draws without building the object.
   */
  providerForCopy(i: number): ProviderCopyRow {
    return this.providerWith(i, networksJson)
  }

  private providerWith<N>(
    i: number,
    networksOf: NetworksOf<N>,
  ): Omit<ProviderRow, 'aggregated_insurance_networks_v1'> & { aggregated_insurance_networks_v1: N } {
    const rng = rngFor(this.seed, 'provider', i)
    const core = this.providerCore(i, rng)
    const z = this.zips[core.zipIndex] as ZipRow
    const gender: 'M' | 'F' = rng.chance(FEMALE_SHARE[core.kind]) ? 'F' : 'M'
    const first = rng.pick(gender === 'F' ? FEMALE_NAMES : MALE_NAMES)
    const last = rng.pick(LAST_NAMES)
    const middle = rng.chance(0.7) ? (MIDDLE_INITIALS[rng.int(0, MIDDLE_INITIALS.length - 1)] ?? 'A') : ''
    let title: string
    let school: string | null = null
    const isDo = core.kind === 'physician' && rng.chance(DO_SHARE)
    if (core.kind === 'physician') {
      title = isDo ? 'DO' : 'MD'
      school = isDo ? rng.pick(DO_SCHOOLS) : rng.pick(MD_SCHOOLS)
    } else title = tableOf(CREDENTIALS[core.kind]).pick(rng)
    const trainingEnd = core.kind === 'physician' ? 31 + rng.int(0, 4) : 24 + rng.int(0, 6)
    const age = Math.min(78, Math.max(trainingEnd + 1, Math.round(rng.normal(core.kind === 'physician' ? 51 : 44, 10.5))))
    const years = age - trainingEnd
    const [lat, lng] = this.jitter(rng, z)
    const hospitals = this.hospitalsByState.get(z.state) ?? []
    const sameCounty = this.hospitalsOfCounty(z.state, hospitals, z.county_fips)
    const facility =
      rng.chance(0.72) && hospitals.length > 0 ? rng.pick(sameCounty.length > 0 && rng.chance(0.7) ? sameCounty : hospitals) : null
    const entries = networkEntries(z.state)
    for (let k = 0; k < entries.length; k++) inNetworkScratch[k] = rng.chance((entries[k] as NetworkEntry).chance) ? 1 : 0
    const networks = networksOf(entries, inNetworkScratch)
    const verifiedDaysAgo = Math.floor(rng.next() ** 2 * 540)
    const specialty = this.specialtyByCode.get(core.taxonomy)
    const full = `${first}${middle ? ' ' + middle + '.' : ''} ${last}${title ? ', ' + title : ''}`
    // a clinician practising at the hospital's address has the hospital's ZIP and place too (one address, one ZIP)
    const atFacility = facility !== null && rng.chance(0.5)
    const place = atFacility ? facility : { zip_code: z.zip, city: z.city, county_fips: z.county_fips, latitude: lat, longitude: lng }
    return {
      id: i + 1,
      npi: this.providerNpi(i),
      first_name: first,
      middle_name: middle,
      last_name: last,
      full_name: full,
      title,
      gender,
      provider_kind: core.kind,
      primary_taxonomy_code: core.taxonomy,
      cms_specialization: specialty?.display_name ?? core.taxonomy,
      age,
      years_in_practice: years,
      medical_school: school,
      phone_number: this.phone(rng, place.county_fips),
      address_line_1: atFacility ? facility.address_line_1 : this.street(rng, z),
      city: place.city,
      state: z.state,
      zip_code: place.zip_code,
      county_fips: place.county_fips,
      latitude: place.latitude,
      longitude: place.longitude,
      facility_id: facility?.id ?? null,
      hco_npi: facility?.npi ?? null,
      hco_name: facility?.name ?? null,
      website: rng.chance(0.15) ? `https://www.${last.toLowerCase()}${first.toLowerCase()}.example.com` : null,
      accepting_new_patients: rng.chance(0.74),
      aggregated_insurance_networks_v1: networks,
      last_verified_at: isoDay(REF - verifiedDaysAgo * DAY),
      confidence: round2(Math.max(0.35, 0.99 - verifiedDaysAgo / 900 - rng.next() * 0.08)),
    }
  }

  /** The state's hospitals in one county (hospitalsByState filtered by county_fips), built once per county. */
  private hospitalsOfCounty(state: string, hospitals: readonly FacilityRow[], county: string | null): readonly FacilityRow[] {
    let byCounty = this.hospitalsByCounty.get(state)
    if (!byCounty) this.hospitalsByCounty.set(state, (byCounty = new Map()))
    let list = byCounty.get(county)
    if (!list) byCounty.set(county, (list = hospitals.filter((h) => h.county_fips === county)))
    return list
  }
  private readonly hospitalsByCounty = new Map<string, Map<string | null, readonly FacilityRow[]>>()

  async *providers(from = 0, to = this.scale.providers): AsyncGenerator<ProviderRow> {
    for (let i = from; i < to; i++) yield this.provider(i)
  }

  /**
   * Every provider's core draws (providerCore: kind, taxonomy, ZIP) as numbers, bucketed by (state, taxonomy)
   * with a counting sort into one Int32Array (each bucket a view, providers in index order), and their kinds.
   * Same draws as providerCore, without its object or a Map look-up per provider (6 million at the full scale,
   * built by every claims thread).
   */
  private buildProviderIndex(): Map<string, Map<string, Int32Array>> {
    const n = this.scale.providers
    const states: string[] = []
    const stateIndex = new Map<string, number>()
    const zipState = Uint16Array.from(this.zips, (z) => {
      let k = stateIndex.get(z.state)
      if (k === undefined) stateIndex.set(z.state, (k = states.push(z.state) - 1))
      return k
    })
    const taxonomies: string[] = []
    const taxonomyIndex = new Map<string, number>()
    const kinds = this.kindTable.items
    const byKind = kinds.map((kind) => {
      const table = this.taxonomyTables.get(kind) as WeightedTable<string>
      const ids = Int32Array.from(table.items, (code) => {
        let k = taxonomyIndex.get(code)
        if (k === undefined) taxonomyIndex.set(code, (k = taxonomies.push(code) - 1))
        return k
      })
      return { table, ids, code: KIND_CODES.indexOf(kind), zips: kind === 'physician' ? this.physicianZipTable : this.zipTable }
    })
    const width = taxonomies.length
    const keys = new Int32Array(n)
    const starts = new Int32Array(states.length * width + 1)
    this.providerKinds = new Uint8Array(n)
    for (let i = 0; i < n; i++) {
      const rng = rngFor(this.seed, 'provider', i)
      const kind = byKind[this.kindTable.pickIndex(rng)]!
      const taxonomy = kind.ids[kind.table.pickIndex(rng)]!
      const key = zipState[kind.zips.pick(rng)]! * width + taxonomy
      this.providerKinds[i] = kind.code
      keys[i] = key
      starts[key + 1]!++
    }
    for (let k = 1; k < starts.length; k++) starts[k]! += starts[k - 1]!
    const sorted = new Int32Array(n)
    const next = starts.slice(0, -1)
    for (let i = 0; i < n; i++) sorted[next[keys[i]!]!++] = i
    const index = new Map<string, Map<string, Int32Array>>()
    states.forEach((state, si) => {
      const byTax = new Map<string, Int32Array>()
      taxonomies.forEach((code, ti) => {
        const key = si * width + ti
        if (starts[key + 1]! > starts[key]!) byTax.set(code, sorted.subarray(starts[key], starts[key + 1]))
      })
      if (byTax.size > 0) index.set(state, byTax)
    })
    return index
  }

  /** Provider indexes by state and taxonomy, for picking the rendering provider of a claim (built once). */
  private providersIn(state: string, taxonomies: readonly string[]): Int32Array[] {
    this.providerIndex ??= this.buildProviderIndex()
    let byList = this.providersInCache.get(taxonomies)
    if (!byList) this.providersInCache.set(taxonomies, (byList = new Map()))
    const cached = byList.get(state)
    if (cached) return cached
    const byTax = this.providerIndex.get(state)
    const found = taxonomies.flatMap((t) => {
      const list = byTax?.get(t)
      return list && list.length > 0 ? [list] : []
    })
    byList.set(state, found)
    return found
  }

  private readonly providersInCache = new WeakMap<readonly string[], Map<string, Int32Array[]>>()
  private providerKinds: Uint8Array | undefined
  /** A clinician's kind (from the provider index, without generating the row). */
  kindOfProvider(index: number): ClinicianKind {
    if (!this.providerKinds) this.providersIn('CA', PRIMARY_CARE)
    return KIND_CODES[this.providerKinds?.[index] ?? 0] as ClinicianKind
  }

  private pickProvider(rng: Rng, state: string, taxonomies: readonly string[]): number {
    let lists = this.providersIn(state, taxonomies)
    if (lists.length === 0) lists = this.providersIn(state, PRIMARY_CARE)
    if (lists.length === 0) {
      // a state without a matching clinician at tiny scales: anyone in the country with the taxonomy, else anyone
      for (const st of STATES) {
        lists = this.providersIn(st.abbr, taxonomies)
        if (lists.length > 0) break
      }
    }
    if (lists.length === 0) return rng.int(0, this.scale.providers - 1)
    const total = lists.reduce((s, l) => s + l.length, 0)
    // skewed towards the head of the list (u^5: its first tenth bills ~60 % of the visits), as panels are: a
    // sample with as many clinicians as patients would otherwise give each clinician one patient, and a
    // condition more clinicians than patients (issue 33 item 15)
    let k = Math.min(total - 1, Math.floor(rng.next() ** 5 * total))
    for (const l of lists) {
      if (k < l.length) return l[k] as number
      k -= l.length
    }
    return 0
  }

  // ---------- patients and claims ----------
  /** Ages by the Census pyramid: a 5-year group, then a year within it (85-99 thinning with survival). */
  private age(rng: Rng): { age: number; female: number } {
    const group = AGE_GROUP_TABLE.pick(rng)
    const [from, to, , female] = group
    if (to - from > 4) return { age: OLDEST_TABLE.pick(rng), female }
    return { age: rng.int(from, to), female }
  }

  /**
   * Latent conditions drawn in CONDITION_ORDER with relative risks of their risk factors (normalised so each
   * age band keeps its total prevalence), then the diagnosed (claims-coded) ones.
   */
  private drawConditions(rng: Rng, age: number): string[] {
    const band = ageBand(age)
    const latent = new Set<string>()
    for (const key of CONDITION_ORDER) {
      const condition = CONDITION_BY_KEY.get(key)
      if (!condition || age < (CONDITION_MIN_AGE[key] ?? 0)) continue
      let rr = 1
      for (const [factor, risk] of RISK_FACTORS[key] ?? []) if (latent.has(factor)) rr *= risk
      const p = Math.min(0.95, (condition.prevalence[band] * rr) / (RISK_NORM.get(`${key}|${band}`) ?? 1))
      if (rng.chance(p)) latent.add(key)
    }
    const coded: string[] = []
    for (const key of CONDITION_ORDER) {
      if (!latent.has(key)) continue
      let share = DIAGNOSED_SHARE[key]?.[band] ?? 1
      if (key === 'ckd' && latent.has('type2_diabetes')) share = Math.min(0.95, share * CKD_DIAGNOSIS_BOOST_DIABETES)
      if (rng.chance(share)) coded.push(key)
    }
    return coded
  }

  /** Where a patient lives, with age and sex: the first draws of patient(i), so cheap enough to scan everyone. */
  private home(rng: Rng): { age: number; gender: 'M' | 'F'; z: ZipRow } {
    const { age, female } = this.age(rng)
    const gender: 'M' | 'F' = rng.chance(female) ? 'F' : 'M'
    return { age, gender, z: this.placeZip(rng) }
  }

  patient(i: number): PatientRow {
    const rng = rngFor(this.seed, 'patient', i)
    const { age, gender, z } = this.home(rng)
    const mix = PAYER_MIX[ageBand(age)]
    const payer = (PAYER_TABLES.get(ageBand(age)) ?? new WeightedTable(Object.entries(mix) as [PayerType, number][])).pick(rng)
    const conditions = this.drawConditions(rng, age)
    const birthYear = REF_YEAR - age
    const insurer = this.insurerFor(rng, payer, z.state)
    return {
      id: i + 1,
      age,
      birth_year: birthYear,
      gender,
      zip_code: z.zip,
      state: z.state,
      county_fips: z.county_fips,
      payer_type: payer,
      insurer_name: insurer,
      conditions,
      birth_date: birthDate(rng, birthYear),
      condition_codes: Object.fromEntries(
        conditions.map((key) => [key, tableOf(CONDITION_BY_KEY.get(key)?.icd10 ?? [['Z00.00', 1]]).pick(rng)]),
      ),
      plan: this.planFor(rng, payer, insurer),
    }
  }

  async *patients(from = 0, to = this.scale.patients): AsyncGenerator<PatientRow> {
    for (let i = from; i < to; i++) yield this.patient(i)
  }

  private planFor(rng: Rng, payer: PayerType, insurer: string | null): PlanDesign {
    if (payer === 'commercial') return COMMERCIAL_PLAN_TABLE.pick(rng)
    if (payer === 'medicare') return insurer === 'Medicare' ? MEDICARE_FFS_PLAN : MEDICARE_ADVANTAGE_PLAN
    if (payer === 'medicaid') return MEDICAID_PLAN
    return insurer === 'TRICARE' ? TRICARE_PLAN : UNINSURED_PLAN
  }

  /**
   * The carrier by line of business from published market shares (realism.ts): 'blues' goes to the state's
   * Blue plan(s), 'regional' to the state's regional plans; a share whose carrier does not serve the state
   * falls to the others. Medicare: fee-for-service unless in a Medicare Advantage plan; Medicaid: the state
   * programme unless in a managed-care plan.
   */
  private insurerFor(rng: Rng, payer: PayerType, state: string): string | null {
    if (payer === 'other') return rng.chance(TRICARE_SHARE_OF_OTHER) ? 'TRICARE' : null
    if (payer === 'medicare' && !rng.chance(MEDICARE_ADVANTAGE_SHARE)) return 'Medicare'
    if (payer === 'medicaid' && !rng.chance(MEDICAID_MANAGED_CARE_SHARE)) return 'Medicaid'
    const table = this.insurerTable(payer, state)
    return table ? table.pick(rng) : payer === 'medicare' ? 'Medicare' : payer === 'medicaid' ? 'Medicaid' : null
  }

  private readonly insurerTables = new Map<string, WeightedTable<string> | null>()
  private readonly insurerFactors = new Map<PayerType, Map<string, number>>()

  /**
   * A state's carriers by line of business before calibration: [carrier, group, weight]. 'blues' is the state's
   * Blue plan(s) and 'regional' its regional plans (split by their weights); a named carrier absent from the
   * state is left out.
   */
  private insurerBase(payer: PayerType, state: string): [string, string, number][] {
    const shares = payer === 'commercial' ? COMMERCIAL_SHARES : payer === 'medicare' ? MEDICARE_ADVANTAGE_SHARES : MEDICAID_MCO_SHARES
    const kinds = payer === 'commercial' ? ['commercial'] : payer === 'medicare' ? ['medicare', 'commercial'] : ['medicaid']
    const named = new Set(shares.map(([n]) => n))
    const out: [string, string, number][] = []
    for (const [name, share] of shares) {
      const members =
        name === 'blues'
          ? INSURERS.filter((i) => i.kind === 'blues' && (!i.states || i.states.includes(state)))
          : name === 'regional'
            ? INSURERS.filter((i) => i.states?.includes(state) && kinds.includes(i.kind) && !named.has(i.name) && i.weight > 0)
            : INSURERS.filter((i) => i.name === name && (!i.states || i.states.includes(state)))
      const total = members.reduce((a, b) => a + (b.weight || 1), 0)
      for (const m of members) out.push([m.name, name, (share * (m.weight || 1)) / total])
    }
    return out
  }

  /**
   * Per-group factors that make the national shares (population-weighted over the states) equal the published
   * ones although carriers serve different states: iterative proportional fitting over the 50 states + DC.
   */
  private insurerFactorsFor(payer: PayerType): Map<string, number> {
    let factors = this.insurerFactors.get(payer)
    if (factors) return factors
    const shares = payer === 'commercial' ? COMMERCIAL_SHARES : payer === 'medicare' ? MEDICARE_ADVANTAGE_SHARES : MEDICAID_MCO_SHARES
    const total = shares.reduce((a, [, v]) => a + v, 0)
    const states = STATES.filter((st) => st.population_2023).map((st) => ({
      pop: st.population_2023 ?? 0,
      base: this.insurerBase(payer, st.abbr),
    }))
    const popTotal = states.reduce((a, st) => a + st.pop, 0)
    factors = new Map(shares.map(([n]) => [n, 1]))
    for (let iteration = 0; iteration < 60; iteration++) {
      const achieved = new Map<string, number>()
      for (const st of states) {
        const sum = st.base.reduce((a, [, g, w]) => a + w * (factors.get(g) ?? 1), 0)
        if (sum <= 0) continue
        for (const [, g, w] of st.base) achieved.set(g, (achieved.get(g) ?? 0) + (st.pop / popTotal) * ((w * (factors.get(g) ?? 1)) / sum))
      }
      for (const [group, share] of shares) {
        const got = achieved.get(group)
        if (got) factors.set(group, (factors.get(group) ?? 1) * (share / total / got))
      }
    }
    this.insurerFactors.set(payer, factors)
    return factors
  }

  private insurerTable(payer: PayerType, state: string): WeightedTable<string> | null {
    const key = `${payer}|${state}`
    if (this.insurerTables.has(key)) return this.insurerTables.get(key) ?? null
    const factors = this.insurerFactorsFor(payer)
    const entries = this.insurerBase(payer, state)
      .map(([name, group, w]) => [name, w * (factors.get(group) ?? 1)] as [string, number])
      .filter(([, w]) => w > 0)
    const table = entries.length > 0 ? new WeightedTable(entries) : null
    this.insurerTables.set(key, table)
    return table
  }

  // ---------- utilisation model ----------
  /** Relative ED / inpatient weight of a patient (age, payer, conditions); rates are normalised on a sample. */
  private utilisationWeight(p: PatientRow, table: typeof ED_RELATIVE, payerRelative: Readonly<Record<PayerType, number>> | null): number {
    const age = p.age <= 1 ? table.infant : p.age >= 85 ? table.oldest : table[ageBand(p.age)]
    let w = age * (payerRelative ? payerRelative[p.payer_type] : 1)
    for (const c of p.conditions) w *= CONDITION_UTILISATION[c] ?? 1
    return w
  }

  /**
   * Normalisers of the utilisation rates, measured once on (up to 20,000 of) the sampled patients so that the
   * population reaches the published rates: mean ED and inpatient weights, the share of people eligible for a
   * joint replacement (coded osteoarthritis, 40+), and expected births per person.
   */
  private get norms(): { ed: number; ip: number; jointEligible: number; births: number } {
    if (this.normCache) return this.normCache
    const n = Math.min(this.scale.patients, 20_000)
    let ed = 0
    let ip = 0
    let eligible = 0
    let births = 0
    for (let i = 0; i < n; i++) {
      const p = this.patient(i)
      ed += this.utilisationWeight(p, ED_RELATIVE, ED_PAYER_RELATIVE)
      ip += this.utilisationWeight(p, INPATIENT_RELATIVE, null)
      if (p.age >= 40 && p.conditions.includes('osteoarthritis')) eligible++
      if (p.gender === 'F') births += birthRate(p.age)
    }
    this.normCache = { ed: ed / n || 1, ip: ip / n || 1, jointEligible: Math.max(eligible / n, 1e-4), births: births / n }
    return this.normCache
  }
  private normCache: { ed: number; ip: number; jointEligible: number; births: number } | undefined

  /**
   * The clinicians a patient sees (deterministic per patient, shared by claims and pharmacy): a primary-care
   * clinician (pediatric for children), and per diagnosed condition the clinician managing it, a specialist
   * for a published-like share of patients, else the primary-care clinician.
   */
  careTeam(p: PatientRow): CareTeam {
    if (this.lastTeam?.id === p.id) return this.lastTeam.team
    const team = this.buildCareTeam(p)
    this.lastTeam = { id: p.id, team }
    return team
  }
  private lastTeam: { id: number; team: CareTeam } | undefined
  private buildCareTeam(p: PatientRow): CareTeam {
    const rng = rngFor(this.seed, 'care-team', p.id)
    const years = this.scale.claim_years
    const newAtFirstVisit = new Set<number>()
    const pcp: number[] = [this.pickProvider(rng, p.state, p.age < 18 ? PEDIATRIC_CARE : PRIMARY_CARE)]
    if (rng.chance(NEW_PCP_SHARE)) newAtFirstVisit.add(pcp[0]!)
    // each later year a patient may change primary-care clinician (a new-patient visit with the new one)
    for (let y = 1; y < years; y++) {
      if (rng.chance(NEW_PCP_SHARE)) {
        const next = this.pickProvider(rng, p.state, p.age < 18 ? PEDIATRIC_CARE : PRIMARY_CARE)
        if (next !== pcp[y - 1]) newAtFirstVisit.add(next)
        pcp.push(next)
      } else pcp.push(pcp[y - 1]!)
    }
    const managers = new Map<string, number[]>()
    for (const key of p.conditions) {
      const specialists = SPECIALISTS_OF.get(key) ?? []
      const bySpecialist = specialists.length > 0 && p.age >= 18 && rng.chance(SPECIALIST_SHARE[key] ?? 0.2)
      const list: number[] = []
      for (let y = 0; y < years; y++) {
        if (!bySpecialist) list.push(pcp[y]!)
        else if (y === 0 || rng.chance(SPECIALIST_REFERRAL_SHARE)) {
          // a referral: the first visit is a new-patient visit (for the first year, 30 % predate the window)
          const s = this.pickProvider(rng, p.state, specialists)
          if (s !== list[y - 1] && (y > 0 || rng.chance(0.7))) newAtFirstVisit.add(s)
          list.push(s)
        } else list.push(list[y - 1]!)
      }
      managers.set(key, list)
    }
    return { pcp, managers, newAtFirstVisit }
  }

  /** A clinician allowed to prescribe (physician, NP, PA): the given one, else the patient's primary-care clinician, else any in the state. */
  private prescriberFor(rng: Rng, p: PatientRow, preferred: number, pcp: number): number {
    for (const candidate of [preferred, pcp]) if (PRESCRIBER_KINDS.has(this.kindOfProvider(candidate))) return candidate
    for (let attempt = 0; attempt < 5; attempt++) {
      const other = this.pickProvider(rng, p.state, PRIMARY_CARE)
      if (PRESCRIBER_KINDS.has(this.kindOfProvider(other))) return other
    }
    return this.pickProvider(rng, 'CA', ['207Q00000X'])
  }

  private readonly facilitiesByStateType = new Map<string, FacilityRow[]>()
  private facilitiesIn(state: string, types: readonly FacilityType[]): FacilityRow[] {
    const key = `${state}|${types.join(',')}`
    let list = this.facilitiesByStateType.get(key)
    if (!list) {
      list = this.facilities.filter((f) => f.state === state && types.includes(f.facility_type))
      if (list.length === 0) list = this.facilities.filter((f) => types.includes(f.facility_type))
      this.facilitiesByStateType.set(key, list)
    }
    return list
  }
  private readonly hospitalLists = new Map<string, { list: FacilityRow[]; byCounty: Map<string, FacilityRow[]> }>()
  private hospitalFor(rng: Rng, p: PatientRow, emergency: boolean): FacilityRow {
    const key = `${p.state}|${emergency}`
    let entry = this.hospitalLists.get(key)
    if (!entry) {
      const pool = (this.hospitalsByState.get(p.state) ?? []).filter((h) => !emergency || h.emergency_services)
      const list =
        pool.length > 0
          ? pool
          : this.facilities.filter(
              (f) => (f.facility_type === 'hospital' || f.facility_type === 'critical_access') && (!emergency || f.emergency_services),
            )
      const byCounty = new Map<string, FacilityRow[]>()
      for (const h of list) if (h.county_fips) byCounty.set(h.county_fips, [...(byCounty.get(h.county_fips) ?? []), h])
      this.hospitalLists.set(key, (entry = { list, byCounty }))
    }
    const near = p.county_fips ? entry.byCounty.get(p.county_fips) : undefined
    return rng.pick(near && near.length > 0 && rng.chance(0.6) ? near : entry.list)
  }

  /** Commercial price level (log-normal, median 1) and chargemaster level of a facility or practice. */
  private priceLevel(key: 'facility' | 'practice', index: number): { factor: number; charge: number } {
    const cache = this.priceLevels[key]
    let level = cache.get(index)
    if (!level) {
      const rng = rngFor(this.seed, PRICE_LEVEL_STREAMS[key], index)
      level = { factor: rng.lognormal(key === 'practice' ? 0.2 : FACILITY_PRICE_SIGMA), charge: rng.lognormal(0.3) }
      if (cache.size > 50_000) cache.clear()
      cache.set(index, level)
    }
    return level
  }
  /** Memoised price levels by facility id and by practice (provider index); a level is a pure function of both. */
  private readonly priceLevels = {
    facility: new Map<number, { factor: number; charge: number }>(),
    practice: new Map<number, { factor: number; charge: number }>(),
  }

  /**
   * Pharmacy fills (PHARMX) of one patient over the last PHARMACY_WINDOW_DAYS: for each diagnosed condition,
   * with the condition's treated share, one maintenance drug (CONDITION_DRUGS: a brand, or one of its generics for
   * GENERIC_DISPENSING_SHARE of the patients on it) allowed at the
   * patient's age, prescribed by the clinician managing the condition when that clinician may prescribe
   * (else the primary-care clinician), refilled every days_per_fill days, a little late at times and now and
   * then skipped (adherence). Copays by plan tier (generic or brand).
   */
  pharmacyOfPatient(p: PatientRow): PharmacyClaimRow[] {
    const rng = rngFor(this.seed, 'pharmacy', p.id)
    const team = this.careTeam(p)
    const rows: PharmacyClaimRow[] = []
    const taking = new Set<string>()
    const ageAtStart = p.age - 1
    for (const key of p.conditions) {
      const plan = CONDITION_DRUGS[key]
      if (!plan || !rng.chance(plan.treated_share)) continue
      const allowed = plan.drugs.filter(([k]) => (DRUG_BY_KEY.get(k)?.min_age ?? 0) <= ageAtStart)
      if (allowed.length === 0) continue
      const drug = DRUG_BY_KEY.get(new WeightedTable(allowed).pick(rng))
      // one product per molecule: a patient with asthma and COPD takes Ventolin or its generic, not both
      const therapy = drug ? (THERAPY_OF.get(drug.key) ?? drug.key) : ''
      if (!drug || taking.has(therapy)) continue
      taking.add(therapy)
      const pcpNow = team.pcp[team.pcp.length - 1]!
      const prescriberNpi = this.providerNpi(this.prescriberFor(rng, p, team.managers.get(key)?.at(-1) ?? pcpNow, pcpNow))
      const supply = drug.days_per_fill
      // a 28-day pen pack is a month's supply, as the 30-day packages are
      const months = supply === 28 ? 1 : supply / 30
      const units = drug.units_per_30_days * months
      for (
        let day = rng.int(0, supply - 1);
        day < PHARMACY_WINDOW_DAYS && rows.length < 100;
        day += supply + (rng.chance(0.3) ? rng.int(1, 10) : 0)
      ) {
        if (!rng.chance(FILL_ADHERENCE)) continue
        const fill = REF - (PHARMACY_WINDOW_DAYS - 1 - day) * DAY
        if (fill < Date.parse(`${p.birth_date}T00:00:00Z`)) continue
        const list = round2(drug.list_price_30_days * months * rng.lognormal(0.05))
        const negotiated = round2(list * RX_NEGOTIATED[p.payer_type] * rng.lognormal(0.05))
        const copay = drug.generic ? p.plan.rx_generic_copay : p.plan.rx_brand_copay
        const patient = round2(p.plan.kind === 'uninsured' ? negotiated : Math.min(negotiated, copay * (supply === 90 ? 2.5 : 1)))
        rows.push({
          id: p.id * 100 + rows.length,
          patient_id: p.id,
          fill_date: isoDay(fill),
          prescriber_npi: prescriberNpi,
          facility_npi: null,
          ndc: drug.ndc,
          drug_name: drugName(drug),
          units,
          days_supply: supply,
          payer_type: p.payer_type,
          insurer_name: p.insurer_name,
          list_amount: list,
          negotiated_amount: negotiated,
          insurer_amount: round2(negotiated - patient),
          patient_amount: patient,
        })
      }
    }
    return rows
  }

  /**
   * Medical claims of one patient (MEDX) over claim_years, none before the day of birth: preventive visits by
   * age (the age-specific preventive code, Medicare wellness visits at 65+), problem visits, visits for each
   * diagnosed condition with its managing clinician (E/M levels at the published mix, new-patient codes on a
   * first visit, psychotherapy or physical therapy by the clinician's kind), emergency visits and inpatient
   * stays at published rates, deliveries and joint replacements. Office visits fall on weekdays (a few on
   * Saturdays). Allowed amounts follow Medicare fee levels and payer multiples; the patient's share follows
   * the plan (deductible, copays, coinsurance, $0 preventive care), in date order.
   */
  claimsOfPatient(p: PatientRow): ClaimBundle[] {
    const rng = rngFor(this.seed, 'claims', p.id)
    const team = this.careTeam(p)
    const windowStart = REF - (this.scale.claim_years * 365 - 1) * DAY
    const born = Date.parse(`${p.birth_date}T00:00:00Z`)
    const from = Math.max(windowStart, born)
    const span = Math.floor((REF - from) / DAY) + 1
    const exposure = span / 365
    const ageAt = (ms: number) => new Date(ms).getUTCFullYear() - p.birth_year
    const firstYear = new Date(windowStart).getUTCFullYear()
    const yearIndex = (ms: number) => Math.min(this.scale.claim_years - 1, Math.max(0, new Date(ms).getUTCFullYear() - firstYear))
    const pcpAt = (ms: number) => team.pcp[yearIndex(ms)] ?? team.pcp[0]!
    const anyDay = () => from + rng.int(0, span - 1) * DAY
    const weekday = (ms: number, floor = from) => {
      const dow = new Date(ms).getUTCDay()
      let out = ms
      if (dow === 0) out = ms + DAY
      else if (dow === 6 && !rng.chance(SATURDAY_OFFICE_SHARE * 7)) out = ms - DAY
      if (out > REF) out -= 2 * DAY
      if (out < floor) out = ms
      return out
    }
    const officeDay = () => weekday(anyDay())
    const visits: Visit[] = []
    const kindOf = (index: number) => this.kindOfProvider(index)
    /** A condition may be coded at a date only from its minimum age on. */
    const allowedAt = (key: string, ms: number) => ageAt(ms) >= (CONDITION_MIN_AGE[key] ?? 0)
    const other = (key: string, ms: number) => {
      const rest = p.conditions.filter((c) => c !== key && allowedAt(c, ms))
      return rest.length > 0 && rng.chance(0.4) ? [p.condition_codes[rng.pick(rest)] as string] : []
    }

    // preventive care: well-child schedule, yearly check-ups, Medicare wellness visits (codes set in date order below)
    for (let year = new Date(from).getUTCFullYear(); year <= REF_YEAR; year++) {
      const age = year - p.birth_year
      const wellChild = age <= 2 && (p.payer_type !== 'other' || rng.chance(0.25))
      const count = wellChild ? (age <= 0 ? 3 : 2) : age > 2 && rng.chance(preventiveRate(age, p.payer_type)) ? 1 : 0
      for (let k = 0; k < count; k++) {
        const yearStart = Math.max(from, Date.UTC(year, 0, 1))
        const yearEnd = Math.min(REF, Date.UTC(year, 11, 31))
        if (yearEnd < yearStart) continue
        const ms = weekday(yearStart + rng.int(0, Math.round((yearEnd - yearStart) / DAY)) * DAY, yearStart)
        const a = ageAt(ms)
        const lines: [string, number][] = [[PREVENTIVE_VISIT, 1]]
        if (a >= 18 && rng.chance(0.6))
          lines.push(
            ['36415', 1],
            ['80061', 1],
            ...(rng.chance(0.6) ? ([['80053', 1]] as [string, number][]) : []),
            ...(rng.chance(0.4) ? ([['85025', 1]] as [string, number][]) : []),
          )
        if (rng.chance(a < 18 ? 0.5 : 0.35)) lines.push(['90686', 1], [p.payer_type === 'medicare' ? 'G0008' : '90471', 1])
        visits.push({
          ms,
          provider: pcpAt(ms),
          facility: null,
          setting: 'office',
          kind: 'preventive',
          lines,
          dx: [a >= 18 ? (rng.chance(0.2) ? 'Z00.01' : 'Z00.00') : rng.chance(0.15) ? 'Z00.121' : 'Z00.129'],
        })
      }
    }

    // problem visits (acute illness, injuries, symptoms), mostly with the primary-care clinician
    const acute = rng.poisson((p.age < 18 ? 1.3 : p.age < 65 ? 1.0 : 1.6) * exposure)
    for (let k = 0; k < acute; k++) {
      const ms = officeDay()
      const own = rng.chance(0.85)
      const provider = own ? pcpAt(ms) : this.pickProvider(rng, p.state, p.age < 18 ? PEDIATRIC_CARE : PRIMARY_CARE)
      const dx = tableOf(p.age < 18 ? CHILD_ACUTE_DX : ADULT_ACUTE_DX).pick(rng)
      const lines: [string, number][] = [[OFFICE_VISIT, 1]]
      if (dx === 'N39.0') lines.push(['81003', 1])
      else if (p.age >= 18 && rng.chance(0.2)) lines.push(['36415', 1], [rng.pick(['85025', '80053', '80048', '84443']), 1])
      visits.push({
        ms,
        provider,
        facility: null,
        setting: 'office',
        kind: own ? 'primary_care' : 'specialist',
        lines,
        dx: [dx],
        ...(own ? {} : { newChance: 0.7 }),
      })
    }

    // visits for each diagnosed condition, from the age the condition may start
    for (const key of p.conditions) {
      const condition = CONDITION_BY_KEY.get(key)
      if (!condition) continue
      const condFrom = Math.max(from, Date.UTC(p.birth_year + (CONDITION_MIN_AGE[key] ?? 0), 0, 1))
      const condSpan = Math.floor((REF - condFrom) / DAY) + 1
      if (condSpan <= 0) continue
      const count = Math.max(1, rng.poisson((condition.visits_per_year * condSpan) / 365))
      const code = p.condition_codes[key] as string
      const ancillaries = condition.procedures.filter((c) => !NOT_ANCILLARY.test(c) && !['27447', '27130', '99223'].includes(c))
      for (let k = 0; k < count; k++) {
        const ms = weekday(condFrom + rng.int(0, condSpan - 1) * DAY, condFrom)
        const manager = team.managers.get(key)?.[yearIndex(ms)] ?? pcpAt(ms)
        const managerKind = kindOf(manager)
        let lines: [string, number][]
        if (BEHAVIORAL_KINDS.has(managerKind)) lines = [[BEHAVIORAL_VISIT, 1]]
        else if (managerKind === 'physical_therapist') lines = [[THERAPY_VISIT, 1]]
        else {
          lines = [[OFFICE_VISIT, 1]]
          if (ancillaries.length > 0 && rng.chance(0.45)) {
            const extra = rng.pick(ancillaries)
            if (FACILITY_ANCILLARY.has(extra)) {
              // imaging, echocardiograms and sleep studies on their own claim at a hospital or imaging centre
              const facility = rng.chance(0.6)
                ? this.hospitalFor(rng, p, false)
                : rng.pick(this.facilitiesIn(p.state, extra.startsWith('7') ? ['imaging', 'hospital'] : ['hospital']))
              visits.push({ ms, provider: manager, facility, setting: 'outpatient', kind: 'outpatient', lines: [[extra, 1]], dx: [code] })
            } else if (extra === 'J1745') lines.push(['96365', 1], ['J1745', rng.int(30, 50)])
            else if (extra === 'J0135') lines.push(['J0135', 2])
            else if (extra === 'J7613') lines.push(['J7613', rng.int(2, 3)])
            else lines.push(...(LAB_CODES.has(extra) ? ([['36415', 1]] as [string, number][]) : []), [extra, 1])
          }
        }
        visits.push({
          ms,
          provider: manager,
          facility: null,
          setting: 'office',
          kind: manager === pcpAt(ms) ? 'primary_care' : 'specialist',
          lines,
          dx: [code, ...other(key, ms)],
        })
      }
    }

    // emergency department visits (NHAMCS rate, by age, payer and conditions)
    const norms = this.norms
    const edRate = (ED_VISITS_PER_100 / 100) * (this.utilisationWeight(p, ED_RELATIVE, ED_PAYER_RELATIVE) / norms.ed)
    const edVisits = Math.min(8, rng.poisson(edRate * exposure))
    for (let k = 0; k < edVisits; k++) {
      const ms = anyDay()
      const facility = this.hospitalFor(rng, p, true)
      const provider = this.pickProvider(rng, p.state, EMERGENCY_MEDICINE)
      const exacerbation = (['copd', 'asthma', 'heart_failure'] as const).find(
        (c) => p.conditions.includes(c) && allowedAt(c, ms) && rng.chance(0.25),
      )
      const dx = exacerbation
        ? exacerbation === 'copd'
          ? 'J44.1'
          : exacerbation === 'asthma'
            ? 'J45.901'
            : (p.condition_codes[exacerbation] as string)
        : tableOf(p.age < 18 ? CHILD_ED_DX : ADULT_ED_DX).pick(rng)
      const lines: [string, number][] = [[tableOf(ED_LEVELS).pick(rng), 1]]
      for (const [extra, chance] of ED_ANCILLARIES) if (rng.chance(p.age < 18 ? chance / 2 : chance)) lines.push([extra, 1])
      visits.push({ ms, provider, facility, setting: 'emergency', kind: 'emergency', lines, dx: [dx, ...other(exacerbation ?? '', ms)] })
    }

    // inpatient medical stays (the stays left after deliveries and joint replacements)
    const medicalStays = Math.max(
      0,
      INPATIENT_STAYS_PER_100 / 100 - norms.births - (0.45 * (KNEE_REPLACEMENTS_PER_100K + HIP_REPLACEMENTS_PER_100K)) / 100_000,
    )
    const ipRate = medicalStays * (this.utilisationWeight(p, INPATIENT_RELATIVE, null) / norms.ip)
    const stays = Math.min(5, rng.poisson(ipRate * exposure))
    for (let k = 0; k < stays; k++) {
      const ms = anyDay()
      const facility = this.hospitalFor(rng, p, false)
      const provider = this.pickProvider(rng, p.state, ageAt(ms) < 18 ? PEDIATRICS : INTERNAL_MEDICINE)
      const los = 1 + rng.poisson(3.2)
      const cause = (['heart_failure', 'copd', 'type2_diabetes', 'ckd'] as const).find(
        (c) => p.conditions.includes(c) && allowedAt(c, ms) && rng.chance(0.3),
      )
      const dx = cause
        ? cause === 'copd'
          ? 'J44.1'
          : (p.condition_codes[cause] as string)
        : tableOf(p.age < 18 ? CHILD_IP_DX : ADULT_IP_DX).pick(rng)
      const lines: [string, number][] = [
        [rng.chance(0.6) ? '99223' : '99222', 1],
        ['80053', 1],
        ['85025', 1],
      ]
      if (los > 1) lines.push([rng.chance(0.7) ? '99232' : '99233', los - 1])
      visits.push({
        ms,
        provider,
        facility,
        setting: 'inpatient',
        kind: 'inpatient',
        lines,
        dx: [dx, ...other(cause ?? '', ms)],
        stayDays: los,
      })
    }

    // deliveries (NVSS birth rate by age; a third by caesarean)
    if (p.gender === 'F') {
      for (let year = new Date(from).getUTCFullYear(); year <= REF_YEAR; year++) {
        const a = year - p.birth_year
        const yearStart = Math.max(from, Date.UTC(year, 0, 1))
        const days = Math.round((Math.min(REF, Date.UTC(year, 11, 31)) - yearStart) / DAY) + 1
        if (days <= 0 || !rng.chance(birthRate(a) * (days / 365))) continue
        const cesarean = rng.chance(CESAREAN_SHARE)
        visits.push({
          ms: yearStart + rng.int(0, days - 1) * DAY,
          provider: this.pickProvider(rng, p.state, OBSTETRICS),
          facility: this.hospitalFor(rng, p, false),
          setting: 'inpatient',
          kind: 'inpatient',
          lines: [[cesarean ? '59510' : '59400', 1]],
          dx: [cesarean ? 'O82' : 'O80'],
          stayDays: cesarean ? 3 : 2,
        })
      }
    }

    // joint replacements: at most one knee and one hip per patient (AJRR rates, coded osteoarthritis at 40+)
    if (p.age >= 40 && p.conditions.includes('osteoarthritis')) {
      for (const [code, per100k, dxs] of [
        ['27447', KNEE_REPLACEMENTS_PER_100K, ['M17.11', 'M17.12', 'M17.0']],
        ['27130', HIP_REPLACEMENTS_PER_100K, ['M16.11', 'M16.12']],
      ] as const) {
        const yearly = per100k / 100_000 / norms.jointEligible
        if (!rng.chance(Math.min(0.9, yearly * exposure))) continue
        const where = tableOf(JOINT_SETTING).pick(rng)
        const asc = where === 'asc' ? this.facilitiesIn(p.state, ['ambulatory_surgery']) : []
        const facility = asc.length > 0 ? rng.pick(asc) : this.hospitalFor(rng, p, false)
        const own = p.condition_codes.osteoarthritis as string
        const los = where === 'inpatient' ? 1 + rng.int(0, 2) : 1
        visits.push({
          ms: officeDay(),
          provider: this.pickProvider(rng, p.state, ORTHOPAEDICS),
          facility,
          setting: where === 'asc' && asc.length > 0 ? 'asc' : where === 'inpatient' ? 'inpatient' : 'outpatient',
          kind: where === 'inpatient' ? 'inpatient' : 'outpatient',
          lines: [[code, 1], ...(los > 1 ? ([['99232', los - 1]] as [string, number][]) : [])],
          dx: [(dxs as readonly string[]).some((d) => d.slice(0, 3) === own.slice(0, 3)) ? own : rng.pick(dxs)],
          stayDays: los,
        })
      }
    }

    // visit codes in date order: the first visit with a clinician may be a new-patient visit (an intake, an
    // evaluation); preventive codes by age at service, one Medicare welcome-type wellness visit at most
    visits.sort((a, b) => a.ms - b.ms)
    const seen = new Set<number>()
    let wellness = false
    for (const v of visits) {
      const head = v.lines[0]?.[0]
      if (!head?.startsWith('@')) continue
      const first = !seen.has(v.provider)
      seen.add(v.provider)
      const isNew = first && (team.newAtFirstVisit.has(v.provider) || (v.newChance !== undefined && rng.chance(v.newChance)))
      let replacement: [string, number][]
      if (head === PREVENTIVE_VISIT) {
        const a = ageAt(v.ms)
        const codes = PREVENTIVE_CODES.find(([lo, hi]) => a >= lo && a <= hi) ?? PREVENTIVE_CODES[PREVENTIVE_CODES.length - 1]!
        replacement = [
          [p.payer_type === 'medicare' && a >= 65 ? (!wellness && rng.chance(0.12) ? 'G0438' : 'G0439') : isNew ? codes[2] : codes[3], 1],
        ]
        if (p.payer_type === 'medicare' && a >= 65) wellness = true
      } else if (head === BEHAVIORAL_VISIT)
        replacement = [[first && (isNew || rng.chance(0.5)) ? '90791' : tableOf(PSYCHOTHERAPY).pick(rng), 1]]
      else if (head === THERAPY_VISIT)
        replacement = first
          ? [[rng.chance(0.6) ? '97161' : '97162', 1]]
          : [['97110', rng.int(2, 3)], ...(rng.chance(0.6) ? ([['97140', 1]] as [string, number][]) : [])]
      else replacement = [[tableOf(isNew ? EM_NEW : EM_ESTABLISHED).pick(rng), 1]]
      v.lines.splice(0, 1, ...replacement)
    }

    // price and share in date order (deductibles accumulate over the calendar year)
    const bundles: ClaimBundle[] = []
    let sharing: CostSharingState = { year: 0, deductible_met: 0, out_of_pocket: 0 }
    for (const [n, v] of visits.slice(0, 999).entries()) {
      const id = p.id * 1000 + n
      const renderingNpi = this.providerNpi(v.provider)
      const year = new Date(v.ms).getUTCFullYear()
      if (sharing.year !== year) sharing = { year, deductible_met: 0, out_of_pocket: 0 }
      const level = v.facility ? this.priceLevel('facility', v.facility.id) : this.priceLevel('practice', v.provider)
      const priced = v.lines.map(([code, units]) => {
        const proc = this.procedures.get(code)
        const one = priceOf(
          rng,
          code,
          proc?.base_price ?? 100,
          p.payer_type,
          p.insurer_name,
          v.setting,
          dispersed(level.factor, proc?.category),
          level.charge,
        )
        return {
          code,
          units,
          list: round2(one.list * units),
          allowed: round2(one.allowed * units),
          facilityInclusive: FACILITY_INCLUSIVE.has(proc?.category ?? ''),
        }
      })
      const shares = patientShares(p.plan, sharing, v.kind, priced, v.stayDays)
      const lines: ClaimProcedureRow[] = priced.map((l, li) => ({
        claim_id: id,
        patient_id: p.id,
        line_number: li + 1,
        procedure_code: l.code,
        units: l.units,
        list_amount: l.list,
        negotiated_amount: l.allowed,
        insurer_amount: round2(l.allowed - (shares[li] ?? 0)),
        patient_amount: shares[li] ?? 0,
      }))
      const sum = (f: (l: ClaimProcedureRow) => number) => round2(lines.reduce((s, l) => s + f(l), 0))
      bundles.push({
        claim: {
          id,
          patient_id: p.id,
          service_date: isoDay(v.ms),
          rendering_npi: renderingNpi,
          facility_npi: v.facility?.npi ?? null,
          payer_type: p.payer_type,
          insurer_name: p.insurer_name,
          place_of_service: v.setting === 'asc' ? 'outpatient' : v.setting,
          list_amount: sum((l) => l.list_amount),
          negotiated_amount: sum((l) => l.negotiated_amount),
          insurer_amount: sum((l) => l.insurer_amount),
          patient_amount: sum((l) => l.patient_amount),
        },
        diagnoses: [...new Set(v.dx)].map((code, s) => ({ claim_id: id, patient_id: p.id, sequence: s + 1, icd10_code: code })),
        procedures: lines,
      })
    }
    return bundles
  }

  async *claims(from = 0, to = this.scale.patients): AsyncGenerator<ClaimBundle> {
    for (let i = from; i < to; i++) for (const b of this.claimsOfPatient(this.patient(i))) yield b
  }

  // ---------- snakebites and antivenom ----------
  get snakebiteCaseCount(): number {
    return Math.round(SNAKEBITES_PER_YEAR * this.scale.snakebite_fraction * this.scale.snakebite_years)
  }
  /**
   * Patient indices by state (ages 1+ at the reference date), scanned once from the patients' first draws: the
   * people a snakebite can happen to.
   */
  private get residentsByState(): Map<string, number[]> {
    if (this.residentsCache) return this.residentsCache
    const byState = new Map<string, number[]>()
    for (let i = 0; i < this.scale.patients; i++) {
      const { age, z } = this.home(rngFor(this.seed, 'patient', i))
      if (age < 1 || SNAKEBITE_STATE_SHARE[z.state] === undefined) continue
      let list = byState.get(z.state)
      if (!list) byState.set(z.state, (list = []))
      list.push(i)
    }
    this.residentsCache = byState
    return byState
  }
  private residentsCache: Map<string, number[]> | undefined

  /**
   * The person bitten in case i: a resident of the bite's state from the sampled population (so a bite is one
   * more claim of someone with a whole medical history, not an extra patient), drawn with the published skew
   * towards men (~70 % of bites) and working ages; alive at least a year before the bite. States without
   * sampled residents (tiny scales) take a resident of the snakebite states.
   */
  private snakebiteVictim(rng: Rng, state: string, year: number): PatientRow {
    const residents = this.residentsByState
    let pool = residents.get(state) ?? []
    if (pool.length === 0) pool = [...residents.values()].flat()
    if (pool.length === 0) throw new Error('snakebites need sampled patients in the snakebite states')
    let chosen: PatientRow | undefined
    for (let attempt = 0; attempt < 12; attempt++) {
      const candidate = this.patient(rng.pick(pool))
      const ageAtBite = year - candidate.birth_year
      if (ageAtBite < 1) continue
      chosen = candidate
      const weight = (candidate.gender === 'M' ? 1 : 0.43) * (ageAtBite < 6 || ageAtBite > 80 ? 0.35 : 1)
      if (rng.chance(weight)) break
    }
    // every resident in the pool is 1+ at the reference date, so the oldest possible bite year still fits one
    return chosen ?? this.patient(pool[0] as number)
  }

  /** One envenomation: the patient bitten (an existing one), the emergency claim (with antivenom lines) and the case row. */
  snakebite(i: number): { patient: PatientRow; claim: ClaimBundle; case: SnakebiteCaseRow; pharmacy: PharmacyClaimRow | null } {
    const rng = rngFor(this.seed, 'snakebite', i)
    const pickedState = SNAKEBITE_STATE_TABLE.pick(rng)
    const month = new WeightedTable([
      [4, 8],
      [5, 14],
      [6, 17],
      [7, 18],
      [8, 15],
      [9, 11],
      [10, 7],
      [3, 4],
      [11, 3],
      [1, 1],
      [2, 1],
      [12, 1],
    ] as const).pick(rng)
    let year = Number(REFERENCE_DATE.slice(0, 4)) - rng.int(0, this.scale.snakebite_years - 1)
    const patient = this.snakebiteVictim(rng, pickedState, year)
    // a bite needs the patient born: at least a year old (only matters for a fallback pick)
    year = Math.max(year, patient.birth_year + 1)
    const date = `${year}-${String(month).padStart(2, '0')}-${String(rng.int(1, 28)).padStart(2, '0')}`
    const z: { zip: string; state: string; county_fips: string | null } = {
      zip: patient.zip_code,
      state: patient.state,
      county_fips: patient.county_fips,
    }
    const payer = patient.payer_type
    const region = SNAKE_REGION[z.state] ?? 'midwest'
    const hospitals = (this.hospitalsByState.get(z.state) ?? []).filter((h) => h.emergency_services)
    const pool = hospitals.length > 0 ? hospitals : this.facilities.filter((f) => f.emergency_services)
    const near = pool.filter((h) => h.county_fips === z.county_fips)
    const facility = rng.pick(near.length > 0 && rng.chance(0.6) ? near : pool)
    const providerIndex = this.pickProvider(rng, z.state, EMERGENCY_AND_TOXICOLOGY)
    const provider = this.provider(providerIndex)
    const treated = rng.chance(ANTIVENOM_TREATED_SHARE)
    const product = treated ? (rng.chance(CROFAB_SHARE) ? 'crofab' : 'anavip') : null
    const units =
      product === 'crofab'
        ? rng.int(4, 6) + (rng.chance(0.6) ? 6 : 0) + (rng.chance(0.2) ? rng.int(2, 6) : 0)
        : product === 'anavip'
          ? 10 + (rng.chance(0.25) ? 10 : 0) + (rng.chance(0.3) ? 4 : 0)
          : 0
    // the species by the state's snakes (no coral snakes outside their range): T63.01 rattlesnake, T63.02 coral
    // snake, T63.06 copperhead/cottonmouth, T63.00 unspecified, T63.09 other (captive exotics)
    const code = tableOf(SNAKE_CODES_BY_REGION[region] ?? SNAKEBITE_CODES).pick(rng)
    const claimId = -(i + 1) // negative ids keep snakebite claims apart from population claims
    const codes: [string, number][] = [
      ['99285', 1],
      ...(product
        ? ([
            ['96365', 1],
            [product === 'crofab' ? 'J0840' : 'J0841', units],
          ] as [string, number][])
        : [['99283', 1] as [string, number]]),
    ]
    const level = this.priceLevel('facility', facility.id)
    const priced = codes.map(([c, u]) => {
      const one = priceOf(
        rng,
        c,
        this.procedures.get(c)?.base_price ?? 100,
        payer,
        patient.insurer_name,
        'emergency',
        dispersed(level.factor, this.procedures.get(c)?.category),
        level.charge,
      )
      return { code: c, units: u, list: round2(one.list * u), allowed: round2(one.allowed * u), facilityInclusive: false }
    })
    const shares = patientShares(patient.plan, { year, deductible_met: 0, out_of_pocket: 0 }, 'emergency', priced)
    const lines: ClaimProcedureRow[] = priced.map((l, li) => ({
      claim_id: claimId,
      patient_id: patient.id,
      line_number: li + 1,
      procedure_code: l.code,
      units: l.units,
      list_amount: l.list,
      negotiated_amount: l.allowed,
      insurer_amount: round2(l.allowed - (shares[li] ?? 0)),
      patient_amount: shares[li] ?? 0,
    }))
    const sum = (f: (l: ClaimProcedureRow) => number) => round2(lines.reduce((s, l) => s + f(l), 0))
    const claim: ClaimBundle = {
      claim: {
        id: claimId,
        patient_id: patient.id,
        service_date: date,
        rendering_npi: provider.npi,
        facility_npi: facility.npi,
        payer_type: payer,
        insurer_name: patient.insurer_name,
        place_of_service: 'emergency',
        list_amount: sum((l) => l.list_amount),
        negotiated_amount: sum((l) => l.negotiated_amount),
        insurer_amount: sum((l) => l.insurer_amount),
        patient_amount: sum((l) => l.patient_amount),
      },
      diagnoses: [{ claim_id: claimId, patient_id: patient.id, sequence: 1, icd10_code: code }],
      procedures: lines,
    }
    const drug = product ? ANTIVENOM_PRODUCTS.find((p) => p.key === product) : undefined
    const drugLine = lines.find((l) => l.procedure_code.startsWith('J08'))
    return {
      patient,
      claim,
      case: {
        id: i + 1,
        patient_id: patient.id,
        claim_id: claimId,
        facility_id: facility.id,
        provider_npi: provider.npi,
        event_date: date,
        state: z.state,
        county_fips: z.county_fips,
        zip_code: z.zip,
        icd10_code: code,
        antivenom: product,
        units_used: units,
      },
      // negative ids keep antivenom lines apart from the population's fills (patient id × 100 + n). The line
      // records the product's NDC and vials given; the antivenom is paid on the medical claim (J0840/J0841), so
      // its amounts are zero here and spend counts once.
      pharmacy:
        drug && drugLine
          ? {
              id: -(i + 1),
              patient_id: patient.id,
              fill_date: date,
              prescriber_npi: provider.npi,
              facility_npi: facility.npi,
              ndc: drug.ndcs[0] as string,
              drug_name: drugName(drug),
              units,
              days_supply: null,
              payer_type: payer,
              insurer_name: patient.insurer_name,
              list_amount: 0,
              negotiated_amount: 0,
              insurer_amount: 0,
              patient_amount: 0,
            }
          : null,
    }
  }

  async *snakebites(): AsyncGenerator<ReturnType<SyntheticDataset['snakebite']>> {
    for (let i = 0; i < this.snakebiteCaseCount; i++) yield this.snakebite(i)
  }

  /**
   * Quarterly antivenom purchases per hospital: what its cases used, scaled by a per-hospital stocking habit
   * (0.6-1.6×) so usage-versus-buying gaps exist, plus a minimum stock for emergency departments in snake states.
   */
  antivenomPurchases(): AntivenomPurchaseRow[] {
    const used = new Map<string, number>()
    for (let i = 0; i < this.snakebiteCaseCount; i++) {
      const c = this.snakebite(i).case
      if (!c.antivenom) continue
      const key = `${c.facility_id}|${c.antivenom}|${c.event_date.slice(0, 4)}`
      used.set(key, (used.get(key) ?? 0) + c.units_used)
    }
    const rows: AntivenomPurchaseRow[] = []
    const endYear = Number(REFERENCE_DATE.slice(0, 4))
    const treating = new Set([...used.keys()].map((k) => Number(k.split('|')[0])))
    for (const f of this.facilities) {
      // a hospital that gives antivenom buys it, wherever it is (Delaware's one treating hospital bought none)
      if (!f.emergency_services || ((SNAKEBITE_STATE_SHARE[f.state] ?? 0) < 0.5 && !treating.has(f.id))) continue
      const rng = rngFor(this.seed, 'antivenom-purchases', f.id)
      const habit = 0.6 + rng.next()
      for (const product of ANTIVENOM_PRODUCTS) {
        for (let y = endYear - this.scale.snakebite_years + 1; y <= endYear; y++) {
          const need = used.get(`${f.id}|${product.key}|${y}`) ?? 0
          const stock = product.key === 'crofab' && rng.chance(0.5) ? 6 : 0
          const total = Math.round(need * habit) + stock
          if (total === 0) continue
          for (let q = 0; q < 4; q++) {
            const units = Math.round(total / 4 + (q === 3 ? total - 4 * Math.round(total / 4) : 0))
            if (units <= 0) continue
            rows.push({
              id: rows.length + 1,
              facility_id: f.id,
              product: product.key,
              ndc: product.ndcs[0] as string,
              purchase_date: `${y}-${String(q * 3 + 2).padStart(2, '0')}-15`,
              units,
              amount: round2(units * product.price_per_vial),
            })
          }
        }
      }
    }
    return rows
  }

  // ---------- facility price lists ----------
  /**
   * Price list of one facility: per procedure, a cash row and one row per payer (CMS v3 shape). Gross charges
   * are chargemaster markups of the Medicare fee; negotiated rates are Medicare × the facility type's
   * commercial multiple × the facility's price level × a per-payer factor, so every payer and code differs and
   * prices spread across facilities as published (Cooper et al. 2019). Surgery centres and imaging centres list
   * outpatient services only; percent-of-charges rows carry their percentage.
   */
  facilityPrices(f: FacilityRow): FacilityPriceRow[] {
    const rng = rngFor(this.seed, 'prices', f.id)
    const all = [...this.procedures.values()].filter((p) =>
      f.facility_type === 'imaging'
        ? p.category === 'imaging'
        : f.facility_type === 'ambulatory_surgery'
          ? p.category === 'surgery' || p.category === 'endoscopy'
          : f.facility_type === 'urgent_care' || f.facility_type === 'clinic'
            ? ['office_visit', 'lab', 'preventive', 'vaccine'].includes(p.category)
            : true,
    )
    const chosen = new Set<string>()
    const want = Math.min(all.length, this.scale.priced_procedures_per_facility)
    while (chosen.size < want) chosen.add(rng.pick(all).code)
    if ((f.facility_type === 'hospital' || f.facility_type === 'critical_access') && f.emergency_services)
      ['J0840', 'J0841', '99285'].forEach((c) => chosen.add(c))
    // the three largest national payers plus up to three plans local to the facility's state
    const byWeight = INSURERS.filter((i) => i.weight > 0 && i.kind !== 'military').sort((a, b) => b.weight - a.weight)
    const payers = [...byWeight.filter((i) => !i.states).slice(0, 3), ...byWeight.filter((i) => i.states?.includes(f.state)).slice(0, 3)]
    const payerFactors = payers.map(() => rng.lognormal(0.25))
    const level = this.priceLevel('facility', f.id)
    const hospital = f.facility_type === 'hospital' || f.facility_type === 'critical_access'
    const multiple =
      f.facility_type === 'ambulatory_surgery'
        ? COMMERCIAL_MULTIPLE.asc
        : f.facility_type === 'imaging'
          ? COMMERCIAL_MULTIPLE.professional
          : COMMERCIAL_MULTIPLE.hospital
    const rows: FacilityPriceRow[] = []
    for (const code of [...chosen].sort()) {
      const p = this.procedures.get(code)
      if (!p) continue
      const fee = medicareFee(code, p.base_price)
      const drug = isDrugCode(code)
      const gross = round2(fee * (hospital ? CHARGE_MARKUP.hospital : 2.5) * level.charge * rng.lognormal(0.1))
      const cash = round2(gross * (0.35 + rng.next() * 0.25))
      const setting: FacilityPriceRow['setting'] = !hospital
        ? 'outpatient'
        : p.category === 'hospital' || p.category === 'maternity'
          ? 'inpatient'
          : code === '27447' || code === '27130' || p.category === 'drug' || p.category === 'emergency'
            ? 'both'
            : 'outpatient'
      rows.push({
        facility_id: f.id,
        procedure_code: code,
        description: p.description,
        setting,
        payer_name: null,
        plan_name: null,
        gross_charge: gross,
        discounted_cash: cash,
        negotiated_dollar: null,
        negotiated_percentage: null,
        methodology: 'fee schedule',
        median_amount: null,
        p10_amount: null,
        p90_amount: null,
      })
      payers.forEach((payer, k) => {
        let negotiated =
          fee *
          (drug ? COMMERCIAL_MULTIPLE.drug : multiple * dispersed(level.factor, p.category) * (payerFactors[k] ?? 1)) *
          rng.lognormal(0.05)
        if (drug) negotiated = Math.max(negotiated, fee)
        negotiated = round2(Math.min(negotiated, gross))
        const percentOfCharges = !drug && rng.chance(0.15)
        rows.push({
          facility_id: f.id,
          procedure_code: code,
          description: p.description,
          setting,
          payer_name: payer.name,
          plan_name: rng.pick(['PPO', 'HMO', 'EPO', 'POS']),
          gross_charge: gross,
          discounted_cash: cash,
          negotiated_dollar: percentOfCharges ? null : negotiated,
          negotiated_percentage: percentOfCharges ? Math.round((negotiated / gross) * 100_000) / 1000 : null,
          methodology: percentOfCharges
            ? 'percent of total billed charges'
            : p.category === 'surgery' || p.category === 'maternity'
              ? 'case rate'
              : 'fee schedule',
          // v3: allowed-amount statistics are reported when the rate is not a dollar amount
          median_amount: percentOfCharges ? negotiated : null,
          p10_amount: percentOfCharges ? round2(negotiated * (0.6 + rng.next() * 0.2)) : null,
          p90_amount: percentOfCharges ? round2(negotiated * (1.25 + rng.next() * 0.35)) : null,
        })
      })
    }
    return rows
  }

  async *prices(): AsyncGenerator<FacilityPriceRow> {
    // Price Check compares hospitals, surgery centres and imaging centres; clinics publish no price files.
    for (const f of this.facilities)
      if (f.facility_type !== 'urgent_care' && f.facility_type !== 'clinic') for (const row of this.facilityPrices(f)) yield row
  }

  // ---------- sales territories ----------
  /** Territories: the counties of each state split west to east into groups of about 8 million people. */
  salesTerritories(): SalesTerritoryRow[] {
    const counties = loadCountyGeometries()
    const rows: SalesTerritoryRow[] = []
    for (const st of STATES) {
      if (!st.population_2023) continue
      const list = counties
        .filter((c) => c.state_fips === st.fips)
        .map((c) => {
          let sum = 0
          let n = 0
          for (const poly of c.geometry.coordinates)
            for (const [x = 0] of poly[0] ?? []) {
              sum += x
              n++
            }
          return { fips: c.fips, x: n ? sum / n : 0 }
        })
        .sort((a, b) => a.x - b.x || (a.fips < b.fips ? -1 : 1))
      const parts = Math.max(1, Math.ceil(st.population_2023 / 8_000_000))
      const labels =
        parts === 1
          ? ['']
          : parts === 2
            ? [' West', ' East']
            : parts === 3
              ? [' West', ' Central', ' East']
              : Array.from({ length: parts }, (_, k) => ` ${k + 1}`)
      for (let k = 0; k < parts; k++) {
        const slice = list.slice(Math.floor((k * list.length) / parts), Math.floor(((k + 1) * list.length) / parts))
        rows.push({ id: rows.length + 1, name: `${st.name}${labels[k] ?? ''}`, state: st.abbr, county_fips: slice.map((c) => c.fips) })
      }
    }
    return rows
  }
}
