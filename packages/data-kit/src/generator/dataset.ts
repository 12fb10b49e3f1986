import { makeNpi } from '../npi.ts'
import {
  ANTIVENOM_PRODUCTS,
  CONDITION_DRUGS,
  INSURERS,
  MAINTENANCE_DRUGS,
  procedureCodes,
  specialties,
  type ProcedureCode,
  type Specialty,
} from '../reference/index.ts'
import { loadCountyGeometries, loadZipRows, type ZipRow } from '../reference/geo.ts'
import type { ProviderKind } from '../reference/provider-kinds.ts'
import { STATE_BY_ABBR, STATES } from '../reference/states.ts'
import {
  AGE_BANDS,
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
  NEGOTIATED_RATIO,
  PATIENT_SHARE,
  PAYER_MIX,
  PRIMARY_CARE,
  PROVIDER_MIX_FULL,
  SNAKEBITE_CODES,
  SNAKEBITE_STATE_SHARE,
  SNAKEBITES_PER_YEAR,
  SYSTEM_AFFILIATED_SHARE,
  TAXONOMY_WEIGHTS,
  type Condition,
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
  SYSTEM_NAME_SUFFIXES,
  SYSTEM_NAME_WORDS,
} from './names.ts'
import { hash32, rngFor, WeightedTable, type Rng } from './prng.ts'
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
  conditions: string[]
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
  sequence: number
  icd10_code: string
}
export interface ClaimProcedureRow {
  claim_id: number
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
  /** County populations (e.g. parsed from the Census county file) to weight ZIPs; otherwise ZIPs of a state weigh the same. */
  countyPopulation?: ReadonlyMap<string, number>
}

interface ProviderCore {
  kind: ClinicianKind
  taxonomy: string
  zipIndex: number
}

const round2 = (n: number) => Math.round(n * 100) / 100
/** A list amount split into the negotiated amount and what the insurer and the patient pay. */
function splitAmounts(rng: Rng, list: number, payer: PayerType) {
  const negotiated = round2(list * NEGOTIATED_RATIO[payer] * rng.lognormal(0.1))
  const patient = round2(negotiated * PATIENT_SHARE[payer])
  return { list, negotiated, insurer: round2(negotiated - patient), patient }
}
/** Pharmacy fills cover the last year up to the reference date. */
export const PHARMACY_WINDOW_DAYS = 365
/** Share of refills picked up when due. */
const FILL_ADHERENCE = 0.85
const DRUG_BY_KEY = new Map(MAINTENANCE_DRUGS.map((d) => [d.key, d]))
const drugName = (drug: { brand_name: string; generic_name: string }) => `${drug.brand_name} (${drug.generic_name})`
const DAY = 86_400_000
const REF = Date.parse(`${REFERENCE_DATE}T00:00:00Z`)
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)

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
    // Placement: 50 states + DC, population-weighted; within a state by county population when given, else evenly by ZCTA.
    this.zips = loadZipRows().filter((z) => z.is_zcta && STATE_BY_ABBR.get(z.state)?.population_2023)
    const perState = new Map<string, number[]>()
    this.zips.forEach((z, i) => {
      const list = perState.get(z.state) ?? []
      list.push(i)
      perState.set(z.state, list)
    })
    const zipsPerCounty = new Map<string, number>()
    for (const z of this.zips) if (z.county_fips) zipsPerCounty.set(z.county_fips, (zipsPerCounty.get(z.county_fips) ?? 0) + 1)
    const entries: [number, number][] = []
    for (const [state, list] of perState) {
      const pop = STATE_BY_ABBR.get(state)?.population_2023 ?? 0
      const weights = list.map((i) => {
        const z = this.zips[i] as ZipRow
        const countyPop = z.county_fips ? options.countyPopulation?.get(z.county_fips) : undefined
        return countyPop !== undefined && z.county_fips ? countyPop / (zipsPerCounty.get(z.county_fips) ?? 1) : pop / list.length
      })
      const sum = weights.reduce((a, b) => a + b, 0)
      const stateEntries = list.map((i, k) => [i, ((weights[k] ?? 0) / sum) * pop] as [number, number])
      entries.push(...stateEntries)
      this.zipTablesByState.set(state, new WeightedTable(stateEntries))
    }
    this.zipTable = new WeightedTable(entries)
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
  providerNpi(index: number): string {
    const body = (index * 48_271 + (hash32(this.seed, 'npi') % 100_000_000)) % 100_000_000
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
  private jitter(rng: Rng, z: ZipRow): [number, number] {
    // up to ~3 km around the ZCTA internal point
    const r = 0.027 * Math.sqrt(rng.next())
    const t = rng.next() * 2 * Math.PI
    return [
      Math.round((z.lat + r * Math.sin(t)) * 1e6) / 1e6,
      Math.round((z.lng + (r * Math.cos(t)) / Math.cos((z.lat * Math.PI) / 180)) * 1e6) / 1e6,
    ]
  }
  private phone(rng: Rng): string {
    // NANP-valid area code; 555-01xx lines are reserved for fictional use
    return `${rng.int(2, 9)}${rng.int(0, 8)}${rng.int(0, 9)}55501${String(rng.int(0, 99)).padStart(2, '0')}`
  }
  private street(rng: Rng): string {
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
    return `${rng.int(1, 9899)} ${rng.pick(names)} ${rng.pick(kinds)}`
  }

  // ---------- health systems and facilities ----------
  private healthSystem(i: number): HealthSystemRow {
    const rng = rngFor(this.seed, 'health-system', i)
    const z = this.placeZip(rng)
    const word = rng.pick(SYSTEM_NAME_WORDS)
    const name = `${rng.chance(0.4) ? z.city + ' ' : ''}${word} ${rng.pick(SYSTEM_NAME_SUFFIXES)}`
    return {
      id: i + 1,
      healthsystem_id: `HS${String(i + 1).padStart(5, '0')}`,
      name,
      control_type: rng.pick(['Private', 'Private', 'Private', 'Non-profit', 'Non-profit', 'Government', 'Church-operated']),
      state: z.state,
      city: z.city,
      website_domain: `${name.toLowerCase().replace(/[^a-z0-9]+/g, '')}.example.org`,
      phone_number: this.phone(rng),
    }
  }

  private buildFacilities(): FacilityRow[] {
    const systemsByState = new Map<string, HealthSystemRow[]>()
    for (const s of this.healthSystems) systemsByState.set(s.state, [...(systemsByState.get(s.state) ?? []), s])
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
        const system = affiliated
          ? local.length > 0 && rng.chance(0.85)
            ? rng.pick(local)
            : this.healthSystems.length > 0
              ? rng.pick(this.healthSystems)
              : undefined
          : undefined
        const suffixes = FACILITY_SUFFIXES[type] ?? ['Center']
        const base =
          system && rng.chance(0.5)
            ? system.name.replace(/ (Health System|Health|Healthcare|Medical Group|Health Partners|Regional Health|Health Network)$/, '')
            : `${z.city}${rng.chance(0.3) ? ' ' + rng.pick(SYSTEM_NAME_WORDS) : ''}`
        rows.push({
          id: index + 1,
          npi: this.facilityNpi(index),
          name: `${base} ${rng.pick(suffixes)}`,
          facility_type: type,
          hco_compile_level_1: FACILITY_LEVEL_1[type],
          taxonomy_code: FACILITY_TAXONOMY[type],
          health_system_id: system?.id ?? null,
          address_line_1: this.street(rng),
          city: z.city,
          state: z.state,
          zip_code: z.zip,
          county_fips: z.county_fips,
          latitude: lat,
          longitude: lng,
          phone_number: this.phone(rng),
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
    const zipIndex = this.zipTable.pick(rng)
    return { kind, taxonomy, zipIndex }
  }

  provider(i: number): ProviderRow {
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
      school = isDo ? rng.pick(MEDICAL_SCHOOLS.slice(OSTEOPATHIC_SCHOOL_FROM)) : rng.pick(MEDICAL_SCHOOLS.slice(0, OSTEOPATHIC_SCHOOL_FROM))
    } else title = new WeightedTable(CREDENTIALS[core.kind]).pick(rng)
    const trainingEnd = core.kind === 'physician' ? 31 + rng.int(0, 4) : 24 + rng.int(0, 6)
    const age = Math.min(78, Math.max(trainingEnd + 1, Math.round(rng.normal(core.kind === 'physician' ? 51 : 44, 10.5))))
    const years = age - trainingEnd
    const [lat, lng] = this.jitter(rng, z)
    const hospitals = this.hospitalsByState.get(z.state) ?? []
    const sameCounty = hospitals.filter((h) => h.county_fips === z.county_fips)
    const facility =
      rng.chance(0.72) && hospitals.length > 0 ? rng.pick(sameCounty.length > 0 && rng.chance(0.7) ? sameCounty : hospitals) : null
    const networks: Record<string, boolean> = {}
    for (const insurer of INSURERS) {
      if (insurer.states && !insurer.states.includes(z.state)) continue
      const p = insurer.kind === 'medicare' ? 0.9 : insurer.kind === 'medicaid' ? 0.6 : insurer.kind === 'military' ? 0.5 : 0.8
      networks[insurer.name] = rng.chance(p)
    }
    const verifiedDaysAgo = Math.floor(rng.next() ** 2 * 540)
    const specialty = this.specialtyByCode.get(core.taxonomy)
    const full = `${first}${middle ? ' ' + middle + '.' : ''} ${last}${title ? ', ' + title : ''}`
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
      phone_number: this.phone(rng),
      address_line_1: facility && rng.chance(0.5) ? facility.address_line_1 : this.street(rng),
      city: z.city,
      state: z.state,
      zip_code: z.zip,
      county_fips: z.county_fips,
      latitude: lat,
      longitude: lng,
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

  async *providers(from = 0, to = this.scale.providers): AsyncGenerator<ProviderRow> {
    for (let i = from; i < to; i++) yield this.provider(i)
  }

  /** Provider indexes by state and taxonomy, for picking the rendering provider of a claim (built once). */
  private providersIn(state: string, taxonomies: readonly string[]): Int32Array[] {
    if (!this.providerIndex) {
      const lists = new Map<string, Map<string, number[]>>()
      for (let i = 0; i < this.scale.providers; i++) {
        const core = this.providerCore(i)
        const st = (this.zips[core.zipIndex] as ZipRow).state
        let byTax = lists.get(st)
        if (!byTax) lists.set(st, (byTax = new Map()))
        const list = byTax.get(core.taxonomy)
        if (list) list.push(i)
        else byTax.set(core.taxonomy, [i])
      }
      this.providerIndex = new Map([...lists].map(([st, m]) => [st, new Map([...m].map(([t, l]) => [t, Int32Array.from(l)]))]))
    }
    const byTax = this.providerIndex.get(state)
    return taxonomies.flatMap((t) => {
      const list = byTax?.get(t)
      return list && list.length > 0 ? [list] : []
    })
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
    let k = rng.int(0, total - 1)
    for (const l of lists) {
      if (k < l.length) return l[k] as number
      k -= l.length
    }
    return 0
  }

  // ---------- patients and claims ----------
  patient(i: number): PatientRow {
    const rng = rngFor(this.seed, 'patient', i)
    const band = new WeightedTable(AGE_BANDS.map((b) => [b, b[3]] as const)).pick(rng)
    const age = rng.int(band[1], band[2])
    const gender: 'M' | 'F' = rng.chance(0.505) ? 'F' : 'M'
    const z = this.placeZip(rng)
    const mix = PAYER_MIX[ageBand(age)]
    const payer = new WeightedTable(Object.entries(mix) as [PayerType, number][]).pick(rng)
    const conditions = CONDITIONS.filter((c) => rng.chance(c.prevalence[ageBand(age)])).map((c) => c.key)
    return {
      id: i + 1,
      age,
      birth_year: Number(REFERENCE_DATE.slice(0, 4)) - age,
      gender,
      zip_code: z.zip,
      state: z.state,
      county_fips: z.county_fips,
      payer_type: payer,
      insurer_name: this.insurerFor(rng, payer, z.state),
      conditions,
    }
  }

  async *patients(from = 0, to = this.scale.patients): AsyncGenerator<PatientRow> {
    for (let i = from; i < to; i++) yield this.patient(i)
  }

  private insurerFor(rng: Rng, payer: PayerType, state: string): string | null {
    if (payer === 'other') return rng.chance(0.3) ? 'TRICARE' : null
    const candidates = INSURERS.filter(
      (i) =>
        (!i.states || i.states.includes(state)) &&
        i.weight > 0 &&
        (payer === 'commercial'
          ? i.kind === 'commercial' || i.kind === 'blues'
          : i.kind === payer || (payer === 'medicare' && (i.kind === 'commercial' || i.kind === 'blues') && i.weight >= 3)),
    )
    if (payer === 'medicare' && rng.chance(0.52)) return 'Medicare'
    if (payer === 'medicaid' && rng.chance(0.3)) return 'Medicaid'
    if (candidates.length === 0) return payer === 'medicare' ? 'Medicare' : payer === 'medicaid' ? 'Medicaid' : null
    return new WeightedTable(candidates.map((c) => [c.name, c.weight || 1] as const)).pick(rng)
  }

  private priceLine(rng: Rng, code: string, payer: PayerType, facility: FacilityRow | null) {
    const base = this.procedures.get(code)?.base_price ?? 100
    const facilityFactor = facility ? 0.8 + (hash32(this.seed, 'price-factor', facility.id) / 4294967296) * 0.9 : 0.75
    return splitAmounts(rng, round2(base * facilityFactor * rng.lognormal(0.12)), payer)
  }

  /**
   * Pharmacy fills (PHARMX) of one patient over the last PHARMACY_WINDOW_DAYS: for each of the patient's
   * conditions, with the condition's treated share, one maintenance drug (CONDITION_DRUGS), prescribed by a
   * clinician of the condition's specialties in the patient's state and refilled every days_per_fill days,
   * a little late at times and now and then skipped (adherence).
   */
  pharmacyOfPatient(p: PatientRow): PharmacyClaimRow[] {
    const rng = rngFor(this.seed, 'pharmacy', p.id)
    const rows: PharmacyClaimRow[] = []
    const taking = new Set<string>()
    for (const key of p.conditions) {
      const plan = CONDITION_DRUGS[key]
      const condition = CONDITIONS.find((c) => c.key === key)
      if (!plan || !condition || !rng.chance(plan.treated_share)) continue
      const drug = DRUG_BY_KEY.get(new WeightedTable(plan.drugs).pick(rng))
      if (!drug || taking.has(drug.key)) continue
      taking.add(drug.key)
      const prescriber = this.provider(this.pickProvider(rng, p.state, condition.specialties))
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
        const price = splitAmounts(rng, round2(drug.list_price_30_days * months * rng.lognormal(0.05)), p.payer_type)
        rows.push({
          id: p.id * 100 + rows.length,
          patient_id: p.id,
          fill_date: isoDay(REF - (PHARMACY_WINDOW_DAYS - 1 - day) * DAY),
          prescriber_npi: prescriber.npi,
          facility_npi: null,
          ndc: drug.ndc,
          drug_name: drugName(drug),
          units,
          days_supply: supply,
          payer_type: p.payer_type,
          insurer_name: p.insurer_name,
          list_amount: price.list,
          negotiated_amount: price.negotiated,
          insurer_amount: price.insurer,
          patient_amount: price.patient,
        })
      }
    }
    return rows
  }

  /** Medical claims of one patient (MEDX): visits for each condition plus routine care, over claim_years. */
  claimsOfPatient(p: PatientRow): ClaimBundle[] {
    const rng = rngFor(this.seed, 'claims', p.id)
    const bundles: ClaimBundle[] = []
    const days = this.scale.claim_years * 365
    const visits: { condition: Condition | null; count: number }[] = [{ condition: null, count: rng.poisson(1.2 * this.scale.claim_years) }]
    for (const key of p.conditions) {
      const c = CONDITIONS.find((x) => x.key === key)
      if (c) visits.push({ condition: c, count: Math.max(1, rng.poisson(c.visits_per_year * this.scale.claim_years)) })
    }
    let n = 0
    for (const { condition, count } of visits) {
      for (let k = 0; k < count; k++) {
        const id = p.id * 1000 + n++
        const date = isoDay(REF - rng.int(0, days - 1) * DAY)
        const taxonomies = condition ? condition.specialties : p.age < 18 ? ['208000000X', '363LP0200X', '207Q00000X'] : PRIMARY_CARE
        const providerIndex = this.pickProvider(rng, p.state, taxonomies)
        const provider = this.provider(providerIndex)
        const procedures = condition
          ? [condition.procedures[0] as string, ...(rng.chance(0.6) ? [rng.pick(condition.procedures.slice(1))] : [])]
          : [p.age >= 65 && rng.chance(0.3) ? 'G0439' : rng.pick(['99213', '99214', '99396', '85025', '80053'])]
        const facility =
          provider.facility_id !== null && procedures.some((c) => (this.procedures.get(c)?.base_price ?? 0) > 1000)
            ? (this.facilities[provider.facility_id - 1] ?? null)
            : null
        const dx = condition ? [new WeightedTable(condition.icd10).pick(rng)] : [p.age >= 18 ? 'Z00.00' : 'Z00.129']
        const other = p.conditions.filter((c) => c !== condition?.key)
        if (other.length > 0 && rng.chance(0.4)) {
          const c2 = CONDITIONS.find((x) => x.key === rng.pick(other))
          if (c2) dx.push(new WeightedTable(c2.icd10).pick(rng))
        }
        const lines = [...new Set(procedures)].map((code, li) => {
          const price = this.priceLine(rng, code, p.payer_type, facility)
          return {
            claim_id: id,
            line_number: li + 1,
            procedure_code: code,
            units: 1,
            list_amount: price.list,
            negotiated_amount: price.negotiated,
            insurer_amount: price.insurer,
            patient_amount: price.patient,
          }
        })
        const sum = (f: (l: ClaimProcedureRow) => number) => round2(lines.reduce((s, l) => s + f(l), 0))
        bundles.push({
          claim: {
            id,
            patient_id: p.id,
            service_date: date,
            rendering_npi: provider.npi,
            facility_npi: facility?.npi ?? null,
            payer_type: p.payer_type,
            insurer_name: p.insurer_name,
            place_of_service: facility ? 'outpatient' : 'office',
            list_amount: sum((l) => l.list_amount),
            negotiated_amount: sum((l) => l.negotiated_amount),
            insurer_amount: sum((l) => l.insurer_amount),
            patient_amount: sum((l) => l.patient_amount),
          },
          diagnoses: [...new Set(dx)].map((code, s) => ({ claim_id: id, sequence: s + 1, icd10_code: code })),
          procedures: lines,
        })
      }
    }
    return bundles.sort((a, b) =>
      a.claim.service_date < b.claim.service_date ? -1 : a.claim.service_date > b.claim.service_date ? 1 : a.claim.id - b.claim.id,
    )
  }

  async *claims(from = 0, to = this.scale.patients): AsyncGenerator<ClaimBundle> {
    for (let i = from; i < to; i++) for (const b of this.claimsOfPatient(this.patient(i))) yield b
  }

  // ---------- snakebites and antivenom ----------
  get snakebiteCaseCount(): number {
    return Math.round(SNAKEBITES_PER_YEAR * this.scale.snakebite_fraction * this.scale.snakebite_years)
  }
  /** Snakebite patients are extra patients after the sampled population (ids patients+1 ...), so every case has one. */
  snakebitePatientId(caseIndex: number): number {
    return this.scale.patients + caseIndex + 1
  }

  /** One envenomation: its patient, the emergency claim (with antivenom lines) and the case row. */
  snakebite(i: number): { patient: PatientRow; claim: ClaimBundle; case: SnakebiteCaseRow; pharmacy: PharmacyClaimRow | null } {
    const rng = rngFor(this.seed, 'snakebite', i)
    const state = new WeightedTable(Object.entries(SNAKEBITE_STATE_SHARE)).pick(rng)
    const z = this.placeZip(rng, state)
    const age = Math.min(90, Math.max(2, Math.round(rng.normal(40, 18))))
    const payer = new WeightedTable(Object.entries(PAYER_MIX[ageBand(age)]) as [PayerType, number][]).pick(rng)
    // ~70% of bites happen to men; April-October peak
    const gender: 'M' | 'F' = rng.chance(0.7) ? 'M' : 'F'
    const year = Number(REFERENCE_DATE.slice(0, 4)) - rng.int(0, this.scale.snakebite_years - 1)
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
    const date = `${year}-${String(month).padStart(2, '0')}-${String(rng.int(1, 28)).padStart(2, '0')}`
    const patient: PatientRow = {
      id: this.snakebitePatientId(i),
      age,
      birth_year: year - age,
      gender,
      zip_code: z.zip,
      state: z.state,
      county_fips: z.county_fips,
      payer_type: payer,
      insurer_name: this.insurerFor(rng, payer, z.state),
      conditions: ['snake_envenomation'],
    }
    const hospitals = (this.hospitalsByState.get(z.state) ?? []).filter((h) => h.emergency_services)
    const pool = hospitals.length > 0 ? hospitals : this.facilities.filter((f) => f.emergency_services)
    const near = pool.filter((h) => h.county_fips === z.county_fips)
    const facility = rng.pick(near.length > 0 && rng.chance(0.6) ? near : pool)
    const providerIndex = this.pickProvider(rng, z.state, ['207P00000X', '207PT0002X'])
    const provider = this.provider(providerIndex)
    const treated = rng.chance(ANTIVENOM_TREATED_SHARE)
    const product = treated ? (rng.chance(CROFAB_SHARE) ? 'crofab' : 'anavip') : null
    const units =
      product === 'crofab'
        ? rng.int(4, 6) + (rng.chance(0.6) ? 6 : 0) + (rng.chance(0.2) ? rng.int(2, 6) : 0)
        : product === 'anavip'
          ? 10 + (rng.chance(0.25) ? 10 : 0) + (rng.chance(0.3) ? 4 : 0)
          : 0
    const code = new WeightedTable(SNAKEBITE_CODES).pick(rng)
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
    const lines = codes.map(([c, u], li) => {
      const price = this.priceLine(rng, c, payer, facility)
      const m = (x: number) => round2(x * u)
      return {
        claim_id: claimId,
        line_number: li + 1,
        procedure_code: c,
        units: u,
        list_amount: m(price.list),
        negotiated_amount: m(price.negotiated),
        insurer_amount: m(price.insurer),
        patient_amount: m(price.patient),
      }
    })
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
      diagnoses: [{ claim_id: claimId, sequence: 1, icd10_code: code }],
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
      // negative ids keep antivenom lines apart from the population's fills (patient id × 100 + n)
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
              list_amount: drugLine.list_amount,
              negotiated_amount: drugLine.negotiated_amount,
              insurer_amount: drugLine.insurer_amount,
              patient_amount: drugLine.patient_amount,
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
    for (const f of this.facilities) {
      if (!f.emergency_services || (SNAKEBITE_STATE_SHARE[f.state] ?? 0) < 0.5) continue
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
  /** Price list of one facility: per procedure, a cash row and one row per in-state payer (CMS v3 shape). */
  facilityPrices(f: FacilityRow): FacilityPriceRow[] {
    const rng = rngFor(this.seed, 'prices', f.id)
    const all = [...this.procedures.values()].filter((p) =>
      f.facility_type === 'imaging'
        ? p.category === 'imaging'
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
    const rows: FacilityPriceRow[] = []
    for (const code of [...chosen].sort()) {
      const p = this.procedures.get(code)
      if (!p) continue
      const factor = 0.8 + (hash32(this.seed, 'price-factor', f.id) / 4294967296) * 0.9
      const gross = round2(p.base_price * factor * rng.lognormal(0.1))
      const cash = round2(gross * (0.55 + rng.next() * 0.25))
      const setting = ['surgery', 'hospital', 'maternity'].includes(p.category)
        ? 'inpatient'
        : p.category === 'drug' || p.category === 'emergency'
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
        methodology: 'fee schedule',
        median_amount: null,
        p10_amount: null,
        p90_amount: null,
      })
      for (const payer of payers) {
        const negotiated = round2(gross * NEGOTIATED_RATIO.commercial * rng.lognormal(0.18))
        const percentOfCharges = rng.chance(0.15)
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
          methodology: percentOfCharges ? 'percent of total billed charges' : p.category === 'surgery' ? 'case rate' : 'fee schedule',
          // v3: allowed-amount statistics are reported when the rate is not a dollar amount
          median_amount: percentOfCharges ? negotiated : null,
          p10_amount: percentOfCharges ? round2(negotiated * 0.72) : null,
          p90_amount: percentOfCharges ? round2(negotiated * 1.35) : null,
        })
      }
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
