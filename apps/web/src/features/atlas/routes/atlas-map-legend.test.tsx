import { TOKEN_STORAGE_KEY } from '@citrus/contracts'
import { screen } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { mockApi } from '../../../test/mock-api'
import { renderWithRouter } from '../../../test/render'
import { loginToken } from '../../../test/tokens'
import type * as MapSlot from '../components/atlas-map-slot'
import type { AtlasMapProps } from '../components/atlas-map-slot'
import { AtlasGenericResultsRoute } from './atlas-generic-results'

// the map itself needs WebGL; what matters here is the legend title the page hands it
vi.mock('../components/atlas-map-slot', async (importOriginal) => ({
  ...(await importOriginal<typeof MapSlot>()),
  AtlasMapSlot: ({ choropleth }: AtlasMapProps) => <div data-testid="legend-title">{choropleth?.title ?? choropleth?.property}</div>,
}))

const generic = {
  geojson: { type: 'FeatureCollection', features: [] },
  choropleth_legend: {
    type: 'GRADIENT',
    metric_config: { title: 'Patients', value_format: 'INTEGER', value_suffix: '' },
    min_value: 0,
    max_value: 1200,
    items: [{ color: '#eee', opacity: 0.7, label: '0 - 1,200', min_value: 0, max_value: 1200 }],
  },
  summary: {
    total_patients: 1200,
    region_count: 1,
    codes: ['E11'],
    tile_granularity: 'STATE',
    search_within_region: 'US',
    search_within_region_type: 'COUNTRY',
    region_name: 'United States',
    plan_tier: 'BASE',
  },
}

describe('Atlas map legend (issue 33 item 11)', { timeout: 30_000 }, () => {
  it("is titled with the answer's metric, not the raw property name 'value'", async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'user' }))
    mockApi({
      'GET /atlas/generic': generic,
      'POST /atlas/drilldown': {
        page_results: { results: [], page: 0, page_size: 25, total_results: 0, total_pages: 0 },
        plan_tier: 'BASE',
      },
    })
    renderWithRouter(<AtlasGenericResultsRoute />, {
      path: '/atlas/generic/results?icd10_cm_union_csv=E11&search_within_region=US&search_within_region_type=COUNTRY',
    })
    expect((await screen.findByTestId('legend-title', undefined, { timeout: 10_000 })).textContent).toBe('Patients')
  })
})
