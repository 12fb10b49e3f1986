import { NOVA_DEFAULT_USE_CASE, type TerritoryName } from '@citrus/contracts'
import type pg from 'pg'
import { timedBuild } from '../../lib/engine-stats.js'
import { derive, TOP_PRESCRIBER_RANK, type DerivedMetrics } from '../../services/nova/metrics.js'
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
  type FacilityRow,
  type HcpCountRow,
  type HealthSystemRecord,
  type NovaYears,
  type ProviderRecord,
} from '../../services/nova/queries.js'

/**
 * Everything Nova answers from, aggregated once per data version (docs/decisions/0054): the counts of every
 * active facility (37,500 envenomations at 4,661 facilities at the full scale), their payer mix, the counts of
 * every clinician at every facility, those clinicians' records, the health systems of the active facilities,
 * the clinicians affiliated with each facility, the national prescriber ranks, the states and the territories.
 * A request then scopes, groups, sorts, pages and writes its answer in memory; derived lists and written
 * answers are kept in `memo` with the data they were made from.
 */
export interface NovaData {
  version: string
  builtAt: number
  years: NovaYears
  year: number | null
  /** active facilities (a case or a purchase in the 5-year window), by id */
  rows: FacilityRow[]
  byId: Map<number, FacilityRow>
  byNpi: Map<string, FacilityRow>
  derived: Map<number, DerivedMetrics>
  /** national top prescribers: npi → rank */
  ranks: Map<string, number>
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
    return value
  }
}

/** Weight budget of a NovaData's memo: characters of written answers plus 1,000 per derived list. */
export const MEMO_BUDGET = 48_000_000
export const LIST_WEIGHT = 1_000

/** Bytes per row of each kind a NovaData holds (with its maps' entries): an estimate, for the engine's memory. */
const ROW_BYTES = { facility: 900, hcp: 320, provider: 700, payer: 80, specialty: 90 } as const

/** The bytes a NovaData holds, estimated from its rows and its memo's weight (a character counts 2 bytes). */
export function novaDataBytes(data: NovaData): number {
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
    specialties * ROW_BYTES.specialty +
    data.memo.weight * 2
  )
}

/** The data of a version (buildNovaDataUntimed), its build time recorded for GET /metrics (lib/engine-stats.ts). */
export const buildNovaData = (pool: pg.Pool, version: string, previous: NovaData | null): Promise<NovaData> =>
  timedBuild('nova', buildNovaDataUntimed(pool, version, previous))

async function buildNovaDataUntimed(pool: pg.Pool, version: string, previous: NovaData | null): Promise<NovaData> {
  const years = await novaYears(pool)
  const year = years.latest_year
  const [rows, hcpRows, payerRows, ranks, states, territoryList, territoryCounties, affiliation] = await Promise.all([
    year === null ? Promise.resolve([]) : facilityCounts(pool, year, { level: 'COUNTRY' }),
    year === null ? Promise.resolve([]) : hcpCountsAll(pool, year),
    year === null ? Promise.resolve([]) : payerCountsAll(pool, year),
    topPrescriberRanks(pool, TOP_PRESCRIBER_RANK),
    allStates(pool),
    territories(pool, NOVA_DEFAULT_USE_CASE),
    territoryCountyList(pool, NOVA_DEFAULT_USE_CASE),
    // clinicians per facility read every provider (6 M at full scale): kept while the version is the same
    previous?.version === version ? Promise.resolve(previous.affiliations) : affiliations(pool),
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
  const systemIds = [...new Set(rows.map((r) => r.health_system_id).filter((id): id is number => id !== null))]
  const [providers, systemRows] = await Promise.all([
    providersByNpi(pool, [...treating]),
    systemIds.length > 0 ? healthSystems(pool, { ids: systemIds }) : Promise.resolve([]),
  ])
  const systems = new Map(systemRows.map((s) => [s.id, { ...s, number_of_affiliated_hcps: affiliation.bySystem.get(s.id) ?? 0 }] as const))
  const stateLookup = new Map<string, { abbr: string; name: string }>()
  // SQL matched upper(abbr) = upper(v) OR lower(name) = lower(v); an abbreviation wins over a name
  for (const s of states) if (!stateLookup.has(`n:${s.name.toLowerCase()}`)) stateLookup.set(`n:${s.name.toLowerCase()}`, s)
  for (const s of states) stateLookup.set(`a:${s.abbr.toUpperCase()}`, { abbr: s.abbr, name: s.name })
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
    // names the collation holds equal keep one position, as localeCompare's 0
    nameOrder.set(name, previousName !== null && collator.compare(previousName, name) === 0 ? nameOrder.get(previousName)! : nameOrder.size)
    previousName = name
  }
  return {
    version,
    builtAt: Date.now(),
    years,
    year,
    rows,
    byId: new Map(rows.map((r) => [r.id, r])),
    byNpi: new Map(rows.filter((r) => r.npi !== null).map((r) => [r.npi!, r])),
    derived: new Map(rows.map((r) => [r.id, derive(r)])),
    ranks,
    mapStates: states.filter((s) => s.has_geom).map((s) => ({ abbr: s.abbr, name: s.name })),
    stateLookup,
    territories: territoryList,
    territoryCounties,
    countyTerritory,
    payers,
    hcps,
    treatingAll: treating.size,
    providers,
    systems,
    systemCodes: new Set(systemRows.map((s) => s.healthsystem_id)),
    affiliations: affiliation,
    nameOrder,
    memo: new Memo(MEMO_BUDGET),
  }
}
