import { describe, expect, it } from 'vitest'
import { defaultMapType } from '../routes/nova-search'
import {
  backToHealthSystem,
  backToNone,
  buildAccountsRequest,
  changeFilters,
  DEFAULT_NOVA_FILTERS,
  filtersFromSearchParams,
  filtersToSearchParams,
  normalizeGranularity,
  normalizeMapType,
  selectHealthSystem,
  selectHospital,
  shouldFetchTiles,
} from './filters'
import { formatMetricValue, metricTabsWithData, specialtyLabel, topEntries, visibleBadges } from './format'

describe('Nova URL normalisation (spec 2 §5)', () => {
  it('normalises granularity labels', () => {
    expect(normalizeGranularity('Sales Territory')).toBe('SALES_TERRITORY')
    expect(normalizeGranularity('Territory')).toBe('SALES_TERRITORY')
    expect(normalizeGranularity('State')).toBe('STATE')
    expect(normalizeGranularity('Country')).toBe('COUNTRY')
    expect(normalizeGranularity('zip_code')).toBe('ZIP_CODE')
  })

  it('maps map type labels to identifiers; unknown labels lower-cased, spaces to underscores, other characters dropped', () => {
    expect(normalizeMapType('SERB CroFab Opportunity Score')).toBe('serb_crofab_opportunity_score')
    expect(normalizeMapType('snake_envenomination_count')).toBe('snake_envenomination_count')
    expect(normalizeMapType('My Custom (Map)!')).toBe('my_custom_map')
  })

  it('reads the filters from the URL with their defaults and writes them back', () => {
    const filters = filtersFromSearchParams(
      new URLSearchParams('region_level=United States&granularity=Sales Territory&map_type=Anavip Units Used'),
    )
    expect(filters).toMatchObject({
      selectedRegionLevel: 'COUNTRY',
      selectedGranularity: 'SALES_TERRITORY',
      selectedMapType: 'serb_anavip_drug_use_count',
      selectedPointType: 'NONE',
      selectedInsightsSort: 'snake_envenominations',
      insightsSortDirection: 'DESC',
      selectedPageSize: 6,
      novaUseCase: 'serb_crofab',
    })
    const params = filtersToSearchParams({ ...filters, selectedCitrusSystemId: 'HS1' }, new URLSearchParams('tab=analytics'))
    expect(params.get('tab')).toBe('analytics')
    expect(params.get('system_id')).toBe('HS1')
    expect(params.get('granularity')).toBe('SALES_TERRITORY')
  })
})

describe('Nova drill-down transitions (spec 2 §4)', () => {
  it('selecting a system, a hospital and going back set the documented fields', () => {
    const system = selectHealthSystem({ ...DEFAULT_NOVA_FILTERS, selectedPage: 3, selectedHcoNpi: '1' }, 'HS1')
    expect(system).toMatchObject({
      selectedCitrusSystemId: 'HS1',
      selectedHcoNpi: '',
      selectedPage: 0,
      selectedInsightsAccountQueryType: 'FACILITY',
    })
    const hospital = selectHospital({ ...system, selectedPage: 2 }, '1234567893')
    expect(hospital).toMatchObject({ selectedHcoNpi: '1234567893', selectedPage: 0, selectedInsightsAccountQueryType: null })
    expect(backToHealthSystem(hospital)).toMatchObject({ selectedHcoNpi: '', selectedInsightsAccountQueryType: 'FACILITY' })
    expect(backToNone(hospital)).toMatchObject({
      selectedCitrusSystemId: '',
      selectedHcoNpi: '',
      selectedInsightsAccountQueryType: 'HEALTH_SYSTEM_OR_INDEPENDENT_FACILITY',
    })
  })

  it('filter changes reset the page; SALES_TERRITORY as scope sets the granularity', () => {
    const start = { ...DEFAULT_NOVA_FILTERS, selectedPage: 4 }
    expect(changeFilters(start, { insightsSortDirection: 'ASC' }).selectedPage).toBe(0)
    expect(changeFilters(start, { selectedMapType: 'snake_envenomination_count' }).selectedPage).toBe(4)
    expect(changeFilters(start, { selectedRegionLevel: 'SALES_TERRITORY' }).selectedGranularity).toBe('SALES_TERRITORY')
  })

  it('fetches tiles for the country or a chosen territory only', () => {
    expect(shouldFetchTiles(DEFAULT_NOVA_FILTERS)).toBe(true)
    expect(shouldFetchTiles({ ...DEFAULT_NOVA_FILTERS, selectedRegionLevel: 'SALES_TERRITORY' })).toBe(false)
    expect(shouldFetchTiles({ ...DEFAULT_NOVA_FILTERS, selectedRegionLevel: 'SALES_TERRITORY', selectedSalesTerritory: 'Texas 1' })).toBe(
      true,
    )
    expect(shouldFetchTiles({ ...DEFAULT_NOVA_FILTERS, selectedRegionLevel: 'STATE', selectedState: 'TX' })).toBe(false)
  })

  it('builds the accounts call with the system filter and the quick filters', () => {
    const body = buildAccountsRequest(
      { ...DEFAULT_NOVA_FILTERS, selectedCitrusSystemId: 'HS1', selectedInsightsAccountQueryType: 'FACILITY' },
      [{ code: 'min_opportunity_score', filter_value: 75 }],
    )
    expect(body.filter_inputs).toEqual([
      { code: 'health_system_id', filter_value: 'HS1' },
      { code: 'min_opportunity_score', filter_value: 75 },
    ])
    expect(body.geo_filter_input).toEqual({
      code: 'region',
      filter_value: { filter_value_kind: 'GEO_WITHIN_REGION', region_level: 'COUNTRY', search_within_region: 'US' },
    })
  })
})

describe('Nova display rules (spec 2 §2, §9)', () => {
  it('picks the CroFab opportunity map type by default, else the first', () => {
    expect(
      defaultMapType([
        { code: 'a', name: 'Cases' },
        { code: 'b', name: 'SERB CroFab Opportunity Score' },
      ]),
    ).toBe('b')
    expect(defaultMapType([{ code: 'a', name: 'Cases' }])).toBe('a')
  })

  it('formats metrics, cuts long specialties, limits badges and top lists', () => {
    expect(formatMetricValue({ value: { v: 0.6783, value_kind: 'FLOAT' }, value_format: 'PERCENTAGE' })).toBe('67.8%')
    expect(formatMetricValue({ value: { v: 0.24358, value_kind: 'FLOAT' }, value_format: 'DECIMAL' })).toBe('0.24')
    expect(formatMetricValue({ value: { v: null, value_kind: 'FLOAT' }, value_format: 'SCORE' })).toBe('—')
    expect(specialtyLabel('Emergency Medicine Physician')).toBe('Emergency Medicine Physician')
    expect(specialtyLabel('Radiation Therapy Radiologist Specialist')).toBe('Radiation Therapy Radiologi...')
    const badge = (type: 'RISK' | 'INFO' | 'SUCCESS' | 'WARNING' | 'OPPORTUNITY') => ({ code: type, type, label: type, description: '' })
    const { shown, hidden } = visibleBadges([badge('INFO'), badge('OPPORTUNITY'), badge('RISK'), badge('SUCCESS'), badge('WARNING')])
    expect(shown.map((b) => b.type)).toEqual(['RISK', 'WARNING', 'SUCCESS'])
    expect(hidden).toBe(2)
    expect(topEntries([1, 2, 3, 4, 5, 6], 4)).toEqual({ shown: [1, 2, 3, 4], more: 2 })
  })

  it('shows metric tabs only for categories with data', () => {
    const metric = (v: number | null) => ({
      code: 'x',
      name: 'x',
      description: '',
      unit: 'UNITS' as const,
      value_format: 'INTEGER' as const,
      value: { v, value_kind: 'INT' as const },
    })
    expect(metricTabsWithData({ metrics: { INCIDENCE: [metric(3)], SALES: [metric(null)], PRIMARY: [metric(1)] } })).toEqual(['INCIDENCE'])
  })
})
