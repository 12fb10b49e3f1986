import { TOKEN_STORAGE_KEY } from '@citrus/contracts'
import { fireEvent, screen, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { mockApi } from '../../../test/mock-api'
import { renderApp } from '../../../test/render'
import { loginToken } from '../../../test/tokens'

const TIERS = ['BASE', 'BUSINESS', 'BUSINESS_PLUS', 'ENTERPRISE'] as const
const REQUIRED = {
  customZips: 'BUSINESS',
  csvExport: 'BUSINESS_PLUS',
  facilityLists: 'BUSINESS_PLUS',
  ndcSearch: 'BUSINESS_PLUS',
  score: 'ENTERPRISE',
} as const
const NAMES = { BASE: 'Base', BUSINESS: 'Business', BUSINESS_PLUS: 'Business+', ENTERPRISE: 'Enterprise' } as const

function home(tier: (typeof TIERS)[number]) {
  const rank = (t: string) => TIERS.indexOf(t as (typeof TIERS)[number])
  return {
    plan_tier: tier,
    plan_tier_name: NAMES[tier],
    features: Object.fromEntries(
      Object.entries(REQUIRED).map(([feature, required]) => [
        feature,
        { unlocked: rank(tier) >= rank(required), required_tier: required, required_tier_name: NAMES[required] },
      ]),
    ),
    use_cases: [{ code: 'conditions', name: 'Condition search', description: 'x' }],
    tile_granularities: ['STATE', 'COUNTY', 'ZIP_CODE_50KM'],
    region_types: ['COUNTRY', 'STATE', 'ZIP_CODE_50KM'],
    data: { patients: 10, states: 51, latest_load_at: null },
  }
}

const metric = (code: string, v: number, unit = 'PATIENT_COUNT') => ({
  code,
  name: code,
  description: '',
  unit,
  value: { v, value_kind: 'INT' },
})
const country = {
  entity_type: 'CountryInsight',
  account_type: null,
  citrus_id: 'US',
  display_name: 'United States',
  parent_citrus_id: null,
  territoryLevel: 'COUNTRY',
  badges: [],
  additional_metadata: [],
  summary_md: '',
  metrics: [
    {
      type: 'PRIMARY',
      metrics: [
        metric('patient_count', 120),
        metric('provider_count', 30),
        metric('facility_count', 9),
        metric('health_system_count', 4),
        metric('claim_count', 400),
        metric('state_count', 3),
      ],
    },
    {
      type: 'INSURANCE',
      metrics: [
        metric('commercial_patients', 60),
        metric('medicare_patients', 36),
        metric('medicaid_patients', 18),
        metric('other_patients', 6),
      ],
    },
  ],
  entity: {
    name: 'United States',
    full_name: null,
    parent_name: null,
    npi: null,
    citrus_id: 'US',
    healthsystem_id: null,
    id: 'US',
    zip_code: null,
    latitude: null,
    longitude: null,
    city: null,
    state: null,
    title: null,
    cms_specialization: null,
    facility_name: null,
    address: null,
  },
  zip_code: null,
  name: 'United States',
  latitude: null,
  longitude: null,
}
const generic = {
  geojson: { type: 'FeatureCollection', features: [] },
  choropleth_legend: {
    type: 'GRADIENT',
    metric_config: { title: 'Patients', value_format: 'INTEGER', value_suffix: '' },
    min_value: 0,
    max_value: 70,
    items: [],
  },
  summary: {
    total_patients: 120,
    region_count: 3,
    codes: ['I10'],
    tile_granularity: 'STATE',
    search_within_region: 'US',
    search_within_region_type: 'COUNTRY',
    region_name: 'United States',
    plan_tier: 'BASE',
  },
}
const stateRows = [
  { id: 'TX', state: 'TX', patients: 70, commercialPercent: 50, medicarePercent: 30, medicaidPercent: 15, hcps: 12, hotspot: null },
  { id: 'CA', state: 'CA', patients: 50, commercialPercent: 50, medicarePercent: 30, medicaidPercent: 15, hcps: 9, hotspot: null },
]

function setup(tier: (typeof TIERS)[number]) {
  localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'user' }))
  return mockApi({
    'GET /company/products': { product_groups: ['ATLAS'] },
    'GET /atlas/': home(tier),
    'GET /atlas/generic': { ...generic, summary: { ...generic.summary, plan_tier: tier } },
    'POST /atlas/drilldown': {
      page_results: { results: [country], page: 0, page_size: 1, total_results: 1, total_pages: 1 },
      plan_tier: tier,
    },
    'GET /atlas-v2/list/conditions/1': {
      use_case: 'conditions',
      kind: 'state',
      rows: stateRows.map((r) => ({ ...r, hotspot: tier === 'ENTERPRISE' ? 61.5 : null })),
      page: 1,
      page_size: 25,
      total_rows: 2,
      total_pages: 1,
    },
  })
}

const QUERY =
  'icd10_cm_union_csv=I10&tile_granularity=STATE&search_within_region=US&search_within_region_type=COUNTRY&include_census_data=false'

const slow = { timeout: 15_000 }

describe('/atlas-search', { timeout: 40_000 }, () => {
  it('shows the empty state and the helper text before a search', async () => {
    setup('BASE')
    renderApp('/atlas-search')
    expect(await screen.findByText('Ready to Discover Healthcare Insights', undefined, slow)).toBeDefined()
    expect(screen.getAllByText('Select at least one condition to begin search').length).toBeGreaterThan(0)
    expect((screen.getByRole('button', { name: 'Search' }) as HTMLButtonElement).disabled).toBe(true)
  })

  it('runs the search kept in the URL and shows the overview: stat cards and payer mix', async () => {
    setup('ENTERPRISE')
    renderApp(`/atlas-search?${QUERY}&view=overview`)
    expect(await screen.findByText('Total Patients', undefined, slow)).toBeDefined()
    expect(screen.getByText('120')).toBeDefined()
    expect(screen.getByText('National Payer Mix')).toBeDefined()
    expect(screen.getAllByText('50.0%').length).toBeGreaterThan(0)
    expect(screen.getByText(/Commercial covers the largest share of patients \(50\.0%\)/)).toBeDefined()
  })

  for (const tier of TIERS) {
    it(`${tier}: locks in the list what the tier lacks (CSV export, score; custom ZIPs)`, async () => {
      setup(tier)
      renderApp(`/atlas-search?${QUERY}&view=list`)
      const table = await screen.findByTestId('atlas-state-table', undefined, slow)
      const exportButton = screen.getByRole('button', { name: /Export CSV/ }) as HTMLButtonElement
      expect(exportButton.disabled, 'export').toBe(tier !== 'BUSINESS_PLUS' && tier !== 'ENTERPRISE')
      const blurred = within(table).queryAllByText('00.0')
      expect(blurred.length > 0, 'score locked').toBe(tier !== 'ENTERPRISE')
      if (tier === 'ENTERPRISE') expect(within(table).getAllByText('61.5').length).toBe(2)
      const custom = screen.getByLabelText('Custom ZIP codes') as HTMLInputElement
      expect(custom.disabled, 'custom zips').toBe(tier === 'BASE')
    })
  }

  it('warns that hospitals need Business+ and still loads them', async () => {
    const api = setup('BUSINESS')
    renderApp(`/atlas-search?${QUERY}&view=list`)
    await screen.findByTestId('atlas-state-table', undefined, slow)
    fireEvent.click(screen.getAllByRole('button', { name: 'View Hospitals' })[0]!)
    expect(await screen.findByText('Premium Feature Required', undefined, slow)).toBeDefined()
    expect(await screen.findByText(/Business\+ subscription required to view hospitals/, undefined, slow)).toBeDefined()
    expect(api.calls.some((c) => c.path === '/atlas-v2/list/conditions/1' && c.query.get('kind') === 'hospital')).toBe(true)
  })
})
