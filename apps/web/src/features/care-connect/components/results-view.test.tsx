import { CARE_ANALYTICS_EVENTS, rankingsResponseSchema, type HcpRanking, type RankingsResponse } from '@citrus/contracts'
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { setAnalyticsTransport, type AnalyticsEvent } from '../../../lib/analytics'
import { mockApi } from '../../../test/mock-api'
import { renderWithRouter } from '../../../test/render'
import { ResultsView } from './results-view'

const scores = { distance: 0.9, distance_grade: 'A', quality_of_care: 0.6, quality_of_care_grade: 'B', cost: 0.5, cost_grade: 'B' } as const

function provider(index: number): HcpRanking {
  return {
    hcp_entity: {
      npi: `10000000${String(index).padStart(2, '0')}`,
      full_name: `Dr Test ${index}`,
      title: 'MD',
      cms_specialization: 'Family Medicine Physician',
      provider_type: 'MD_OR_DO',
      address: '1 Main St',
      city: 'Bronx',
      state: 'NY',
      zip_code: '10460',
      latitude: 40.83 + index / 1000,
      longitude: -73.88,
      phone_number: '5395550100',
      hco_npi: null,
      hco_name: null,
      hco_compile_level_1: null,
      medical_school: null,
      years_in_practice: 5,
      gender: 'F',
      website: null,
      accepting_new_patients: true,
      aggregated_insurance_networks_v1: { Aetna: true },
      directory_confidence: 0.9,
      last_verified_at: '2025-12-01',
    },
    final_score: 0.9 - index / 100,
    final_grade: 'A',
    in_network: null,
    task_scores: scores,
    features: {
      distance_in_miles: 1 + index,
      given_diagnosis_counts: {},
      given_procedure_counts: {},
      topical_diagnosis_counts: { I10: 3 },
      topical_procedure_counts: { '99213': 4 },
      top_procedure_percentiles: [{ code: '99213', description: 'Office visit', count: 4, percentile: 50 }],
      top_diagnosis_percentiles: [{ code: 'I10', description: 'Hypertension', count: 3, percentile: 40 }],
      avg_initial_price_by_procedure: { '99213': 150 },
      avg_negotiated_price_by_procedure: { '99213': 90 },
      avg_insurer_price_by_procedure: { '99213': 60 },
      avg_patient_price_by_procedure: { '99213': 30 },
      negotiated_affordability_percentiles: { '99213': 50 },
      patient_affordability_percentiles: { '99213': 50 },
      relevant_claim_count: 7,
      last_year_patient_count: 5,
      last_month_new_patient_count: 1,
    },
    badges: ['NEW_PATIENT_AVAILABLE'],
  }
}

const data: RankingsResponse = rankingsResponseSchema.parse({
  search_lat: 40.83,
  search_long: -73.88,
  state: 'NY',
  city: 'Bronx',
  radius_in_m: 48280,
  common_ranking_metadata: {
    provider_types_to_counts: { MD_OR_DO: 7 },
    institution_types_to_counts: {},
    total_hcp_candidates: 7,
    total_hco_candidates: 0,
    diagnosis_code_descriptions: { I10: 'Hypertension' },
    procedure_code_descriptions: { '99213': 'Office visit' },
    taxonomy_code_descriptions: { '207Q00000X': 'Family Medicine' },
    relevant_diagnosis_codes: ['I10'],
    relevant_procedure_codes: ['99213'],
    codes_source: 'typical',
    weights: { quality_of_care: 0.5, cost: 0.3, distance: 0.2 },
  },
  hcp_rankings: Array.from({ length: 7 }, (_, i) => provider(i)),
  hco_rankings: [],
})

describe('Care Connect results: analytics events (spec 3 §7)', () => {
  const events: AnalyticsEvent[] = []
  let restore = () => {}
  afterEach(() => {
    restore()
    events.length = 0
  })

  it('records provider_details_toggled, pagination_changed and selection_cleared with their properties', async () => {
    mockApi({ 'GET /version': { version: '2.3.0', database_mode: 'embedded', map_style_url: null } })
    restore = setAnalyticsTransport(async (batch) => void events.push(...batch))
    renderWithRouter(<ResultsView data={data} mode="member" search={{ zip_code: '10460', omni_code: '207Q00000X' }} />)
    const cards = await screen.findAllByTestId('provider-card', {}, { timeout: 8000 })
    expect(cards).toHaveLength(5)

    fireEvent.click(within(cards[0]!).getByRole('button', { name: 'Details' }))
    fireEvent.click(within(cards[0]!).getByRole('button', { name: 'Show Less' }))
    expect(events.filter((e) => e.name === CARE_ANALYTICS_EVENTS.detailsToggled)).toEqual([
      { name: 'provider_details_toggled', properties: { npi: '1000000000', expanded: true } },
      { name: 'provider_details_toggled', properties: { npi: '1000000000', expanded: false } },
    ])

    fireEvent.click(screen.getByRole('button', { name: 'Next page' }))
    await waitFor(() => expect(screen.getAllByTestId('provider-card')).toHaveLength(2))
    fireEvent.click(screen.getByRole('button', { name: 'Previous page' }))
    await waitFor(() => expect(screen.getAllByTestId('provider-card')).toHaveLength(5))
    expect(events.filter((e) => e.name === CARE_ANALYTICS_EVENTS.paginationChanged)).toEqual([
      { name: 'pagination_changed', properties: { view: 'member', tab: 'providers', page: 2, page_size: 5 } },
      { name: 'pagination_changed', properties: { view: 'member', tab: 'providers', page: 1, page_size: 5 } },
    ])

    fireEvent.click(screen.getByRole('checkbox', { name: 'Select Dr Test 0' }))
    fireEvent.click(screen.getByRole('checkbox', { name: 'Select Dr Test 1' }))
    fireEvent.click(await screen.findByRole('button', { name: 'Clear all' }))
    expect(events.filter((e) => e.name === CARE_ANALYTICS_EVENTS.selectionCleared)).toEqual([
      { name: 'selection_cleared', properties: { view: 'member', providers: 2, facilities: 0 } },
    ])
    expect(screen.queryByRole('button', { name: 'Clear all' })).toBeNull()
  }, 30_000)
})
