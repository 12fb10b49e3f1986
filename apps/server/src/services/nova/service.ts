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
  type DerivedMetrics,
  type MetricValues,
  type NovaCounts,
} from './metrics.js'
import { LIST_WEIGHT, novaEngine, type NovaData, type NovaQuery } from '../../engines/nova/index.js'
import { dataVersion } from '../../lib/versioned-cache.js'
import {
  facilityByNpi,
  healthSystemExists,
  type FacilityRecord,
  type FacilityRow,
  type HcpCountRow,
  type HealthSystemRecord,
  type ProviderRecord,
  type Scope,
} from './queries.js'
import { resolveScope, type GeoInput } from './scope.js'
import { ShapeCache } from './shapes.js'

type AccountQueryType = (typeof NOVA_ACCOUNT_QUERY_TYPES)[number]

/**
 * The data version of a call: the request's (requestDataVersion, read with its login principal and by its ETag), so
 * the answer is computed for the version its ETag names; none outside a request (tests), read then.
 */
type Version = () => Promise<string>

/** A region of the map with its counts and values. */
interface MapRegion {
  id: string
  code: string
  name: string
  type: 'COUNTRY' | 'STATE' | 'TERRITORY'
  territoryName: string | null
  facilities: FacilityRow[]
  counts: NovaCounts
  derived: DerivedMetrics
  values: MetricValues
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

  /**
   * The rows of a call, of its data version (docs/decisions/0054, 0086): the engine's whole data when it is held, else
   * (while it builds) the call's own rows read from the database; every answer below is computed alike from either
   * (engines/nova).
   */
  async data(query: NovaQuery, version?: Version): Promise<NovaData> {
    return novaEngine.rows(this.pool, version ? await version() : await dataVersion(this.pool), query)
  }

  /** The active facilities of a scope (and of a health system), from the data. */
  private scopedRows(data: NovaData, scope: Scope, healthSystemId?: string): FacilityRow[] {
    if (scope.level === 'COUNTRY' && healthSystemId === undefined) return data.rows
    const counties = scope.level === 'SALES_TERRITORY' ? (data.territoryCounties.get(scope.territory.id) ?? new Set<string>()) : null
    return data.rows.filter(
      (r) =>
        (scope.level !== 'STATE' || r.state === scope.state) &&
        (counties === null || (r.county_fips !== null && counties.has(r.county_fips))) &&
        (healthSystemId === undefined || r.healthsystem_id === healthSystemId),
    )
  }

  // ------------------------------------------------------------ metadata

  async metadata(version?: Version): Promise<NovaMetadata> {
    const { years } = await this.data({ facilities: false }, version)
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

  async territoryNames(_useCase: string, version?: Version): Promise<{ territory_names: TerritoryName[] }> {
    // every use case reads the serb_crofab territories (territoryUseCase), ordered by state and name
    return { territory_names: (await this.data({ facilities: false }, version)).territories }
  }

  // ------------------------------------------------------------ accounts

  /** A facility as an account of its own (the same object for every list of the data version). */
  private facilityAccount(data: NovaData, row: FacilityRow): Account {
    return data.memo.get(`facility-account:${row.id}`, () => {
      const derived = data.derived.get(row.id) ?? derive(row)
      return {
        id: facilityCitrusId(row),
        name: row.name,
        kind: 'FACILITY' as const,
        facilities: [row],
        systemId: row.health_system_id,
        systemName: row.health_system_name,
        counts: row,
        derived,
        values: metricValues(derived, { facility_count: 1 }),
      }
    })
  }

  /** The accounts of a scope, grouped by type, before filters and sorting (kept with the data). */
  private accountList(data: NovaData, scope: Scope, type: AccountQueryType, healthSystemId: string | undefined): Account[] {
    return data.memo.get(
      `accounts:${scopeKey(scope)}:${type}:${healthSystemId ?? ''}`,
      () => {
        const accounts: Account[] = []
        const systems = new Map<number, FacilityRow[]>()
        for (const row of this.scopedRows(data, scope, healthSystemId)) {
          if (type === 'HEALTH_SYSTEM_OR_INDEPENDENT_FACILITY' && row.health_system_id !== null) {
            const list = systems.get(row.health_system_id)
            if (list) list.push(row)
            else systems.set(row.health_system_id, [row])
          } else accounts.push(this.facilityAccount(data, row))
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
      },
      () => LIST_WEIGHT,
    )
  }

  /**
   * A page of accounts as JSON text: each account's insight (details, payer mix, top prescribers, badges) is
   * written once per scope and data version and kept in the memo; a page splices the insights of its accounts.
   */
  async accountsJson(
    input: {
      geo_filter_input: GeoInput
      nova_use_case: string
      account_query_type: AccountQueryType
      filter_inputs: FilterInput[]
    } & Paging,
    version?: Version,
  ): Promise<string> {
    const healthSystemId = stringFilter(input.filter_inputs, 'health_system_id')
    const data = await this.data({ geo: input.geo_filter_input, healthSystemId, facilities: {} }, version)
    const scope = resolveScope(data, input.geo_filter_input)
    if (healthSystemId !== undefined && !data.systemCodes.has(healthSystemId) && !(await healthSystemExists(this.pool, healthSystemId))) {
      throw notFound(NOVA_MESSAGES.healthSystemNotFound(healthSystemId))
    }
    const quick = quickFilters(input.filter_inputs)
    const { code, sort_direction: direction } = input.sort_input
    const listKey = `${scopeKey(scope)}:${input.account_query_type}:${healthSystemId ?? ''}`
    const sorted = data.memo.get(
      `sorted:${listKey}:${code}:${direction}`,
      () => sortRows([...this.accountList(data, scope, input.account_query_type, healthSystemId)], code, direction, data.nameOrder),
      () => LIST_WEIGHT,
    )
    const accounts = quick.none ? sorted : sorted.filter((a) => passesQuickFilters(a, quick))
    const pageItems = accounts.slice(input.page * input.page_size, (input.page + 1) * input.page_size)
    const year = data.year
    // the page's details: in the whole data, else (while it builds) read for the page's facilities only, of the same
    // version, the rest taken from the list's data
    const details =
      data.partial && year !== null && pageItems.length > 0
        ? await novaEngine.rows(this.pool, data.version, {
            facilityIds: pageItems.flatMap((a) => a.facilities.map((f) => f.id)),
            facilities: { clinicians: true, payers: true, affiliations: true },
            from: data,
          })
        : data
    const results =
      year === null
        ? []
        : pageItems.map((account) =>
            data.memo.get(
              `insight:${scopeKey(scope)}:${account.kind}:${account.id}`,
              () => JSON.stringify(this.enrichAccounts(details, [account], year, scope.level)[0]),
              (json) => json.length,
            ),
          )
    const { results: _, ...paging } = pageOf([], accounts.length, input)
    return `{"page_results":{"results":[${results.join(',')}],${JSON.stringify(paging).slice(1, -1)}}}`
  }

  /** Details, badges, payer mix, top prescribers and specialties of the accounts of one page, from the data. */
  private enrichAccounts(data: NovaData, accounts: Account[], year: number, level: NovaRegionLevel): NovaInsight[] {
    return accounts.map((account) => {
      const payerByType = new Map<string, number>()
      const specialtyByName = new Map<string, number>()
      const prescribers: HcpCountRow[] = []
      let affiliatedTotal = 0
      let topRank = Infinity
      for (const f of account.facilities) {
        for (const [payer, n] of data.payers.get(f.id) ?? []) payerByType.set(payer, (payerByType.get(payer) ?? 0) + n)
        for (const [specialty, n] of data.affiliations.byFacility.get(f.id) ?? []) {
          specialtyByName.set(specialty, (specialtyByName.get(specialty) ?? 0) + n)
          affiliatedTotal += n
        }
        for (const r of data.hcps.get(f.id) ?? []) {
          prescribers.push(r)
          const rank = data.ranks.get(r.npi)
          if (rank !== undefined && rank < topRank) topRank = rank
        }
      }
      const treating = new Set(prescribers.filter((p) => p.cases_5y > 0).map((p) => p.npi)).size
      const values = { ...account.values, provider_count: affiliatedTotal, treating_provider_count: treating }
      const system = account.systemId !== null ? data.systems.get(account.systemId) : undefined
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
        metrics: groupMetrics(values),
        payer_mix: payerMix(payerByType),
        ...topLists(prescribers, data.providers),
        specialty_breakdown: specialtyList(specialtyByName),
      }
    })
  }

  // ------------------------------------------------------------ facility

  /** A facility by NPI: an active one from the data, any other from its row. */
  private async facilityByNpi(data: NovaData, npi: string): Promise<FacilityRecord | null> {
    return data.byNpi.get(npi) ?? (await facilityByNpi(this.pool, npi))
  }

  /** One facility's insight as JSON text (an active facility's is kept in the memo). */
  async facilityJson(npi: string, version?: Version): Promise<string> {
    const data = await this.data({ facilityNpi: npi, facilities: { clinicians: true, payers: true, affiliations: true } }, version)
    const facility = await this.facilityByNpi(data, npi)
    if (!facility) throw notFound(NOVA_MESSAGES.facilityNotFound(npi))
    const active = data.byId.get(facility.id)
    const row: FacilityRow = active ?? { ...facility, ...emptyCounts() }
    const account: Account = active
      ? this.facilityAccount(data, active)
      : (() => {
          const derived = derive(row)
          return {
            id: facilityCitrusId(facility),
            name: facility.name,
            kind: 'FACILITY' as const,
            facilities: [row],
            systemId: facility.health_system_id,
            systemName: facility.health_system_name,
            counts: row,
            derived,
            values: metricValues(derived, { facility_count: 1 }),
          }
        })()
    const write = () =>
      `{"facility_insight":${JSON.stringify(this.enrichAccounts(data, [account], data.year ?? new Date().getUTCFullYear(), 'COUNTRY')[0])}}`
    return active ? data.memo.get(`facility:${active.id}`, write, (json) => json.length) : write()
  }

  // ------------------------------------------------------------ HCPs

  async hcps(
    input: { geo_filter_input?: GeoInput | undefined; nova_use_case: string; filter_inputs: FilterInput[] } & Paging,
    version?: Version,
  ): Promise<{ page_results: NovaPageResults }> {
    const npi = String(input.filter_inputs.find((f) => f.code === 'facility_npi')?.filter_value ?? '')
    const data = await this.data({ facilityNpi: npi, facilities: { clinicians: true } }, version)
    if (input.geo_filter_input) resolveScope(data, input.geo_filter_input)
    const facility = await this.facilityByNpi(data, npi)
    if (!facility) throw notFound(NOVA_MESSAGES.facilityNotFound(npi))
    const year = data.year
    const rows = year === null ? [] : (data.hcps.get(facility.id) ?? [])
    const minCases = numberFilter(input.filter_inputs, 'min_snake_envenominations')
    const minCrofab = numberFilter(input.filter_inputs, 'min_crofab_units_used')
    const items = rows.map((r) => {
      const p = data.providers.get(r.npi)
      const derived = derive(r)
      const values = providerValues(derived, p)
      return { id: r.npi, name: p?.full_name ?? `NPI ${r.npi}`, values, derived, provider: p, npi: r.npi }
    })
    const filtered = items.filter(
      (item) =>
        (minCases === undefined || item.derived.snake_envenomination_cases_5y >= minCases) &&
        (minCrofab === undefined || item.derived.crofab_units_used_5y >= minCrofab),
    )
    sortRows(filtered, input.sort_input.code, input.sort_input.sort_direction)
    const page = filtered.slice(input.page * input.page_size, (input.page + 1) * input.page_size)
    const results: NovaInsight[] = page.map((item) => {
      const rank = data.ranks.get(item.npi)
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

  async summary(
    input: { geo_filter_input: GeoInput; map_selection: { filter_value: NovaMapType }; nova_use_case: string },
    version?: Version,
  ): Promise<AtlasSummaryResponse> {
    const data = await this.data({ geo: input.geo_filter_input, facilities: { clinicians: true, payers: true } }, version)
    const scope = resolveScope(data, input.geo_filter_input)
    const mapType = NOVA_MAP_TYPES.find((t) => t.code === input.map_selection.filter_value)!
    const { summary, values, counts } = data.memo.get(`summary:${scopeKey(scope)}`, () => this.scopeSummary(data, scope))
    return { summary, map_selection: { code: mapType.code, name: mapType.name, value: values[mapType.metric] ?? null }, counts }
  }

  private scopeSummary(
    data: NovaData,
    scope: Scope,
  ): { summary: NovaInsight; values: MetricValues; counts: AtlasSummaryResponse['counts'] } {
    const year = data.year
    const rows = this.scopedRows(data, scope)
    const region = regionValues(rows)
    const payerByType = new Map<string, number>()
    const prescribers: HcpCountRow[] = []
    for (const r of rows) {
      for (const [payer, n] of data.payers.get(r.id) ?? []) payerByType.set(payer, (payerByType.get(payer) ?? 0) + n)
      for (const p of data.hcps.get(r.id) ?? []) prescribers.push(p)
    }
    const treating = scope.level === 'COUNTRY' ? data.treatingAll : new Set(prescribers.map((p) => p.npi)).size
    const systems = new Set(rows.filter((r) => r.health_system_id !== null).map((r) => r.health_system_id)).size
    const values: MetricValues = {
      ...region.values,
      health_system_count: systems,
      facility_count: rows.length,
      treating_provider_count: treating,
    }
    const name = scopeName(scope)
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
      ...topLists(prescribers, data.providers),
    }
    return { summary, values, counts: { health_system_count: systems, facility_count: rows.length, provider_count: treating } }
  }

  /**
   * The map of a scope as JSON (UTF-8 bytes): region features with their outlines spliced in as PostGIS wrote
   * them, facility points from per-facility fragments, kept encoded with the data per scope, granularity, map
   * type and points (a national map with its points is several MB: not even re-encoded per call).
   */
  async tilesJson(
    input: {
      geo_filter_input: GeoInput
      map_selection: { filter_value: NovaMapType }
      nova_use_case: string
      point_selection?: 'ALL' | 'NONE' | undefined
    },
    version?: Version,
  ): Promise<Buffer> {
    const data = await this.data({ geo: input.geo_filter_input, facilities: {} }, version)
    const scope = resolveScope(data, input.geo_filter_input)
    const granularity = input.geo_filter_input.filter_value.granularity ?? 'STATE'
    const mapType = NOVA_MAP_TYPES.find((t) => t.code === input.map_selection.filter_value)!
    const points = input.point_selection === 'ALL'
    const regions = this.mapRegions(data, scope, granularity)
    const geometries = await this.regionGeometries(regions)
    return data.memo.get(
      `tiles:${scopeKey(scope)}:${granularity}:${mapType.code}:${points ? 'ALL' : 'NONE'}`,
      () => Buffer.from(this.writeTiles(data, scope, regions, geometries, mapType, points)),
      (json) => json.byteLength,
    )
  }

  /** The regions of the map: the scope itself when the granularity is not finer than the scope. */
  private mapRegions(data: NovaData, scope: Scope, granularity: NovaGranularity): MapRegion[] {
    return data.memo.get(
      `regions:${scopeKey(scope)}:${granularity}`,
      (): MapRegion[] => {
        const rows = this.scopedRows(data, scope)
        const withValues = (r: Omit<MapRegion, 'counts' | 'derived' | 'values'>): MapRegion => ({ ...r, ...regionValues(r.facilities) })
        if (granularity === 'STATE' && scope.level === 'COUNTRY') {
          const byState = groupBy(rows, (r) => r.state)
          return data.mapStates.map((s) =>
            withValues({
              id: s.abbr,
              code: s.abbr,
              name: s.name,
              type: 'STATE',
              territoryName: null,
              facilities: byState.get(s.abbr) ?? [],
            }),
          )
        }
        if (granularity === 'SALES_TERRITORY' && scope.level !== 'SALES_TERRITORY') {
          const list = data.territories.filter((t) => scope.level === 'COUNTRY' || (scope.level === 'STATE' && t.state === scope.state))
          const byTerritory = groupBy(rows, (r) => String((r.county_fips && data.countyTerritory.get(r.county_fips)?.id) ?? ''))
          return list.map((t) =>
            withValues({
              id: String(t.id),
              code: String(t.id),
              name: t.name,
              type: 'TERRITORY',
              territoryName: t.name,
              facilities: byTerritory.get(String(t.id)) ?? [],
            }),
          )
        }
        return [
          withValues({
            id: scopeId(scope),
            code: scopeId(scope),
            name: scopeName(scope),
            type: scope.level === 'SALES_TERRITORY' ? 'TERRITORY' : scope.level,
            territoryName: scope.level === 'SALES_TERRITORY' ? scope.territory.name : null,
            facilities: rows,
          }),
        ]
      },
      () => LIST_WEIGHT,
    )
  }

  private writeTiles(
    data: NovaData,
    scope: Scope,
    regions: MapRegion[],
    geometries: Map<string, string>,
    mapType: (typeof NOVA_MAP_TYPES)[number],
    points: boolean,
  ): string {
    const format = metricDef(mapType.metric)?.value_format ?? 'INTEGER'
    const legend = legendOf(
      regions.map((r) => r.values[mapType.metric] ?? null),
      { code: mapType.code, title: mapType.name, value_format: format },
    )
    const metric = JSON.stringify(mapType.metric)
    const parts: string[] = []
    for (const region of regions) {
      const value = region.values[mapType.metric] ?? null
      const properties = {
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
        score: (region.values.serb_crofab_opportunity_score as number | null | undefined) ?? null,
        metrics: featureMetrics(region.values),
        additional_metadata: [{ code: 'facility_count', label: 'Facilities', value: region.facilities.length }],
      } satisfies TileFeature['properties']
      parts.push(
        `{"type":"Feature","id":${JSON.stringify(region.id)},"geometry":${geometries.get(region.id) ?? 'null'},"properties":${JSON.stringify(properties)}}`,
      )
    }
    if (points) {
      for (const f of this.scopedRows(data, scope)) {
        if (!(Math.abs(f.latitude) <= 90 && Math.abs(f.longitude) <= 180)) continue
        const point = this.pointFragment(data, f)
        const value = point.values[mapType.metric] ?? null
        const v = JSON.stringify(value)
        parts.push(
          `${point.head}"primary_metric":${metric},"value":${v},"primary_metric_value":${v},"fill":${JSON.stringify(colorOf(legend, value))}}}`,
        )
      }
    }
    return `{"geojson":{"type":"FeatureCollection","features":[${parts.join(',')}]},"choropleth_legend":${JSON.stringify(legend)}}`
  }

  /** A facility's point feature written up to its map-type dependent properties (value, fill), kept with the data. */
  private pointFragment(data: NovaData, f: FacilityRow): { head: string; values: MetricValues } {
    return data.memo.get(`point:${f.id}`, () => {
      const derived = data.derived.get(f.id) ?? derive(f)
      const values = metricValues(derived)
      const id = facilityCitrusId(f)
      const fixed = {
        id,
        label: f.name,
        code: id,
        territory_name: null,
        entity_type: 'FACILITY',
        has_marker: true,
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
      }
      const geometry = JSON.stringify({ type: 'Point', coordinates: [f.longitude, f.latitude] })
      const properties = JSON.stringify(fixed)
      return {
        head: `{"type":"Feature","id":${JSON.stringify(id)},"geometry":${geometry},"properties":${properties.slice(0, -1)},`,
        values,
      }
    })
  }

  private async regionGeometries(regions: MapRegion[]): Promise<Map<string, string>> {
    const out = new Map<string, string>()
    const needs = new Set(regions.map((r) => r.type))
    const sets = await Promise.all([
      needs.has('STATE') ? this.shapes.states() : null,
      needs.has('TERRITORY') ? this.shapes.territories(NOVA_DEFAULT_USE_CASE) : null,
      needs.has('COUNTRY') ? this.shapes.country() : null,
    ])
    for (const region of regions) {
      const set = region.type === 'STATE' ? sets[0] : region.type === 'TERRITORY' ? sets[1] : sets[2]
      const g = set?.get(region.id)
      if (g) out.set(region.id, g)
    }
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

/** The key of a scope in the data's memo. */
function scopeKey(scope: Scope): string {
  return scope.level === 'COUNTRY' ? 'US' : scope.level === 'STATE' ? `S:${scope.state}` : `T:${scope.territory.id}`
}

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

interface QuickFilters {
  none: boolean
  minScore: number | undefined
  hpg: boolean | undefined
  minCrofab: number | undefined
  minCases: number | undefined
}

/** Quick filters (spec 2 §2): opportunity ≥ 75, purchasing-group affiliation (INFO badge), CroFab use, ≥ 10 cases. */
function quickFilters(filters: FilterInput[]): QuickFilters {
  const minScore = numberFilter(filters, 'min_opportunity_score')
  const hpg = booleanFilter(filters, 'hpg_affiliated')
  const minCrofab = numberFilter(filters, 'min_crofab_units_used')
  const minCases = numberFilter(filters, 'min_snake_envenominations')
  const none = minScore === undefined && hpg === undefined && minCrofab === undefined && minCases === undefined
  return { none, minScore, hpg, minCrofab, minCases }
}

function passesQuickFilters(account: Account, q: QuickFilters): boolean {
  const affiliated = account.kind === 'HEALTH_SYSTEM' || account.systemId !== null
  return (
    (q.minScore === undefined || account.derived.serb_crofab_opportunity_score >= q.minScore) &&
    (q.hpg === undefined || affiliated === q.hpg) &&
    (q.minCrofab === undefined || account.derived.crofab_units_used_5y >= q.minCrofab) &&
    (q.minCases === undefined || account.derived.snake_envenomination_cases_5y >= q.minCases)
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
function topLists(
  rows: readonly Pick<HcpCountRow, 'npi' | 'initials_5y' | 'crofab_patients_5y' | 'anavip_patients_5y'>[],
  providers: Map<string, ProviderRecord>,
) {
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
