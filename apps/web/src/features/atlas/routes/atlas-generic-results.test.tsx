import { TOKEN_STORAGE_KEY } from '@citrus/contracts'
import { fireEvent, screen, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { mockApi } from '../../../test/mock-api'
import { renderWithRouter } from '../../../test/render'
import { loginToken } from '../../../test/tokens'
import { AtlasGenericResultsRoute } from './atlas-generic-results'

const metric = (code: string, name: string, v: number, unit = 'PATIENT_COUNT', kind = 'INT') => ({
  code,
  name,
  description: '',
  unit,
  value: { v, value_kind: kind },
})
const texas = {
  entity_type: 'STATE',
  account_type: null,
  citrus_id: 'TX',
  display_name: 'Texas',
  parent_citrus_id: 'US',
  territoryLevel: 'STATE',
  badges: [],
  additional_metadata: [],
  summary_md: '',
  metrics: [
    {
      type: 'PRIMARY',
      metrics: [metric('patient_count', 'Total Patients', 1200), metric('prevalence_per_100k', 'Prevalence', 4.5, 'RATIO', 'FLOAT')],
    },
  ],
  entity: {
    name: 'Texas',
    full_name: null,
    parent_name: null,
    npi: null,
    citrus_id: 'TX',
    healthsystem_id: null,
    id: 'TX',
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
  name: 'Texas',
  latitude: null,
  longitude: null,
}
const generic = {
  geojson: { type: 'FeatureCollection', features: [] },
  choropleth_legend: {
    type: 'GRADIENT',
    metric_config: { title: 'Patients', value_format: 'INTEGER', value_suffix: '' },
    min_value: 0,
    max_value: 0,
    items: [],
  },
  summary: {
    total_patients: 0,
    region_count: 0,
    codes: ['E11', 'E10'],
    tile_granularity: 'STATE',
    search_within_region: 'US',
    search_within_region_type: 'COUNTRY',
    region_name: 'United States',
    plan_tier: 'BASE',
  },
}

describe('/atlas/generic/results Region Analysis drawer', { timeout: 30_000 }, () => {
  it('names the searched conditions, not arthritis, and labels its fixed rates as assumed (issue 33)', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'user' }))
    mockApi({
      'GET /atlas/generic': generic,
      'POST /atlas/drilldown': {
        page_results: { results: [texas], page: 0, page_size: 25, total_results: 1, total_pages: 1 },
        plan_tier: 'BASE',
      },
    })
    renderWithRouter(<AtlasGenericResultsRoute />, {
      path: '/atlas/generic/results?icd10_cm_union_csv=E11,E10&search_within_region=US&search_within_region_type=COUNTRY',
    })
    const card = (await screen.findByText('Texas', undefined, { timeout: 10_000 })).closest('[data-insight]') as HTMLElement
    fireEvent.click(within(card).getByRole('button', { name: 'Region Analysis' }))
    const cases = await screen.findByTestId('region-cases')
    expect(cases.textContent).toBe('Cases (E11, E10): 1,200')
    expect(document.body.textContent).not.toMatch(/arthritis/i)
    const estimates = screen.getByTestId('region-estimates').textContent ?? ''
    expect(estimates).toContain('Illustrative estimates')
    expect(estimates).toContain('Fixed rates, the same for every condition; not measured for the searched conditions.')
    expect(estimates).toContain('Trial potential: 24 eligible (assumed 2% of cases)')
    expect(estimates).toContain('Moderate to severe: 360 (assumed 30%)')
    expect(estimates).toContain('Average diagnosis delay: 2.5 years (assumed)')
  })
})
