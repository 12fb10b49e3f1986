import { CARE_ANALYTICS_EVENTS, rankingsResponseSchema, type HcoRanking, type RankingsResponse } from '@citrus/contracts'
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { setAnalyticsTransport, type AnalyticsEvent } from '../../../lib/analytics'
import { EMPTY_RANKINGS, rankingProvider as provider } from '../../../test/care-fixtures'
import { mockApi } from '../../../test/mock-api'
import { renderWithRouter } from '../../../test/render'
import { ResultsView } from './results-view'

// the map (MapLibre, WebGL) has tests of its own (results-map.test.tsx); jsdom has no WebGL2
vi.mock('./results-map', () => ({ ResultsMap: () => null }))

const data: RankingsResponse = rankingsResponseSchema.parse({
  ...EMPTY_RANKINGS,
  common_ranking_metadata: {
    ...EMPTY_RANKINGS.common_ranking_metadata,
    provider_types_to_counts: { MD_OR_DO: 7 },
    total_hcp_candidates: 7,
    diagnosis_code_descriptions: { I10: 'Hypertension' },
    procedure_code_descriptions: { '99213': 'Office visit' },
    relevant_diagnosis_codes: ['I10'],
    relevant_procedure_codes: ['99213'],
  },
  hcp_rankings: Array.from({ length: 7 }, (_, i) => provider(i)),
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

type Grade = HcoRanking['final_grade']
function facility(
  index: number,
  name: string,
  institution: HcoRanking['institution_type'],
  level: string,
  o: { final: number; cost: [Grade, number]; quality: [Grade, number]; miles: number },
): HcoRanking {
  return {
    hco_npi: `15000000${String(index).padStart(2, '0')}`,
    hco_id: 100 + index,
    hco_name: name,
    hco_address: `${index + 1} Grand Concourse`,
    city: 'Bronx',
    state: 'NY',
    zip_code: '10451',
    latitude: 40.82 + index / 1000,
    longitude: -73.92,
    hco_phone_number: '7185550100',
    hco_compile_level_1: level,
    institution_type: institution,
    distance_in_miles: o.miles,
    final_score: o.final,
    final_grade: 'A',
    num_hcp_samples: 12,
    task_scores: {
      distance: 0.8,
      distance_grade: 'A',
      quality_of_care: o.quality[1],
      quality_of_care_grade: o.quality[0],
      cost: o.cost[1],
      cost_grade: o.cost[0],
    },
  }
}

// listed by overall score: Bronx General, Fordham Surgery Center, Mott Haven Hospital
const facilities: HcoRanking[] = [
  facility(0, 'Bronx General Hospital', 'HOSPITALS', 'Hospital', { final: 0.9, cost: ['C', 0.4], quality: ['A', 0.9], miles: 3 }),
  facility(1, 'Fordham Surgery Center', 'OUTPATIENT CENTER', 'Ambulatory Surgery Center', {
    final: 0.8,
    cost: ['A', 0.85],
    quality: ['C', 0.4],
    miles: 1,
  }),
  facility(2, 'Mott Haven Hospital', 'HOSPITALS', 'Hospital', { final: 0.7, cost: ['B', 0.7], quality: ['B', 0.6], miles: 2 }),
]

function withFacilities(rows: HcoRanking[], institutionCounts: Record<string, number>): RankingsResponse {
  return rankingsResponseSchema.parse({
    ...data,
    hcp_rankings: data.hcp_rankings.slice(0, 2),
    hco_rankings: rows,
    common_ranking_metadata: {
      ...data.common_ranking_metadata,
      institution_types_to_counts: institutionCounts,
      total_hco_candidates: Object.values(institutionCounts).reduce((a, b) => a + b, 0),
    },
  })
}
const mixed = withFacilities(facilities, { HOSPITALS: 2, 'OUTPATIENT CENTER': 1 })

async function renderReferral(rankings: RankingsResponse) {
  mockApi({ 'GET /version': { version: '2.3.0', database_mode: 'embedded', map_style_url: null } })
  renderWithRouter(<ResultsView data={rankings} mode="referral" search={{ zip_code: '10460', omni_code: '207Q00000X' }} />)
  return screen.findAllByTestId('provider-card', {}, { timeout: 8000 })
}
const facilityNames = () =>
  screen
    .getAllByTestId('facility-card')
    .map((card) => within(card).getByRole('checkbox').getAttribute('aria-label')?.replace('Select ', ''))
const sortBox = () => screen.getByRole('combobox', { name: 'Sort' }) as HTMLInputElement
/** Opens the sort list, returns its labels and picks `label` (which closes it). */
async function pickSort(label: string): Promise<string[]> {
  fireEvent.click(sortBox())
  const options = await screen.findAllByRole('option')
  const labels = options.map((o) => o.textContent ?? '')
  fireEvent.click(screen.getByRole('option', { name: label }))
  await waitFor(() => expect(sortBox().value).toBe(label))
  return labels
}

describe('Care Connect results: sort labels per tab (spec 3 §9)', () => {
  it('offers the provider sort labels on Providers and the grade sort labels on Hospitals, never an unoffered sort', async () => {
    await renderReferral(mixed)
    expect(sortBox().value).toBe('overall score')
    expect(await pickSort('Care Affordability')).toEqual(['overall score', 'Care Affordability', 'Quality of Care', 'Distance'])

    // Care Affordability is no grade sort: the Hospitals tab falls back to overall score
    fireEvent.click(screen.getByRole('tab', { name: 'Hospitals' }))
    await waitFor(() => expect(screen.getAllByTestId('facility-card')).toHaveLength(3))
    expect(sortBox().value).toBe('overall score')
    expect(facilityNames()).toEqual(['Bronx General Hospital', 'Fordham Surgery Center', 'Mott Haven Hospital'])

    expect(await pickSort('Cost Grade')).toEqual(['overall score', 'Cost Grade', 'Quality Grade', 'Distance'])
    expect(facilityNames()).toEqual(['Fordham Surgery Center', 'Mott Haven Hospital', 'Bronx General Hospital'])
    await pickSort('Quality Grade')
    expect(facilityNames()).toEqual(['Bronx General Hospital', 'Mott Haven Hospital', 'Fordham Surgery Center'])
    await pickSort('Distance')
    expect(facilityNames()).toEqual(['Fordham Surgery Center', 'Mott Haven Hospital', 'Bronx General Hospital'])

    // Distance is offered by both tabs and stays; Cost Grade is not offered on Providers
    fireEvent.click(screen.getByRole('tab', { name: 'Providers' }))
    await waitFor(() => expect(screen.queryAllByTestId('facility-card')).toHaveLength(0))
    expect(sortBox().value).toBe('Distance')
    fireEvent.click(screen.getByRole('tab', { name: 'Hospitals' }))
    await pickSort('Cost Grade')
    fireEvent.click(screen.getByRole('tab', { name: 'Providers' }))
    await waitFor(() => expect(sortBox().value).toBe('overall score'))
    fireEvent.click(sortBox())
    expect((await screen.findAllByRole('option')).map((o) => o.textContent)).toEqual([
      'overall score',
      'Care Affordability',
      'Quality of Care',
      'Distance',
    ])
  }, 30_000)
})

describe('Care Connect results: institution type filter (spec 3 §3, §4.4)', () => {
  it('filters the Hospitals tab on each toggle of Hospitals / Outpatient Center, beside the provider type chips', async () => {
    await renderReferral(mixed)
    fireEvent.click(screen.getByRole('tab', { name: 'Hospitals' }))
    await waitFor(() => expect(screen.getAllByTestId('facility-card')).toHaveLength(3))
    fireEvent.click(screen.getByRole('button', { name: 'Filter' }))
    expect(await screen.findByRole('checkbox', { name: 'Medical Doctor / Osteopathic medicine' })).toBeTruthy()
    expect(screen.getByText('Institution type')).toBeTruthy()
    const hospitals = screen.getByRole('checkbox', { name: 'Hospitals' }) as HTMLInputElement
    const outpatient = screen.getByRole('checkbox', { name: 'Outpatient Center' }) as HTMLInputElement

    fireEvent.click(outpatient)
    await waitFor(() => expect(facilityNames()).toEqual(['Fordham Surgery Center']))
    expect(outpatient.checked).toBe(true)
    fireEvent.click(hospitals)
    await waitFor(() => expect(facilityNames()).toEqual(['Bronx General Hospital', 'Fordham Surgery Center', 'Mott Haven Hospital']))
    fireEvent.click(outpatient)
    await waitFor(() => expect(facilityNames()).toEqual(['Bronx General Hospital', 'Mott Haven Hospital']))
    fireEvent.click(screen.getByRole('button', { name: 'Clear' }))
    await waitFor(() => expect(screen.getAllByTestId('facility-card')).toHaveLength(3))
    expect(hospitals.checked).toBe(false)
    expect(screen.queryByText('No providers found for the selected filters. Please adjust your filter criteria.')).toBeNull()

    // the provider list is not filtered by institution type
    fireEvent.click(outpatient)
    await waitFor(() => expect(facilityNames()).toEqual(['Fordham Surgery Center']))
    fireEvent.click(screen.getByRole('tab', { name: 'Providers' }))
    await waitFor(() => expect(screen.getAllByTestId('provider-card')).toHaveLength(2))
  }, 30_000)

  it('leaves the list unchanged and warns when an institution type has no listed facility', async () => {
    // an outpatient center among the candidates, none listed
    await renderReferral(withFacilities([facilities[0]!, facilities[2]!], { HOSPITALS: 2, 'OUTPATIENT CENTER': 1 }))
    fireEvent.click(screen.getByRole('tab', { name: 'Hospitals' }))
    await waitFor(() => expect(screen.getAllByTestId('facility-card')).toHaveLength(2))
    fireEvent.click(screen.getByRole('button', { name: 'Filter' }))
    const outpatient = (await screen.findByRole('checkbox', { name: 'Outpatient Center' })) as HTMLInputElement
    fireEvent.click(outpatient)
    expect(await screen.findByText('No providers found for the selected filters. Please adjust your filter criteria.')).toBeTruthy()
    expect(outpatient.checked).toBe(false)
    expect(facilityNames()).toEqual(['Bronx General Hospital', 'Mott Haven Hospital'])
  }, 30_000)

  it('offers only the institution types of the search', async () => {
    await renderReferral(withFacilities([facilities[0]!], { HOSPITALS: 1 }))
    fireEvent.click(screen.getByRole('button', { name: 'Filter' }))
    expect(await screen.findByRole('checkbox', { name: 'Hospitals' })).toBeTruthy()
    expect(screen.queryByRole('checkbox', { name: 'Outpatient Center' })).toBeNull()
  }, 30_000)
})

describe('Care Connect results: copy a card (spec 3 §8, §9)', () => {
  afterEach(() => {
    Reflect.deleteProperty(navigator, 'clipboard')
  })

  it("copies a provider's and a hospital's details, toasts '{card} details copied to clipboard', shows Copied for 2 seconds", async () => {
    const writeText = vi.fn().mockResolvedValue(undefined)
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true })
    const cards = await renderReferral(mixed)
    vi.useFakeTimers({ shouldAdvanceTime: true })

    fireEvent.click(within(cards[0]!).getByRole('button', { name: 'Copy details' }))
    expect(await screen.findByText('Dr Test 0 details copied to clipboard')).toBeTruthy()
    expect(writeText).toHaveBeenCalledWith(
      'Dr Test 0 (NPI 1000000000)\nFamily Medicine Physician\n1 Main St, Bronx, NY 10460\nPhone (539) 555-0100\nScore 90 (A)',
    )
    // the copied state follows the clipboard's answer (a promise), not the toast: wait for it
    const copied = await within(cards[0]!).findByRole('button', { name: 'Copied' })
    // copying is no card click: nothing was selected
    expect((within(cards[0]!).getByRole('checkbox', { name: 'Select Dr Test 0' }) as HTMLInputElement).checked).toBe(false)
    act(() => vi.advanceTimersByTime(1800))
    expect(within(cards[0]!).getByRole('button', { name: 'Copied' })).toBe(copied)
    act(() => vi.advanceTimersByTime(250))
    expect(within(cards[0]!).queryByRole('button', { name: 'Copied' })).toBeNull()
    expect(within(cards[0]!).getByRole('button', { name: 'Copy details' })).toBeTruthy()

    fireEvent.click(screen.getByRole('tab', { name: 'Hospitals' }))
    const hospital = (await screen.findAllByTestId('facility-card'))[0]!
    fireEvent.click(within(hospital).getByRole('button', { name: 'Copy details' }))
    expect(await screen.findByText('Bronx General Hospital details copied to clipboard')).toBeTruthy()
    expect(writeText).toHaveBeenLastCalledWith(
      'Bronx General Hospital (NPI 1500000000)\nHospital\n1 Grand Concourse, Bronx, NY 10451\nPhone (718) 555-0100\nScore 90 (A)',
    )
    expect(await within(hospital).findByRole('button', { name: 'Copied' })).toBeTruthy()
    act(() => vi.advanceTimersByTime(2000))
    expect(within(hospital).getByRole('button', { name: 'Copy details' })).toBeTruthy()
  }, 30_000)

  it("shows no copied state when the clipboard refuses ('Failed to copy to clipboard')", async () => {
    Object.defineProperty(navigator, 'clipboard', {
      value: { writeText: vi.fn().mockRejectedValue(new Error('denied')) },
      configurable: true,
    })
    const cards = await renderReferral(mixed)
    fireEvent.click(within(cards[1]!).getByRole('button', { name: 'Copy details' }))
    expect(await screen.findByText('Failed to copy to clipboard')).toBeTruthy()
    expect(within(cards[1]!).queryByRole('button', { name: 'Copied' })).toBeNull()
  }, 30_000)
})
