import {
  METRIC_GROUPS,
  NOVA_ACCOUNT_QUERY_TYPES,
  NOVA_DEFAULT_MAP_TYPE,
  NOVA_DEFAULT_SORT,
  NOVA_DEFAULT_USE_CASE,
  NOVA_DEFAULT_SORT_DIRECTION,
  NOVA_GRANULARITY_NAMES,
  NOVA_HIGH_OPPORTUNITY_THRESHOLD,
  NOVA_HIGH_VOLUME_CASES,
  NOVA_MAP_TYPES,
  NOVA_MESSAGES,
  NOVA_POINT_TYPES,
  NOVA_REGION_LEVEL_NAMES,
  NOVA_REGION_LEVELS,
  NOVA_SORT_OPTIONS,
  SORT_DIRECTIONS,
  type AtlasSummaryResponse,
  type AtlasTilesResponse,
  type ChoroplethLegend,
  type FilterInput,
  type MetricGroup,
  type NovaEntity,
  type NovaGranularity,
  type NovaInsight,
  type NovaMapType,
  type NovaMetadata,
  type NovaPageResults,
  type NovaRegionLevel,
  type NovaSortKey,
  type PayerShare,
  type SortDirection,
  type TerritoryName,
  type TileFeature,
  type TopPrescriber,
} from '@citrus/contracts'
import type pg from 'pg'
import { badRequest, notFound } from '../../lib/errors.js'
import {
  badgesFor,
  derive,
  emptyCounts,
  groupMetrics,
  METRIC_DEFS,
  metricDef,
  metricValues,
  opportunityScore,
  round,
  PROVIDER_METRIC_CODES,
  sortRows,
  sumCounts,
  TOP_PRESCRIBER_RANK,
  type DerivedMetrics,
  type MetricValues,
  type NovaCounts,
} from './metrics.js'
import {
  affiliations,
  dataVersion,
  territoryCounties,
  facilitiesTreatedBy,
  facilityByNpi,
  facilityCounts,
  hcpCounts,
  healthSystems,
  novaYears,
  payerCounts,
  prescriberCounts,
  providersByNpi,
  stateByCode,
  territories,
  territoryByName,
  territoryOfCounties,
  topPrescriberRanks,
  treatingProviderCount,
  type Affiliations,
  type FacilityRecord,
  type FacilityRow,
  type HealthSystemRecord,
  type PrescriberCountRow,
  type ProviderRecord,
  type Scope,
} from './queries.js'
import { ShapeCache } from './shapes.js'

/** How long the facility counts are kept at most (a `data refresh` without a load is seen within this time). */
export const SNAPSHOT_TTL_MS = 5 * 60_000

interface Snapshot {
  years: Awaited<ReturnType<typeof novaYears>>
  year: number | null
  rows: FacilityRow[]
  ranks: Map<string, number>
  /** states with an outline, for the national state map */
  states: { abbr: string; name: string }[]
  /** the serb_crofab territories (the one antivenom use case) and the territory of each county */
  territories: TerritoryName[]
  countyTerritory: Map<string, TerritoryName>
}

interface GeoInput {
  filter_value: { region_level: NovaRegionLevel; search_within_region?: string | undefined; granularity?: NovaGranularity | undefined }
}
interface Paging {
  page: number
  page_size: number
  sort_input: { code: NovaSortKey; sort_direction: SortDirection }
}

const TOP_LIST_MAX = 50
const SPECIALTY_MAX = 12
const PAYER_LABELS: Record<string, { type: PayerShare['payer_type']; label: string }> = {
  medicare: { type: 'medicare', label: 'Medicare' },
  medicaid: { type: 'medicaid', label: 'Medicaid' },
  commercial: { type: 'commercial', label: 'Commercial' },
  cash: { type: 'cash', label: 'Cash / Self-Pay' },
  other: { type: 'other', label: 'Other' },
}

/** An account of the insights lists: a health system (its facilities in the scope) or one facility. */
interface Account {
  id: string
  name: string
  kind: 'HEALTH_SYSTEM' | 'FACILITY'
  facilities: FacilityRow[]
  systemId: number | null
  systemName: string | null
  counts: NovaCounts
  derived: DerivedMetrics
  values: MetricValues
}

const facilityCitrusId = (f: { id: number; npi: string | null }) => f.npi ?? `FAC${f.id}`

/** Case-weighted mean of the facilities' opportunity scores: the score of a region (docs/decisions/0038). */
export function regionOpportunityScore(facilities: readonly NovaCounts[]): number {
  let cases = 0
  let weighted = 0
  for (const f of facilities) {
    cases += f.cases_5y
    weighted += f.cases_5y * opportunityScore(f)
  }
  return cases > 0 ? round(weighted / cases, 1) : 0
}

export function payerMix(counts: Map<string, number>): PayerShare[] {
  const total = [...counts.values()].reduce((a, b) => a + b, 0)
  if (total === 0) return []
  return [...counts.entries()]
    .map(([payer, n]) => {
      const known = PAYER_LABELS[payer] ?? PAYER_LABELS.other!
      return { payer_type: known.type, label: known.label, count: n, share: round((n / total) * 100, 1) }
    })
    .sort((a, b) => b.share - a.share || a.label.localeCompare(b.label))
}

export class NovaService {
  readonly shapes: ShapeCache
  constructor(private readonly pool: pg.Pool) {
    this.shapes = new ShapeCache(pool)
  }

  private snapshot: { version: string; at: number; value: Promise<Snapshot> } | null = null

  /**
   * Every active facility's counts and the national prescriber ranks, computed once per data version (a load
   * starting or finishing) and at most SNAPSHOT_TTL_MS old; each call then scopes, groups, sorts and pages in
   * memory and queries only the details of the page. Concurrent first calls share one computation.
   */
  private async current(): Promise<Snapshot> {
    const version = await dataVersion(this.pool)
    const cached = this.snapshot
    if (cached && cached.version === version && Date.now() - cached.at < SNAPSHOT_TTL_MS) return cached.value
    const value = (async (): Promise<Snapshot> => {
      const years = await novaYears(this.pool)
      const year = years.latest_year
      const [rows, ranks, states, territoryList, countyTerritory] = await Promise.all([
        year === null ? Promise.resolve([]) : facilityCounts(this.pool, year, { level: 'COUNTRY' }),
        topPrescriberRanks(this.pool, TOP_PRESCRIBER_RANK),
        this.pool
          .query<{ abbr: string; name: string }>('SELECT abbr, name FROM states WHERE geom IS NOT NULL ORDER BY abbr')
          .then((r) => r.rows),
        territories(this.pool, NOVA_DEFAULT_USE_CASE),
        territoryOfCounties(this.pool, NOVA_DEFAULT_USE_CASE),
      ])
      return { years, year, rows, ranks, states, territories: territoryList, countyTerritory }
    })()
    this.snapshot = { version, at: Date.now(), value }
    value.catch(() => {
      if (this.snapshot?.value === value) this.snapshot = null
    })
    return value
  }

  private affiliationCache: { version: string; value: Promise<Affiliations> } | null = null

  /** Clinicians per facility, specialty and health system: they change only with a load, so once per data version. */
  private async affiliations(): Promise<Affiliations> {
    const version = await dataVersion(this.pool)
    const cached = this.affiliationCache
    if (cached && cached.version === version) return cached.value
    const value = affiliations(this.pool)
    this.affiliationCache = { version, value }
    value.catch(() => {
      if (this.affiliationCache?.value === value) this.affiliationCache = null
    })
    return value
  }

  private async latestYear(): Promise<number | null> {
    return (await this.current()).year
  }

  /** The active facilities of a scope (and of a health system, or some ids), from the snapshot. */
  private async scopedRows(
    scope: Scope,
    filter: { healthSystemId?: string | undefined; facilityIds?: number[] } = {},
  ): Promise<FacilityRow[]> {
    const { rows } = await this.current()
    const counties = scope.level === 'SALES_TERRITORY' ? await territoryCounties(this.pool, scope.territory.id) : null
    const ids = filter.facilityIds ? new Set(filter.facilityIds) : null
    return rows.filter(
      (r) =>
        (scope.level !== 'STATE' || r.state === scope.state) &&
        (counties === null || (r.county_fips !== null && counties.has(r.county_fips))) &&
        (filter.healthSystemId === undefined || r.healthsystem_id === filter.healthSystemId) &&
        (ids === null || ids.has(r.id)),
    )
  }

  async resolveScope(geo: GeoInput, useCase: string): Promise<Scope> {
    const { region_level: level, search_within_region: value = '' } = geo.filter_value
    if (level === 'STATE') {
      const state = await stateByCode(this.pool, value)
      if (!state) throw badRequest(NOVA_MESSAGES.unknownState(value))
      return { level, state: state.abbr, stateName: state.name }
    }
    if (level === 'SALES_TERRITORY') {
      const territory = await territoryByName(this.pool, useCase, value)
      if (!territory) throw badRequest(NOVA_MESSAGES.unknownTerritory(value))
      return { level, territory }
    }
    return { level: 'COUNTRY' }
  }

  // ------------------------------------------------------------ metadata

  async metadata(): Promise<NovaMetadata> {
    const { years } = await this.current()
    return {
      atlas_metadata: {
        map_metadata: {
          map_options: NOVA_MAP_TYPES.map((t) => ({
            code: t.code,
            name: t.name,
            description: metricDef(t.metric)?.description ?? t.name,
            value_format: metricDef(t.metric)?.value_format ?? 'INTEGER',
          })),
          default_map_option: NOVA_DEFAULT_MAP_TYPE,
          region_levels: NOVA_REGION_LEVELS.map((code) => ({ code, name: NOVA_REGION_LEVEL_NAMES[code] })),
          granularity_options: (['SALES_TERRITORY', 'STATE'] as const).map((code) => ({ code, name: NOVA_GRANULARITY_NAMES[code] })),
          point_options: NOVA_POINT_TYPES.map((code) => ({ code, name: code === 'ALL' ? 'All facilities' : 'None' })),
          data_years: years,
        },
      },
      insights_metadata: {
        sort_options: NOVA_SORT_OPTIONS.map((o) => ({
          code: o.code,
          name: o.name,
          description: o.description,
          allowed_sort_directions: [...SORT_DIRECTIONS],
        })),
        default_sort: NOVA_DEFAULT_SORT,
        default_sort_direction: NOVA_DEFAULT_SORT_DIRECTION,
        account_query_types: NOVA_ACCOUNT_QUERY_TYPES.map((code) => ({
          code,
          name: code === 'FACILITY' ? 'Facilities' : 'Health Systems and Independent Facilities',
        })),
        metric_groups: METRIC_GROUPS.flatMap((group) => {
          const metrics = METRIC_DEFS.filter((d) => d.group === group).map((d) => ({
            code: d.code,
            name: d.name,
            description: d.description,
            unit: d.unit,
            value_format: d.value_format,
          }))
          return metrics.length > 0 ? [{ code: group, name: groupName(group), metrics }] : []
        }),
        quick_filters: [
          {
            code: 'highOpportunity',
            name: 'High Opportunity',
            filter: { code: 'min_opportunity_score', filter_value: NOVA_HIGH_OPPORTUNITY_THRESHOLD },
          },
          { code: 'hpgAffiliated', name: 'HPG Affiliated', filter: { code: 'hpg_affiliated', filter_value: true } },
          { code: 'crofabOpportunity', name: 'CroFab Users', filter: { code: 'min_crofab_units_used', filter_value: 1 } },
          { code: 'highVolume', name: 'High Volume', filter: { code: 'min_snake_envenominations', filter_value: NOVA_HIGH_VOLUME_CASES } },
        ],
      },
    }
  }

  async territoryNames(useCase: string): Promise<{ territory_names: TerritoryName[] }> {
    return { territory_names: await territories(this.pool, useCase) }
  }

  // ------------------------------------------------------------ accounts

  private buildAccounts(rows: FacilityRow[], type: (typeof NOVA_ACCOUNT_QUERY_TYPES)[number]): Account[] {
    const accounts: Account[] = []
    const systems = new Map<number, FacilityRow[]>()
    for (const row of rows) {
      if (type === 'HEALTH_SYSTEM_OR_INDEPENDENT_FACILITY' && row.health_system_id !== null) {
        const list = systems.get(row.health_system_id) ?? []
        list.push(row)
        systems.set(row.health_system_id, list)
      } else {
        const derived = derive(row)
        accounts.push({
          id: facilityCitrusId(row),
          name: row.name,
          kind: 'FACILITY',
          facilities: [row],
          systemId: row.health_system_id,
          systemName: row.health_system_name,
          counts: row,
          derived,
          values: metricValues(derived, { facility_count: 1 }),
        })
      }
    }
    for (const [systemId, facilities] of systems) {
      const counts = sumCounts(facilities)
      const derived = derive(counts)
      const first = facilities[0]!
      accounts.push({
        id: first.healthsystem_id ?? `HS${systemId}`,
        name: first.health_system_name ?? `Health system ${systemId}`,
        kind: 'HEALTH_SYSTEM',
        facilities,
        systemId,
        systemName: first.health_system_name,
        counts,
        derived,
        values: metricValues(derived, { facility_count: facilities.length }),
      })
    }
    return accounts
  }

  async accounts(
    input: {
      geo_filter_input: GeoInput
      nova_use_case: string
      account_query_type: (typeof NOVA_ACCOUNT_QUERY_TYPES)[number]
      filter_inputs: FilterInput[]
    } & Paging,
  ): Promise<{ page_results: NovaPageResults }> {
    const scope = await this.resolveScope(input.geo_filter_input, input.nova_use_case)
    const year = await this.latestYear()
    const healthSystemId = stringFilter(input.filter_inputs, 'health_system_id')
    if (healthSystemId !== undefined && (await healthSystems(this.pool, { healthsystemId: healthSystemId })).length === 0) {
      throw notFound(NOVA_MESSAGES.healthSystemNotFound(healthSystemId))
    }
    const rows = await this.scopedRows(scope, { healthSystemId })
    const accounts = this.buildAccounts(rows, input.account_query_type).filter((a) => passesQuickFilters(a, input.filter_inputs))
    sortRows(accounts, input.sort_input.code, input.sort_input.sort_direction)
    const pageItems = accounts.slice(input.page * input.page_size, (input.page + 1) * input.page_size)
    const results = year === null ? [] : await this.enrichAccounts(pageItems, year, scope.level)
    return { page_results: pageOf(results, accounts.length, input) }
  }

  /** Details, badges, payer mix, top prescribers and specialties of the accounts of one page. */
  private async enrichAccounts(accounts: Account[], year: number, level: NovaRegionLevel): Promise<NovaInsight[]> {
    const facilityIds = accounts.flatMap((a) => a.facilities.map((f) => f.id))
    const systemIds = [...new Set(accounts.filter((a) => a.kind === 'HEALTH_SYSTEM').map((a) => a.systemId!))]
    const [payers, prescribers, systemRows, affiliation, ranks] = await Promise.all([
      payerCounts(this.pool, year, facilityIds),
      prescriberCounts(this.pool, year, facilityIds),
      systemIds.length > 0 ? healthSystems(this.pool, { ids: systemIds }) : Promise.resolve([]),
      this.affiliations(),
      this.current().then((snapshot) => snapshot.ranks),
    ])
    const systems = systemRows.map((system) => ({ ...system, number_of_affiliated_hcps: affiliation.bySystem.get(system.id) ?? 0 }))
    const affiliated = new Map(
      facilityIds.map((id) => [id, [...(affiliation.byFacility.get(id)?.values() ?? [])].reduce((a, b) => a + b, 0)] as const),
    )
    const specialties = facilityIds.flatMap((id) =>
      [...(affiliation.byFacility.get(id) ?? new Map<string, number>())].map(([specialty, n]) => ({ facility_id: id, specialty, n })),
    )
    const [providers, treatedBy] = await Promise.all([
      providersByNpi(this.pool, [...new Set(prescribers.map((p) => p.npi))]),
      facilitiesTreatedBy(this.pool, year, [...ranks.keys()], facilityIds),
    ])
    const systemById = new Map(systems.map((s) => [s.id, s]))
    return accounts.map((account) => {
      const ids = new Set(account.facilities.map((f) => f.id))
      const topRank = Math.min(
        ...account.facilities.flatMap((f) => (treatedBy.get(f.id) ?? []).map((npi) => ranks.get(npi) ?? Infinity)),
        Infinity,
      )
      const system = account.systemId !== null ? systemById.get(account.systemId) : undefined
      const affiliatedTotal = account.facilities.reduce((n, f) => n + (affiliated.get(f.id) ?? 0), 0)
      const treating = new Set(prescribers.filter((p) => ids.has(p.facility_id) && p.cases_5y > 0).map((p) => p.npi)).size
      account.values = { ...account.values, provider_count: affiliatedTotal, treating_provider_count: treating }
      const payerByType = new Map<string, number>()
      for (const p of payers) if (ids.has(p.facility_id)) payerByType.set(p.payer_type, (payerByType.get(p.payer_type) ?? 0) + p.n)
      const specialtyByName = new Map<string, number>()
      for (const s of specialties)
        if (ids.has(s.facility_id)) specialtyByName.set(s.specialty, (specialtyByName.get(s.specialty) ?? 0) + s.n)
      const tops = topLists(
        prescribers.filter((p) => ids.has(p.facility_id)),
        providers,
      )
      const badges = badgesFor(account.derived, {
        kind: account.kind,
        healthSystemName: account.systemName,
        facilityCount: account.facilities.length,
        topPrescriber: Number.isFinite(topRank) ? { rank: topRank } : null,
      })
      return {
        entity_type: account.kind,
        account_type: account.kind,
        citrus_id: account.id,
        display_name: account.name,
        parent_citrus_id: account.kind === 'FACILITY' ? (account.facilities[0]!.healthsystem_id ?? null) : null,
        territoryLevel: level,
        entity: account.kind === 'HEALTH_SYSTEM' ? systemEntity(account, system) : facilityEntity(account.facilities[0]!),
        badges,
        additional_metadata: accountMetadata(account, year),
        summary_md: summaryOf(account.name, account.derived, year),
        metrics: groupMetrics(account.values),
        payer_mix: payerMix(payerByType),
        ...tops,
        specialty_breakdown: specialtyList(specialtyByName),
      }
    })
  }

  // ------------------------------------------------------------ facility

  async facility(npi: string): Promise<{ facility_insight: NovaInsight }> {
    const facility = await facilityByNpi(this.pool, npi)
    if (!facility) throw notFound(NOVA_MESSAGES.facilityNotFound(npi))
    const year = await this.latestYear()
    const rows = await this.scopedRows({ level: 'COUNTRY' }, { facilityIds: [facility.id] })
    const row: FacilityRow = rows[0] ?? { ...facility, ...emptyCounts() }
    const derived = derive(row)
    const account: Account = {
      id: facilityCitrusId(facility),
      name: facility.name,
      kind: 'FACILITY',
      facilities: [row],
      systemId: facility.health_system_id,
      systemName: facility.health_system_name,
      counts: row,
      derived,
      values: metricValues(derived, { facility_count: 1 }),
    }
    const [insight] = await this.enrichAccounts([account], year ?? new Date().getUTCFullYear(), 'COUNTRY')
    return { facility_insight: insight! }
  }

  // ------------------------------------------------------------ HCPs

  async hcps(input: { geo_filter_input?: GeoInput | undefined; nova_use_case: string; filter_inputs: FilterInput[] } & Paging): Promise<{
    page_results: NovaPageResults
  }> {
    if (input.geo_filter_input) await this.resolveScope(input.geo_filter_input, input.nova_use_case)
    const npi = String(input.filter_inputs.find((f) => f.code === 'facility_npi')?.filter_value ?? '')
    const facility = await facilityByNpi(this.pool, npi)
    if (!facility) throw notFound(NOVA_MESSAGES.facilityNotFound(npi))
    const year = await this.latestYear()
    const rows = year === null ? [] : await hcpCounts(this.pool, year, facility.id)
    const [providers, ranks] = await Promise.all([
      providersByNpi(
        this.pool,
        rows.map((r) => r.npi),
      ),
      this.current().then((snapshot) => snapshot.ranks),
    ])
    const items = rows.map((r) => {
      const p = providers.get(r.npi)
      const derived = derive(r)
      const values = providerValues(derived, p)
      return { id: r.npi, name: p?.full_name ?? `NPI ${r.npi}`, values, derived, provider: p, npi: r.npi }
    })
    const filtered = items.filter((item) => {
      const minCases = numberFilter(input.filter_inputs, 'min_snake_envenominations')
      const minCrofab = numberFilter(input.filter_inputs, 'min_crofab_units_used')
      return (
        (minCases === undefined || item.derived.snake_envenomination_cases_5y >= minCases) &&
        (minCrofab === undefined || item.derived.crofab_units_used_5y >= minCrofab)
      )
    })
    sortRows(filtered, input.sort_input.code, input.sort_input.sort_direction)
    const page = filtered.slice(input.page * input.page_size, (input.page + 1) * input.page_size)
    const results: NovaInsight[] = page.map((item) => {
      const rank = ranks.get(item.npi)
      const p = item.provider
      return {
        entity_type: 'PROVIDER',
        account_type: null,
        citrus_id: item.npi,
        display_name: p ? providerDisplayName(p) : item.name,
        parent_citrus_id: facilityCitrusId(facility),
        territoryLevel: input.geo_filter_input?.filter_value.region_level ?? null,
        entity: providerEntity(item.npi, p, facility),
        badges: badgesFor(item.derived, { kind: 'PROVIDER', topPrescriber: rank ? { rank } : null }),
        additional_metadata: [
          { code: 'facility_npi', label: 'Facility NPI', value: facility.npi },
          { code: 'data_window', label: 'Data window', value: year === null ? null : `${year - 4}-${year}` },
        ],
        summary_md: `**${p ? providerDisplayName(p) : item.name}** treated ${item.derived.snake_envenomination_cases_5y} envenomation${plural(item.derived.snake_envenomination_cases_5y)} at ${facility.name} over 5 years (${item.derived.crofab_patients_5y} with CroFab, ${item.derived.anavip_patients_5y} with Anavip).`,
        metrics: groupMetrics(item.values, PROVIDER_METRIC_CODES),
        payer_mix: [],
      }
    })
    return { page_results: pageOf(results, filtered.length, input) }
  }

  // ------------------------------------------------------------ map

  async summary(input: {
    geo_filter_input: GeoInput
    map_selection: { filter_value: NovaMapType }
    nova_use_case: string
  }): Promise<AtlasSummaryResponse> {
    const scope = await this.resolveScope(input.geo_filter_input, input.nova_use_case)
    const year = await this.latestYear()
    const rows = await this.scopedRows(scope)
    const ids = rows.map((r) => r.id)
    const region = regionValues(rows)
    const [payers, prescribers, treating] = await Promise.all([
      year === null ? [] : payerCounts(this.pool, year, ids),
      year === null ? [] : prescriberCounts(this.pool, year, ids),
      year === null ? 0 : treatingProviderCount(this.pool, year, scope.level === 'COUNTRY' ? null : ids),
    ])
    const providers = await providersByNpi(this.pool, [...new Set(prescribers.map((p) => p.npi))].slice(0, 5000))
    const payerByType = new Map<string, number>()
    for (const p of payers) payerByType.set(p.payer_type, (payerByType.get(p.payer_type) ?? 0) + p.n)
    const systems = new Set(rows.filter((r) => r.health_system_id !== null).map((r) => r.health_system_id)).size
    const values: MetricValues = {
      ...region.values,
      health_system_count: systems,
      facility_count: rows.length,
      treating_provider_count: treating,
    }
    const name = scopeName(scope)
    const mapType = NOVA_MAP_TYPES.find((t) => t.code === input.map_selection.filter_value)!
    const summary: NovaInsight = {
      entity_type: scope.level === 'SALES_TERRITORY' ? 'TERRITORY' : scope.level,
      account_type: null,
      citrus_id: scopeId(scope),
      display_name: name,
      parent_citrus_id: scope.level === 'COUNTRY' ? null : scope.level === 'STATE' ? 'US' : scope.territory.state,
      territoryLevel: scope.level,
      entity: {
        id: scopeId(scope),
        citrus_id: scopeId(scope),
        name,
        state: scope.level === 'STATE' ? scope.state : scope.level === 'SALES_TERRITORY' ? scope.territory.state : null,
      },
      badges: badgesFor(region.derived, { kind: 'REGION' }),
      additional_metadata: [
        { code: 'data_window', label: 'Data window', value: year === null ? null : `${year - 4}-${year}` },
        { code: 'latest_year', label: 'Latest year', value: year },
      ],
      summary_md: summaryOf(name, region.derived, year),
      metrics: groupMetrics(values),
      payer_mix: payerMix(payerByType),
      ...topLists(prescribers, providers),
    }
    return {
      summary,
      map_selection: { code: mapType.code, name: mapType.name, value: values[mapType.metric] ?? null },
      counts: { health_system_count: systems, facility_count: rows.length, provider_count: treating },
    }
  }

  async tiles(input: {
    geo_filter_input: GeoInput
    map_selection: { filter_value: NovaMapType }
    nova_use_case: string
    point_selection?: 'ALL' | 'NONE' | undefined
  }): Promise<AtlasTilesResponse> {
    const scope = await this.resolveScope(input.geo_filter_input, input.nova_use_case)
    const granularity = input.geo_filter_input.filter_value.granularity ?? 'STATE'
    const mapType = NOVA_MAP_TYPES.find((t) => t.code === input.map_selection.filter_value)!
    const rows = await this.scopedRows(scope)

    // the regions of the map: the scope itself when the granularity is not finer than the scope
    interface Region {
      id: string
      code: string
      name: string
      type: 'COUNTRY' | 'STATE' | 'TERRITORY'
      territoryName: string | null
      facilities: FacilityRow[]
    }
    let regions: Region[]
    const fine = granularity === 'SALES_TERRITORY' && scope.level !== 'SALES_TERRITORY'
    if (granularity === 'STATE' && scope.level === 'COUNTRY') {
      const { rows: states } = await this.pool.query<{ abbr: string; name: string }>(
        'SELECT abbr, name FROM states WHERE geom IS NOT NULL ORDER BY abbr',
      )
      const byState = groupBy(rows, (r) => r.state)
      regions = states.map((s) => ({
        id: s.abbr,
        code: s.abbr,
        name: s.name,
        type: 'STATE',
        territoryName: null,
        facilities: byState.get(s.abbr) ?? [],
      }))
    } else if (fine) {
      const snapshot = await this.current()
      const list = snapshot.territories.filter((t) => scope.level === 'COUNTRY' || (scope.level === 'STATE' && t.state === scope.state))
      const countyTerritory = snapshot.countyTerritory
      const byTerritory = groupBy(rows, (r) => String((r.county_fips && countyTerritory.get(r.county_fips)?.id) ?? ''))
      regions = list.map((t) => ({
        id: String(t.id),
        code: String(t.id),
        name: t.name,
        type: 'TERRITORY',
        territoryName: t.name,
        facilities: byTerritory.get(String(t.id)) ?? [],
      }))
    } else {
      regions = [
        {
          id: scopeId(scope),
          code: scopeId(scope),
          name: scopeName(scope),
          type: scope.level === 'SALES_TERRITORY' ? 'TERRITORY' : scope.level,
          territoryName: scope.level === 'SALES_TERRITORY' ? scope.territory.name : null,
          facilities: rows,
        },
      ]
    }

    const computed = regions.map((r) => ({ region: r, ...regionValues(r.facilities) }))
    const format = metricDef(mapType.metric)?.value_format ?? 'INTEGER'
    const legend = legendOf(
      computed.map((c) => c.values[mapType.metric] ?? null),
      { code: mapType.code, title: mapType.name, value_format: format },
    )

    const geometries = await this.regionGeometries(regions)
    const features: TileFeature[] = computed.map(({ region, values }) => {
      const value = values[mapType.metric] ?? null
      return {
        type: 'Feature',
        id: region.id,
        geometry: geometries.get(region.id) ?? null,
        properties: {
          id: region.id,
          label: region.name,
          value,
          code: region.code,
          territory_name: region.territoryName,
          primary_metric: mapType.metric,
          primary_metric_value: value,
          entity_type: region.type,
          has_marker: false,
          fill: colorOf(legend, value),
          'fill-opacity': value === null ? 0.2 : 0.7,
          stroke: '#ffffff',
          score: (values.serb_crofab_opportunity_score as number | null | undefined) ?? null,
          metrics: featureMetrics(values),
          additional_metadata: [{ code: 'facility_count', label: 'Facilities', value: region.facilities.length }],
        },
      }
    })
    if (input.point_selection === 'ALL') {
      for (const f of rows) {
        if (!(Math.abs(f.latitude) <= 90 && Math.abs(f.longitude) <= 180)) continue
        const derived = derive(f)
        const values = metricValues(derived)
        const value = values[mapType.metric] ?? null
        const id = facilityCitrusId(f)
        features.push({
          type: 'Feature',
          id,
          geometry: { type: 'Point', coordinates: [f.longitude, f.latitude] },
          properties: {
            id,
            label: f.name,
            value,
            code: id,
            territory_name: null,
            primary_metric: mapType.metric,
            primary_metric_value: value,
            entity_type: 'FACILITY',
            has_marker: true,
            fill: colorOf(legend, value),
            'fill-opacity': 1,
            stroke: '#ffffff',
            score: derived.serb_crofab_opportunity_score,
            metrics: featureMetrics(values),
            additional_metadata: [
              { code: 'health_system', label: 'Health system', value: f.health_system_name },
              { code: 'city', label: 'City', value: `${f.city}, ${f.state}` },
            ],
            npi: f.npi,
            healthsystem_id: f.healthsystem_id,
            city: f.city,
            state: f.state,
          },
        })
      }
    }
    return { geojson: { type: 'FeatureCollection', features }, choropleth_legend: legend }
  }

  private async regionGeometries(regions: { id: string; type: 'COUNTRY' | 'STATE' | 'TERRITORY' }[]) {
    const out = new Map<string, { type: string; coordinates: unknown } | null>()
    const states = regions.filter((r) => r.type === 'STATE').map((r) => r.id)
    const terrs = regions.filter((r) => r.type === 'TERRITORY').map((r) => Number(r.id))
    if (states.length > 0) for (const [k, g] of await this.shapes.states(states)) out.set(k, g)
    if (terrs.length > 0) for (const [k, g] of await this.shapes.territories(terrs)) out.set(String(k), g)
    if (regions.some((r) => r.type === 'COUNTRY')) out.set('US', await this.shapes.country())
    return out
  }
}

// ---------------------------------------------------------------- helpers

function groupName(group: MetricGroup): string {
  return group
    .split('_')
    .map((w) => w[0] + w.slice(1).toLowerCase())
    .join(' ')
}

function groupBy<T>(rows: T[], key: (row: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>()
  for (const row of rows) {
    const k = key(row)
    const list = out.get(k)
    if (list) list.push(row)
    else out.set(k, [row])
  }
  return out
}

const plural = (n: number) => (n === 1 ? '' : 's')

function scopeId(scope: Scope): string {
  return scope.level === 'COUNTRY' ? 'US' : scope.level === 'STATE' ? scope.state : String(scope.territory.id)
}
function scopeName(scope: Scope): string {
  return scope.level === 'COUNTRY' ? 'United States' : scope.level === 'STATE' ? scope.stateName : scope.territory.name
}

/** A region's counts and values; its opportunity score is the case-weighted mean of its facilities'. */
export function regionValues(facilities: FacilityRow[]): { counts: NovaCounts; derived: DerivedMetrics; values: MetricValues } {
  const counts = sumCounts(facilities)
  const derived = { ...derive(counts), serb_crofab_opportunity_score: regionOpportunityScore(facilities) }
  return { counts, derived, values: metricValues(derived, { facility_count: facilities.length }) }
}

function featureMetrics(values: MetricValues): Record<string, number | null> {
  const keys = [
    'snake_envenomination_cases_5y',
    'antivenom_units_used_5y',
    'serb_crofab_opportunity_score',
    'crofab_units_used_5y',
    'crofab_patient_share_5y',
    'anavip_units_used',
    'crofab_units_sold_5y',
    'crofab_usage_buying_gap',
    'facility_count',
  ]
  return Object.fromEntries(keys.map((k) => [k, values[k] ?? null]))
}

const PALETTES: Record<string, string[]> = {
  SCORE: ['#fff5eb', '#fdd0a2', '#fd8d3c', '#d94801', '#7f2704'],
  PERCENTAGE: ['#f7fcf5', '#c7e9c0', '#74c476', '#238b45', '#00441b'],
  INTEGER: ['#f7fbff', '#c6dbef', '#6baed6', '#2171b5', '#08306b'],
  DECIMAL: ['#fcfbfd', '#dadaeb', '#9e9ac8', '#6a51a3', '#3f007d'],
}
const LEGEND_CLASSES = 5

function formatLegendValue(v: number, format: string): string {
  if (format === 'PERCENTAGE') return `${(v * 100).toFixed(1)}%`
  if (format === 'DECIMAL') return v.toFixed(2)
  return String(Math.round(v * 10) / 10)
}

/** Five equal-interval classes between the smallest and largest value of the regions. */
export function legendOf(values: (number | null)[], config: ChoroplethLegend['metric_config']): ChoroplethLegend {
  const present = values.filter((v): v is number => v !== null)
  const min = present.length > 0 ? Math.min(...present) : 0
  const max = present.length > 0 ? Math.max(...present) : 0
  const palette = PALETTES[config.value_format] ?? PALETTES.INTEGER!
  const classes = max > min ? LEGEND_CLASSES : 1
  const step = (max - min) / classes
  const items = Array.from({ length: classes }, (_, i) => {
    const lo = min + i * step
    const hi = i === classes - 1 ? max : min + (i + 1) * step
    return {
      color: palette[classes === 1 ? palette.length - 1 : i]!,
      opacity: 0.7,
      label:
        classes === 1
          ? formatLegendValue(lo, config.value_format)
          : `${formatLegendValue(lo, config.value_format)} – ${formatLegendValue(hi, config.value_format)}`,
      min_value: lo,
      max_value: hi,
    }
  })
  return { type: 'GRADIENT', metric_config: config, min_value: min, max_value: max, items }
}

export function colorOf(legend: ChoroplethLegend, value: number | null): string {
  if (value === null) return '#e0e0e0'
  const { min_value: min, max_value: max, items } = legend
  if (items.length === 1 || max <= min) return items[items.length - 1]!.color
  const index = Math.min(items.length - 1, Math.max(0, Math.floor(((value - min) / (max - min)) * items.length)))
  return items[index]!.color
}

function pageOf(results: NovaInsight[], total: number, paging: Paging): NovaPageResults {
  return { results, page: paging.page, page_size: paging.page_size, total_results: total, total_pages: Math.ceil(total / paging.page_size) }
}

function stringFilter(filters: FilterInput[], code: FilterInput['code']): string | undefined {
  const value = filters.find((f) => f.code === code)?.filter_value
  return value === undefined || value === '' || typeof value === 'boolean' ? undefined : String(value)
}
function numberFilter(filters: FilterInput[], code: FilterInput['code']): number | undefined {
  const value = filters.find((f) => f.code === code)?.filter_value
  if (value === undefined || typeof value === 'boolean' || value === '') return undefined
  const n = Number(value)
  if (!Number.isFinite(n)) throw badRequest(`Invalid ${code}: expected a number`)
  return n
}
function booleanFilter(filters: FilterInput[], code: FilterInput['code']): boolean | undefined {
  const value = filters.find((f) => f.code === code)?.filter_value
  if (value === undefined || value === '') return undefined
  if (typeof value === 'boolean') return value
  if (value === 'true' || value === 1) return true
  if (value === 'false' || value === 0) return false
  throw badRequest(`Invalid ${code}: expected true or false`)
}

/** Quick filters (spec 2 §2): opportunity ≥ 75, purchasing-group affiliation (INFO badge), CroFab use, ≥ 10 cases. */
function passesQuickFilters(account: Account, filters: FilterInput[]): boolean {
  const minScore = numberFilter(filters, 'min_opportunity_score')
  const hpg = booleanFilter(filters, 'hpg_affiliated')
  const minCrofab = numberFilter(filters, 'min_crofab_units_used')
  const minCases = numberFilter(filters, 'min_snake_envenominations')
  const affiliated = account.kind === 'HEALTH_SYSTEM' || account.systemId !== null
  return (
    (minScore === undefined || account.derived.serb_crofab_opportunity_score >= minScore) &&
    (hpg === undefined || affiliated === hpg) &&
    (minCrofab === undefined || account.derived.crofab_units_used_5y >= minCrofab) &&
    (minCases === undefined || account.derived.snake_envenomination_cases_5y >= minCases)
  )
}

function summaryOf(name: string, d: DerivedMetrics, year: number | null): string {
  const window = year === null ? 'the last 5 years' : `${year - 4}-${year}`
  const share =
    d.crofab_patient_share_5y === null
      ? 'no antivenom patients'
      : `CroFab treated ${Math.round(d.crofab_patient_share_5y * 1000) / 10}% of antivenom patients`
  return (
    `**${name}**: ${d.snake_envenomination_cases_5y} snake envenomation${plural(d.snake_envenomination_cases_5y)} in ${window} ` +
    `(${d.snake_envenomination_cases_1yr} in ${year ?? 'the latest year'}); ${share}. ` +
    `CroFab: ${d.crofab_units_used_5y} vials used, ${d.crofab_units_sold_5y} bought. ` +
    `SERB CroFab opportunity score ${d.serb_crofab_opportunity_score}.`
  )
}

function accountMetadata(account: Account, year: number): NovaInsight['additional_metadata'] {
  const first = account.facilities[0]!
  return [
    { code: 'data_window', label: 'Data window', value: `${year - 4}-${year}` },
    {
      code: 'state',
      label: 'State',
      value: account.kind === 'FACILITY' ? first.state : [...new Set(account.facilities.map((f) => f.state))].join(', '),
    },
    { code: 'facility_count', label: 'Facilities with antivenom activity', value: account.facilities.length },
  ]
}

function systemEntity(account: Account, system: HealthSystemRecord | undefined): NovaEntity {
  return {
    id: account.id,
    citrus_id: account.id,
    name: account.name,
    healthsystem_id: system?.healthsystem_id ?? account.id,
    city: system?.city ?? null,
    state: system?.state ?? null,
    control_type: system?.control_type || 'Private',
    number_of_hospitals_owned: system?.number_of_hospitals_owned ?? 0,
    number_of_facilities_owned: system?.number_of_facilities_owned ?? account.facilities.length,
    number_of_affiliated_hcps: system?.number_of_affiliated_hcps ?? 0,
    phone_numbers: system?.phone_numbers ?? [],
    website_domain: system?.website_domain ?? null,
  }
}

function facilityEntity(f: FacilityRecord): NovaEntity {
  const id = facilityCitrusId(f)
  return {
    id,
    citrus_id: id,
    name: f.name,
    npi: f.npi,
    healthsystem_id: f.healthsystem_id,
    parent_name: f.health_system_name,
    zip_code: f.zip_code,
    latitude: f.latitude,
    longitude: f.longitude,
    city: f.city,
    state: f.state,
    address: f.address_line_1,
    facility_type_level_1: f.hco_compile_level_1 || 'Hospital',
    phone_number: f.phone_number,
  }
}

/** The clinician's name with the credential once (full_name may already end with it). */
const providerDisplayName = (p: ProviderRecord) => (p.title && !p.full_name.endsWith(p.title) ? `${p.full_name}, ${p.title}` : p.full_name)

function providerEntity(npi: string, p: ProviderRecord | undefined, facility: FacilityRecord): NovaEntity {
  return {
    id: npi,
    citrus_id: npi,
    npi,
    name: p?.full_name ?? `NPI ${npi}`,
    full_name: p?.full_name ?? null,
    title: p?.title ?? null,
    phone_number: p?.phone_number ?? null,
    years_in_practice: p?.years_in_practice ?? null,
    age: p?.age ?? null,
    cms_specialization: p?.cms_specialization ?? null,
    address: p?.address ?? null,
    city: p?.city ?? null,
    state: p?.state ?? null,
    zip_code: p?.zip_code ?? null,
    latitude: p?.latitude ?? null,
    longitude: p?.longitude ?? null,
    facility_name: facility.name,
    hco_name: p?.facility_name ?? null,
    parent_name: facility.name,
    last_year_patient_count: p?.last_year_patient_count ?? null,
    last_month_new_patient_count: p?.last_month_new_patient_count ?? null,
  }
}

function providerValues(d: DerivedMetrics, p: ProviderRecord | undefined): MetricValues {
  const all = metricValues(d, {
    last_year_patient_count: p?.last_year_patient_count ?? null,
    last_month_new_patient_count: p?.last_month_new_patient_count ?? null,
    antivenom_patients_all_sites_5y: p?.antivenom_patients_all_sites_5y ?? 0,
  })
  return Object.fromEntries((PROVIDER_METRIC_CODES as readonly string[]).map((code) => [code, all[code] ?? null]))
}

/** top_crofab_hcps, top_anavip_hcps, top_antivenom_hcps of the clinicians who treated at the account. */
function topLists(rows: PrescriberCountRow[], providers: Map<string, ProviderRecord>) {
  const byNpi = new Map<string, { initials: number; crofab: number; anavip: number }>()
  for (const r of rows) {
    const acc = byNpi.get(r.npi) ?? { initials: 0, crofab: 0, anavip: 0 }
    acc.initials += r.initials_5y
    acc.crofab += r.crofab_patients_5y
    acc.anavip += r.anavip_patients_5y
    byNpi.set(r.npi, acc)
  }
  const entries: TopPrescriber[] = [...byNpi.entries()].map(([npi, c]) => {
    const p = providers.get(npi)
    return {
      name: p ? providerDisplayName(p) : `NPI ${npi}`,
      npi,
      facility_name: p?.facility_name ?? null,
      city: p?.city ?? null,
      state: p?.state ?? null,
      cms_specialization: p?.cms_specialization ?? null,
      snake_envenominations_initials_5yr: c.initials,
      crofab_patients_5yr: c.crofab,
      anavip_patients_5yr: c.anavip,
    }
  })
  const top = (value: (e: TopPrescriber) => number) =>
    entries
      .filter((e) => value(e) > 0)
      .sort(
        (a, b) =>
          value(b) - value(a) || b.snake_envenominations_initials_5yr - a.snake_envenominations_initials_5yr || a.npi.localeCompare(b.npi),
      )
      .slice(0, TOP_LIST_MAX)
  return {
    top_crofab_hcps: top((e) => e.crofab_patients_5yr),
    top_anavip_hcps: top((e) => e.anavip_patients_5yr),
    top_antivenom_hcps: top((e) => e.crofab_patients_5yr + e.anavip_patients_5yr),
  }
}

function specialtyList(counts: Map<string, number>) {
  return [...counts.entries()]
    .map(([specialty, count]) => ({ specialty, count }))
    .sort((a, b) => b.count - a.count || a.specialty.localeCompare(b.specialty))
    .slice(0, SPECIALTY_MAX)
}
