import { NOVA_DEFAULT_USE_CASE, type TerritoryName } from '@citrus/contracts'
import type pg from 'pg'
import { reweighEngine } from '../../lib/engine-budget.js'
import { timedBuild } from '../../lib/engine-stats.js'
import { derive, TOP_PRESCRIBER_RANK, type DerivedMetrics } from '../../services/nova/metrics.js'
import { resolveScope, type GeoInput } from '../../services/nova/scope.js'
import {
  affiliations,
  facilityCounts,
  hcpCountsAll,
  healthSystems,
  novaYears,
  payerCountsAll,
  providersByNpi,
  territories,
  territoryCountyList,
  topPrescriberRanks,
  allStates,
  type Affiliations,
  type FacilityFilter,
  type FacilityRow,
  type HcpCountRow,
  type HealthSystemRecord,
  type NovaYears,
  type ProviderRecord,
  type Scope,
} from '../../services/nova/queries.js'

/**
 * Everything Nova answers from, aggregated once per data version (docs/decisions/0054): the counts of every
 * active facility (37,500 envenomations at 4,661 facilities at the full scale), their payer mix, the counts of
 * every clinician at every facility, those clinicians' records, the health systems of the active facilities,
 * the clinicians affiliated with each facility, the national prescriber ranks, the states and the territories.
 * A request then scopes, groups, sorts, pages and writes its answer in memory; derived lists and written
 * answers are kept in `memo` with the data they were made from. While the whole data builds, a call's own rows
 * (NovaQuery) make a partial NovaData that the same functions answer from.
 */
export interface NovaData {
  version: string
  /**
   * false: the whole data of the version (the engine's index); true: a call's rows only, read from the database while
   * the index builds (NovaQuery), which hold everything that call reads and give the same answer
   */
  partial: boolean
  /** bytes held, estimated (novaDataBytes): the rows' at the build, plus the memo's as it fills */
  readonly bytes: number
  years: NovaYears
  year: number | null
  /** active facilities (a case or a purchase in the 5-year window), by id */
  rows: FacilityRow[]
  byId: Map<number, FacilityRow>
  byNpi: Map<string, FacilityRow>
  derived: Map<number, DerivedMetrics>
  /** national top prescribers: npi → rank */
  ranks: Map<string, number>
  /** the rows' estimated bytes (rowBytes) */
  rowBytes: number
  /** states with an outline (the national state map), by abbr */
  mapStates: { abbr: string; name: string }[]
  /** every state by upper-case abbr and lower-case name (scope resolution) */
  stateLookup: Map<string, { abbr: string; name: string }>
  /** the serb_crofab territories (the one antivenom use case), their counties and the territory of each county */
  territories: TerritoryName[]
  territoryCounties: Map<number, Set<string>>
  countyTerritory: Map<string, TerritoryName>
  /** facility → payer type → envenomation claims (5 years) */
  payers: Map<number, Map<string, number>>
  /** facility → the counts of each clinician who treated an envenomation there (5 years) */
  hcps: Map<number, HcpCountRow[]>
  /** clinicians who treated an envenomation anywhere in the 5-year window */
  treatingAll: number
  /** records of every clinician of `hcps` */
  providers: Map<string, ProviderRecord>
  /** health systems of the active facilities, with their affiliated clinicians */
  systems: Map<number, HealthSystemRecord>
  systemCodes: Set<string>
  affiliations: Affiliations
  /** position of every account name in the collation order (sort ties without localeCompare per comparison) */
  nameOrder: Map<string, number>
  memo: Memo
}

/** A bounded cache (least recently used out) of values derived from one NovaData. */
export class Memo {
  private readonly map = new Map<string, { value: unknown; weight: number }>()
  private total = 0
  /** called when a value was added (the engine's held bytes are weighed again under the shared budget) */
  onGrow: (() => void) | null = null
  constructor(private readonly maxWeight: number) {}

  /** the weight held: characters of written answers plus LIST_WEIGHT per derived list */
  get weight(): number {
    return this.total
  }

  get<T>(key: string, make: () => T, weigh: (value: T) => number = () => 1): T {
    const hit = this.map.get(key)
    if (hit) {
      this.map.delete(key)
      this.map.set(key, hit)
      return hit.value as T
    }
    const value = make()
    const weight = weigh(value)
    this.map.set(key, { value, weight })
    this.total += weight
    for (const [k, v] of this.map) {
      if (this.total <= this.maxWeight || k === key) break
      this.map.delete(k)
      this.total -= v.weight
    }
    this.onGrow?.()
    return value
  }
}

/** Weight budget of a NovaData's memo: characters of written answers plus 1,000 per derived list. */
export const MEMO_BUDGET = 48_000_000
export const LIST_WEIGHT = 1_000

/** Bytes per row of each kind a NovaData holds (with its maps' entries): an estimate, for the engine's memory. */
const ROW_BYTES = { facility: 900, hcp: 320, provider: 700, payer: 80, specialty: 90 } as const

/** The bytes a NovaData's rows hold, estimated from their numbers (counted once, when it is built). */
function rowBytes(data: Pick<NovaData, 'rows' | 'payers' | 'affiliations' | 'hcps' | 'providers'>): number {
  let payers = 0
  for (const byType of data.payers.values()) payers += byType.size
  let specialties = 0
  for (const bySpecialty of data.affiliations.byFacility.values()) specialties += bySpecialty.size
  let hcps = 0
  for (const list of data.hcps.values()) hcps += list.length
  return (
    data.rows.length * ROW_BYTES.facility +
    hcps * ROW_BYTES.hcp +
    data.providers.size * ROW_BYTES.provider +
    payers * ROW_BYTES.payer +
    specialties * ROW_BYTES.specialty
  )
}

/** The bytes a NovaData holds, estimated from its rows and its memo's weight (a character counts 2 bytes). */
function novaDataBytes(data: NovaData): number {
  return data.rowBytes + data.memo.weight * 2
}

/**
 * The rows one Nova call reads (engines/engine.ts `rows`), read straight from the database while the engine's data
 * builds: the states, territories and years always; the active facilities of the region (resolved by the service's
 * resolveScope), of a health system, of an NPI or of ids, with their counts; and of those facilities only the details
 * the call asks for. A NovaData of these rows gives the call's answer by the same functions as the whole data.
 */
export interface NovaQuery {
  /** the region the call asks for (none: the country) */
  geo?: GeoInput | undefined
  healthSystemId?: string | undefined
  /** the facilities of this NPI, active or not (their affiliated clinicians) */
  facilityNpi?: string | undefined
  facilityIds?: number[] | undefined
  /**
   * false: no facility (metadata, territory names); else the facilities' counts and, of the same facilities, the
   * clinicians who treated there with their records and the national ranks, the payer types, the affiliated
   * clinicians with the facilities' health systems
   */
  facilities: false | { clinicians?: boolean; payers?: boolean; affiliations?: boolean }
  /**
   * the data of the same version the call already read (an accounts page's details while the index builds): its years,
   * states, territories and the rows of `facilityIds` are taken from it, not read again
   */
  from?: NovaData | undefined
}

const WHOLE = { clinicians: true, payers: true, affiliations: true } as const

/**
 * The whole data of a version (the engine's index), its build time recorded for GET /metrics (lib/engine-stats.ts);
 * with `only`, the rows of one call (not timed: not a build).
 */
export function buildNovaData(pool: pg.Pool, version: string, only?: NovaQuery): Promise<NovaData> {
  return only === undefined ? timedBuild('nova', buildNovaDataUntimed(pool, version)) : buildNovaDataUntimed(pool, version, only)
}

/** A promise awaited later: its failure is handled (no unhandled rejection when an earlier await throws). */
function later<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined)
  return promise
}

/** What every NovaData holds whatever its facilities: the years, the states and the territories. */
type Places = Pick<NovaData, 'years' | 'mapStates' | 'stateLookup' | 'territories' | 'territoryCounties'>

async function readPlaces(pool: pg.Pool): Promise<Places> {
  const [years, states, territoryList, territoryCounties] = await Promise.all([
    novaYears(pool),
    allStates(pool),
    territories(pool, NOVA_DEFAULT_USE_CASE),
    territoryCountyList(pool, NOVA_DEFAULT_USE_CASE),
  ])
  const stateLookup = new Map<string, { abbr: string; name: string }>()
  // SQL matched upper(abbr) = upper(v) OR lower(name) = lower(v); an abbreviation wins over a name
  for (const s of states) if (!stateLookup.has(`n:${s.name.toLowerCase()}`)) stateLookup.set(`n:${s.name.toLowerCase()}`, s)
  for (const s of states) stateLookup.set(`a:${s.abbr.toUpperCase()}`, { abbr: s.abbr, name: s.name })
  const mapStates = states.filter((s) => s.has_geom).map((s) => ({ abbr: s.abbr, name: s.name }))
  return { years, mapStates, stateLookup, territories: territoryList, territoryCounties }
}

async function buildNovaDataUntimed(pool: pg.Pool, version: string, only?: NovaQuery): Promise<NovaData> {
  const wants = only === undefined ? WHOLE : only.facilities
  // the national ranks and (whole) the 6 M-provider aggregate depend on nothing: started first, awaited last
  const ranksRead = later(
    wants && wants.clinicians ? topPrescriberRanks(pool, TOP_PRESCRIBER_RANK) : Promise.resolve(new Map<string, number>()),
  )
  const wholeAffiliations = only === undefined ? later(affiliations(pool)) : null
  const from = only?.from
  const { years, mapStates, stateLookup, territories: territoryList, territoryCounties }: Places = from ?? (await readPlaces(pool))
  const year = years.latest_year
  const scope: Scope = only?.geo ? resolveScope({ stateLookup, territories: territoryList }, only.geo) : { level: 'COUNTRY' }
  const filter: FacilityFilter = { healthSystemId: only?.healthSystemId, facilityNpi: only?.facilityNpi, facilityIds: only?.facilityIds }
  // a call of the whole country reads every facility's clinicians and payers, as the whole data (the national count
  // of treating clinicians is over all of them); one of fewer facilities reads theirs only
  const restricted = scope.level !== 'COUNTRY' || Object.values(filter).some((v) => v !== undefined)
  const active = year !== null && wants !== false
  const wanted = new Set(only?.facilityIds)
  const taken = from && only?.facilityIds ? from.rows.filter((r) => wanted.has(r.id)) : null
  const [rows, everyHcp, everyPayer] = await Promise.all([
    taken ?? (active ? facilityCounts(pool, year, scope, filter) : Promise.resolve([])),
    active && wants.clinicians && !restricted ? hcpCountsAll(pool, year) : null,
    active && wants.payers && !restricted ? payerCountsAll(pool, year) : null,
  ])
  const ids = rows.map((r) => r.id)
  const systemIds = [...new Set(rows.map((r) => r.health_system_id).filter((id): id is number => id !== null))]
  const [hcpRows, payerRows, affiliation] = await Promise.all([
    everyHcp ?? (active && wants.clinicians && ids.length > 0 ? hcpCountsAll(pool, year, ids) : []),
    everyPayer ?? (active && wants.payers && ids.length > 0 ? payerCountsAll(pool, year, ids) : []),
    wholeAffiliations ??
      (wants && wants.affiliations
        ? affiliations(pool, { facilityIds: ids, facilityNpi: only?.facilityNpi ?? null, systemIds })
        : { byFacility: new Map(), bySystem: new Map() }),
  ])
  const hcps = new Map<number, HcpCountRow[]>()
  const treating = new Set<string>()
  for (const r of hcpRows) {
    const list = hcps.get(r.facility_id)
    if (list) list.push(r)
    else hcps.set(r.facility_id, [r])
    treating.add(r.npi)
  }
  const payers = new Map<number, Map<string, number>>()
  for (const r of payerRows) {
    let byType = payers.get(r.facility_id)
    if (!byType) payers.set(r.facility_id, (byType = new Map()))
    byType.set(r.payer_type, (byType.get(r.payer_type) ?? 0) + r.n)
  }
  const [providers, systemRows, ranks] = await Promise.all([
    providersByNpi(pool, [...treating]),
    wants && wants.affiliations && systemIds.length > 0 ? healthSystems(pool, { ids: systemIds }) : Promise.resolve([]),
    ranksRead,
  ])
  const systems = new Map(systemRows.map((s) => [s.id, { ...s, number_of_affiliated_hcps: affiliation.bySystem.get(s.id) ?? 0 }] as const))
  const countyTerritory = new Map<string, TerritoryName>()
  for (const t of [...territoryList].sort((a, b) => a.id - b.id))
    for (const county of territoryCounties.get(t.id) ?? []) if (!countyTerritory.has(county)) countyTerritory.set(county, t)
  const names = new Set<string>()
  for (const r of rows) {
    names.add(r.name)
    if (r.health_system_id !== null) names.add(r.health_system_name ?? `Health system ${r.health_system_id}`)
  }
  const collator = new Intl.Collator()
  const nameOrder = new Map<string, number>()
  let previousName: string | null = null
  for (const name of [...names].sort(collator.compare)) {
    // names the collation holds equal keep one position, as localeCompare's 0 (a subset's positions keep their order)
    nameOrder.set(name, previousName !== null && collator.compare(previousName, name) === 0 ? nameOrder.get(previousName)! : nameOrder.size)
    previousName = name
  }
  const data: NovaData = {
    version,
    partial: only !== undefined,
    get bytes() {
      return novaDataBytes(data)
    },
    years,
    year,
    rows,
    byId: new Map(rows.map((r) => [r.id, r])),
    byNpi: new Map(rows.filter((r) => r.npi !== null).map((r) => [r.npi!, r])),
    derived: new Map(rows.map((r) => [r.id, derive(r)])),
    ranks,
    rowBytes: 0,
    mapStates,
    stateLookup,
    territories: territoryList,
    territoryCounties,
    countyTerritory,
    payers,
    hcps,
    treatingAll: treating.size,
    providers,
    systems,
    // the codes of the active facilities' health systems (those the rows carry)
    systemCodes: new Set(rows.map((r) => r.healthsystem_id).filter((code): code is string => code !== null)),
    affiliations: affiliation,
    nameOrder,
    memo: new Memo(MEMO_BUDGET),
  }
  data.rowBytes = rowBytes(data)
  // held under the shared memory budget (lib/engine-budget.ts): the memo's answers count as they are kept
  if (only === undefined) data.memo.onGrow = () => reweighEngine(data, novaDataBytes(data))
  return data
}
