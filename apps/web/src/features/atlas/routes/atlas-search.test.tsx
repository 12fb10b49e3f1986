import { TOKEN_STORAGE_KEY } from '@citrus/contracts'
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { mockApi } from '../../../test/mock-api'
import { renderApp } from '../../../test/render'
import { loginToken } from '../../../test/tokens'
import { atlasMetric, drilldownAnswer, genericAnswer, regionInsight } from '../test/atlas-fixtures'

// the screenshot library draws on a canvas, which jsdom lacks; the browser test exports real PNGs
const toBlob = vi.hoisted(() => vi.fn())
vi.mock('html-to-image', () => ({ toBlob }))

/** Records the files handed to the browser (a download link is clicked for each). */
function captureDownloads() {
  toBlob.mockReset()
  toBlob.mockResolvedValue(new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], { type: 'image/png' }))
  URL.createObjectURL = vi.fn(() => 'blob:test')
  URL.revokeObjectURL = vi.fn()
  const files: string[] = []
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    files.push(this.download)
  })
  return files
}

const OVERVIEW_CARDS = [
  ['Total Patients', 'total-patients'],
  ['Healthcare Providers', 'healthcare-providers'],
  ['States Analyzed', 'states-analyzed'],
  ['Health Systems', 'health-systems'],
  ['Facilities', 'facilities'],
  ['Total Claims', 'total-claims'],
  ['National Payer Mix', 'national-payer-mix'],
  ['Key Insights', 'key-insights'],
] as const
const DATE = /-\d{4}-\d{2}-\d{2}\.png$/

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

const metric = (code: string, v: number) => atlasMetric(code, code, v)
const country = regionInsight({
  id: 'US',
  name: 'United States',
  entityType: 'CountryInsight',
  territoryLevel: 'COUNTRY',
  parent: null,
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
})
const generic = genericAnswer({ codes: ['I10'], totalPatients: 120, regionCount: 3, maxValue: 70 })
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
    'POST /atlas/drilldown': drilldownAnswer([country], { planTier: tier, pageSize: 1 }),
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

  it('exports each Overview card as a PNG named after its title', async () => {
    setup('BASE')
    const files = captureDownloads()
    renderApp(`/atlas-search?${QUERY}&view=overview`)
    await screen.findByText('Total Patients', undefined, slow)
    for (const [title, slug] of OVERVIEW_CARDS) {
      const button = screen.getByRole('button', { name: `Export ${title} as PNG` })
      fireEvent.click(button)
      await waitFor(() => expect(files).toHaveLength(OVERVIEW_CARDS.findIndex(([t]) => t === title) + 1))
      expect(files.at(-1)).toMatch(new RegExp(`^atlas-${slug}${DATE.source}`))
      // the image is of the card the control sits in, rendered at scale 2 and quality 0.92
      const [node, options] = toBlob.mock.calls.at(-1) as [HTMLElement, { pixelRatio: number; quality: number }]
      expect(node.contains(button)).toBe(true)
      expect(node.getAttribute('data-export-card')).toBe(title)
      expect(within(node).getAllByText(title).length).toBeGreaterThan(0)
      expect(options).toMatchObject({ pixelRatio: 2, quality: 0.92 })
    }
    expect((await screen.findAllByText('Component exported successfully', undefined, slow)).length).toBeGreaterThan(0)
  })

  it('exports every Overview card at once', async () => {
    setup('BASE')
    const files = captureDownloads()
    renderApp(`/atlas-search?${QUERY}&view=overview`)
    await screen.findByText('Total Patients', undefined, slow)
    fireEvent.click(screen.getByRole('button', { name: 'Export All as PNG' }))
    expect(await screen.findByText('Successfully exported 8 component(s)', undefined, slow)).toBeDefined()
    expect(files.map((f) => f.replace(DATE, ''))).toEqual(OVERVIEW_CARDS.map(([, slug]) => `atlas-${slug}`))
  })

  it('tells when a card could not be turned into an image', async () => {
    setup('BASE')
    const files = captureDownloads()
    vi.spyOn(console, 'warn').mockImplementation(() => {})
    toBlob.mockResolvedValueOnce(null)
    renderApp(`/atlas-search?${QUERY}&view=overview`)
    await screen.findByText('Total Patients', undefined, slow)
    fireEvent.click(screen.getByRole('button', { name: 'Export Key Insights as PNG' }))
    expect(await screen.findByText('Failed to create image blob', undefined, slow)).toBeDefined()
    toBlob.mockRejectedValueOnce(new Error('canvas tainted'))
    fireEvent.click(screen.getByRole('button', { name: 'Export National Payer Mix as PNG' }))
    expect(await screen.findByText('Failed to export component. Please try again.', undefined, slow)).toBeDefined()
    expect(files).toHaveLength(0)
  })

  it("checks the query builder by the contract's schema once searched: 'Select at least one condition'", async () => {
    const api = setup('BUSINESS')
    renderApp(`/atlas-search?${QUERY}&view=overview`)
    await screen.findByText('Total Patients', undefined, slow)
    const searchButton = screen.getByRole('button', { name: 'Search' }) as HTMLButtonElement
    await waitFor(() => expect(searchButton.disabled).toBe(false))
    fireEvent.click(searchButton)
    expect(screen.queryByText('Select at least one condition')).toBeNull()
    const calls = api.callsTo('GET /atlas/generic').length
    const picker = screen.getByTestId('condition-picker').closest('.mantine-MultiSelect-root') ?? document
    fireEvent.click(picker.querySelector('.mantine-Pill-remove')!)
    expect(await screen.findByText('Select at least one condition')).toBeDefined()
    expect(searchButton.disabled).toBe(true)
    expect(api.callsTo('GET /atlas/generic')).toHaveLength(calls)
  })

  it('holds the query builder in a resizable, collapsible panel kept across reloads', async () => {
    setup('BASE')
    const first = renderApp('/atlas-search')
    await screen.findByText('Ready to Discover Healthcare Insights', undefined, slow)
    const separator = screen.getByRole('separator', { name: 'Resize query builder' })
    expect(separator.getAttribute('aria-valuenow')).toBe('33')
    fireEvent.keyDown(separator, { key: 'ArrowRight', shiftKey: true })
    expect(separator.getAttribute('aria-valuenow')).toBe('43')
    expect(localStorage.getItem('citrus.atlas.queryBuilder.width')).toBe('43')
    first.unmount()

    renderApp('/atlas-search')
    await screen.findByText('Ready to Discover Healthcare Insights', undefined, slow)
    expect(screen.getByRole('separator', { name: 'Resize query builder' }).getAttribute('aria-valuenow')).toBe('43')
    fireEvent.click(screen.getByRole('button', { name: 'Collapse query builder' }))
    expect(localStorage.getItem('citrus.atlas.queryBuilder.collapsed')).toBe('true')
    expect(screen.queryByRole('separator')).toBeNull()
    expect(screen.getByRole('button', { name: 'Expand query builder' })).toBeDefined()
  })
})
