import { TOKEN_STORAGE_KEY, type ProcedureCostResponse } from '@citrus/contracts'
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { mockApi, reply, type MockCall } from '../../../test/mock-api'
import { renderApp } from '../../../test/render'
import { loginToken } from '../../../test/tokens'

const bundle = (patient: number, list: number, insurer: number | null) => ({
  avg_list_rate: list,
  avg_patient_rate: patient,
  avg_insurer_rate: insurer,
  avg_negotiated_rate: insurer === null ? null : patient + insurer,
  median_amount: patient + (insurer ?? 0),
  p10_amount: (patient + (insurer ?? 0)) * 0.8,
  p90_amount: (patient + (insurer ?? 0)) * 1.2,
  methodology: 'fee schedule',
  avg_patient_rate_deductible_met: insurer === null ? null : patient / 2,
  avg_insurer_rate_deductible_met: insurer === null ? null : insurer + patient / 2,
})
const facility = (name: string, patient: number, list: number, dist: number, insurer: number | null) => ({
  hco_name: name,
  hco_npi: null as string | null,
  hco_dist_in_m: dist,
  addr_line_1: '1 Main St',
  city: 'Houston',
  state: 'TX',
  zip_code: '77004',
  phone_number: '7135550100',
  cost_bundle: bundle(patient, list, insurer),
})
const answer = (insurance: string | null, rows: ReturnType<typeof facility>[]): ProcedureCostResponse => ({
  cost_by_hco: rows,
  avg_cost_bundle: rows.length ? bundle(10, 100, insurance ? 50 : null) : null,
  payment_perspective: insurance,
  procedure_codes: ['70551'],
  radius_in_m: 50000,
  cached: false,
})

describe('/price-check', () => {
  it('validates the form, clears a field error on change and opens the results with the query', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'member' }))
    mockApi({
      'GET /typeahead/procedure-typeahead': { procedures: [{ name: 'Brain MRI', cpt_codes: ['70551'], description: 'MRI of the brain' }] },
      'GET /insurers/': { insurers: ['Aetna', 'Cigna Healthcare'] },
    })
    const { router } = renderApp('/price-check')
    fireEvent.click(await screen.findByRole('button', { name: 'Search' }, { timeout: 8000 }))
    expect(await screen.findByText('Please enter a valid 5-digit ZIP code')).toBeTruthy()
    expect(screen.getByText('Please select a procedure')).toBeTruthy()
    fireEvent.change(screen.getByLabelText('ZIP code'), { target: { value: '77004' } })
    expect(screen.queryByText('Please enter a valid 5-digit ZIP code')).toBeNull()
    expect(router.state.location.search).toContain('zip=77004')

    const procedure = screen.getByRole('combobox')
    fireEvent.change(procedure, { target: { value: 'brain' } })
    await screen.findByRole('option', { name: /Brain MRI/ }, { timeout: 2000 })
    fireEvent.keyDown(procedure, { key: 'Enter' })
    expect(screen.queryByText('Please select a procedure')).toBeNull()
    expect(screen.queryByRole('listbox')).toBeNull()

    // insurance starts collapsed; Remove collapses it again
    fireEvent.click(screen.getByRole('button', { name: /Add insurance/ }))
    expect(await screen.findByRole('button', { name: 'Remove' })).toBeTruthy()
    fireEvent.click(screen.getByRole('button', { name: 'Remove' }))
    expect(screen.getByRole('button', { name: /Add insurance/ })).toBeTruthy()

    fireEvent.click(screen.getByRole('button', { name: 'Search' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/price-check/results'))
    expect(router.state.location.search).toBe('?zip_code=77004&procedure_codes_csv=70551')
  }, 30_000)

  it('clears the procedure error on any edit of the procedure text, with no procedure chosen (spec 3 §2.6)', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'member' }))
    mockApi({ 'GET /typeahead/procedure-typeahead': { procedures: [] } })
    renderApp('/price-check')
    fireEvent.click(await screen.findByRole('button', { name: 'Search' }, { timeout: 8000 }))
    expect(await screen.findByText('Please select a procedure')).toBeTruthy()
    fireEvent.change(screen.getByRole('combobox', { name: 'Procedure' }), { target: { value: 'b' } })
    expect(screen.queryByText('Please select a procedure')).toBeNull()
    // the ZIP error stays until the ZIP changes
    expect(screen.getByText('Please enter a valid 5-digit ZIP code')).toBeTruthy()
  }, 30_000)
})

describe('procedure type-ahead', () => {
  it('asks nothing for blank text, closes on a click outside and empties with the clear button', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'member' }))
    const api = mockApi({
      'GET /typeahead/procedure-typeahead': { procedures: [{ name: 'Brain MRI', cpt_codes: ['70551'], description: 'MRI of the brain' }] },
    })
    renderApp('/price-check')
    const input = (await screen.findByRole('combobox', { name: 'Procedure' }, { timeout: 8000 })) as HTMLInputElement
    fireEvent.change(input, { target: { value: '   ' } })
    await new Promise((resolve) => setTimeout(resolve, 450))
    expect(api.callsTo('GET /typeahead/procedure-typeahead')).toHaveLength(0)
    fireEvent.change(input, { target: { value: 'brain' } })
    await screen.findByRole('listbox', {}, { timeout: 2000 })
    expect(api.callsTo('GET /typeahead/procedure-typeahead')[0]!.query.get('limit')).toBe('10')
    fireEvent.mouseDown(document.body)
    await waitFor(() => expect(screen.queryByRole('listbox')).toBeNull())
    fireEvent.click(screen.getByRole('button', { name: 'Clear procedure' }))
    expect(input.value).toBe('')
  }, 30_000)

  it('keeps the clear button clickable, and shown while suggestions load', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'member' }))
    let answer: (() => void) | undefined
    const api = mockApi({
      'GET /typeahead/procedure-typeahead': () =>
        new Promise((resolve) => (answer = () => resolve({ procedures: [{ name: 'Brain MRI', cpt_codes: ['70551'], description: 'x' }] }))),
    })
    renderApp('/price-check')
    const input = (await screen.findByRole('combobox', { name: 'Procedure' }, { timeout: 8000 })) as HTMLInputElement
    // the right section asks for pointer events (Mantine's Input defaults its sections to none: a real click would reach the input)
    const wrapper = input.closest<HTMLElement>('.mantine-Input-wrapper')
    expect(wrapper?.style.getPropertyValue('--input-right-section-pointer-events')).toBe('all')
    fireEvent.change(input, { target: { value: 'brain' } })
    await waitFor(() => expect(api.callsTo('GET /typeahead/procedure-typeahead')).toHaveLength(1), { timeout: 2000 })
    expect(document.querySelector('.mantine-Loader-root')).not.toBeNull()
    fireEvent.click(screen.getByRole('button', { name: 'Clear procedure' }))
    expect(input.value).toBe('')
    answer?.()
    await waitFor(() => expect(document.querySelector('.mantine-Loader-root')).toBeNull())
    expect(screen.queryByRole('listbox')).toBeNull()
  }, 30_000)
})

describe('/price-check on a compact screen', () => {
  it('shows the form in a dialog opened by a floating search button; Cancel closes it', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'member' }))
    const original = window.matchMedia
    window.matchMedia = ((query: string) => ({ ...original(query), matches: true })) as typeof window.matchMedia
    try {
      mockApi({})
      renderApp('/price-check')
      fireEvent.click(await screen.findByRole('button', { name: 'Open search' }, { timeout: 8000 }))
      const dialog = await screen.findByRole('dialog')
      expect(within(dialog).getByRole('button', { name: 'Search' })).toBeTruthy()
      fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }))
      await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    } finally {
      window.matchMedia = original
    }
  }, 30_000)
})

describe('/price-check/results', () => {
  it('shows the bundle in whole dollars, cards with two decimals, FREE, % of list, Insurance Pays and sorts', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'member' }))
    const api = mockApi({
      'GET /cost-transparency/procedure': answer('Aetna', [
        facility('Far Clinic', 0, 200, 9000, 150),
        facility('Near Hospital', 40.5, 400, 1000, 300),
      ]),
    })
    renderApp('/price-check/results?zip_code=77004&insurance=Aetna&procedure_codes_csv=70551', {
      state: { procedure: { name: 'Brain MRI', cpt_codes: ['70551'] } },
    })
    const cards = await screen.findAllByTestId('facility-cost-card', {}, { timeout: 8000 })
    expect(cards.map((c) => within(c).getByRole('heading').textContent)).toEqual(['Far Clinic', 'Near Hospital'])
    expect(within(cards[0]!).getByText('FREE')).toBeTruthy()
    expect(within(cards[1]!).getByText('$40.50')).toBeTruthy()
    expect(within(cards[1]!).getByText('10% of list price')).toBeTruthy()
    expect(within(cards[1]!).getAllByText('Insurance Pays')).toHaveLength(1)
    expect(within(screen.getByTestId('cost-bundle')).getByText('$100')).toBeTruthy()
    expect(api.callsTo('GET /cost-transparency/procedure')[0]!.query.get('payment_perspective')).toBe('Aetna')
    // the Price Check radius rides on every call (spec 3 §7, §9)
    expect(api.callsTo('GET /cost-transparency/procedure')[0]!.query.get('radius_in_m')).toBe('50000')
    expect(screen.getByText('Brain MRI')).toBeTruthy()
  })

  it('shows what the member pays before and after the deductible and links a facility to its cost page with the carrier', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'member' }))
    mockApi({
      'GET /cost-transparency/procedure': answer('Aetna', [
        { ...facility('Near Hospital', 300, 1000, 1000, 500), hco_npi: '1588667638' },
        facility('No NPI Clinic', 350, 1400, 2000, 300),
      ]),
    })
    renderApp('/price-check/results?zip_code=77004&insurance=Aetna&procedure_codes_csv=70551', {
      state: { procedure: { name: 'Brain MRI', cpt_codes: ['70551'] } },
    })
    const cards = await screen.findAllByTestId('facility-cost-card', {}, { timeout: 8000 })
    expect(within(cards[0]!).getByText('You pay (deductible not met)')).toBeTruthy()
    expect(within(cards[0]!).getByTestId('patient-rate').textContent).toBe('$300.00')
    expect(within(cards[0]!).getByTestId('patient-rate-deductible-met').textContent).toBe('Once your deductible is met: $150.00')
    expect(within(cards[0]!).getByTestId('facility-cost-link').getAttribute('href')).toBe(
      // the search rides along, for the cost page's listed price of the same procedure (docs/decisions/0075)
      '/provider-cost-transparency/1588667638?insurance=Aetna&procedure_codes_csv=70551&zip_code=77004',
    )
    expect(within(cards[1]!).queryByTestId('facility-cost-link')).toBeNull()
  }, 30_000)

  it('labels the insurer share before the deductible, one value for an equal range, the method and phone for people (issue 33 items 9-11)', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'member' }))
    const one = facility('Only Hospital', 47.38, 120, 1000, 0.73)
    one.phone_number = '2745550112'
    one.cost_bundle = {
      ...one.cost_bundle,
      median_amount: 48.11,
      p10_amount: 48.11,
      p90_amount: 48.11,
      methodology: 'FEE SCHEDULE',
      avg_patient_rate_deductible_met: 35.77,
      avg_insurer_rate_deductible_met: 12.34,
    }
    mockApi({ 'GET /cost-transparency/procedure': answer('Aetna', [one]) })
    renderApp('/price-check/results?zip_code=77004&insurance=Aetna&procedure_codes_csv=70551', {
      state: { procedure: { name: 'Office visit', cpt_codes: ['70551'] } },
    })
    const card = await screen.findByTestId('facility-cost-card', {}, { timeout: 8000 })
    // the insurer's figure is for the same state as the patient's, and the figure once the deductible is met follows
    const insurer = within(card).getByTestId('insurer-rate')
    expect(within(insurer).getByText('Insurance Pays')).toBeTruthy()
    expect(within(insurer).getByText('(deductible not met)')).toBeTruthy()
    expect(within(insurer).getByText('$0.73')).toBeTruthy()
    expect(within(card).getByTestId('insurer-rate-deductible-met').textContent).toBe('Once your deductible is met: $12.34')
    expect(within(card).getByText("Averages over the carrier's plan designs")).toBeTruthy()
    expect(within(card).getByTestId('estimate-range').textContent).toBe('$48.11')
    const method = within(card).getByTestId('methodology')
    expect(method.textContent).toBe('Fee schedule')
    // Mantine's badge upper-cases its text unless told not to
    expect(method.style.textTransform).toBe('none')
    expect(within(card).getByText('(274) 555-0112')).toBeTruthy()
    expect(screen.getByText('1 facility')).toBeTruthy()
    expect(within(screen.getByTestId('cost-bundle')).getByText('Average you pay (deductible not met)')).toBeTruthy()
  }, 30_000)

  it('shows the empty state with Remove Insurance Filter, which refetches in cash', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'member' }))
    const api = mockApi({
      'GET /cost-transparency/procedure': (call: MockCall) =>
        call.query.get('payment_perspective') ? answer('Aetna', []) : answer(null, [facility('Cash Place', 90, 300, 500, null)]),
    })
    const { router } = renderApp('/price-check/results?zip_code=77004&insurance=Aetna&procedure_codes_csv=70551', {
      state: { procedure: { name: 'Brain MRI', cpt_codes: ['70551'] } },
    })
    expect(await screen.findByText('No Healthcare Providers Found', {}, { timeout: 8000 })).toBeTruthy()
    expect(screen.getByText("We couldn't find any healthcare providers offering Brain MRI near 77004 that accept Aetna.")).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Try New Search' })).toBeTruthy()
    fireEvent.click(screen.getByRole('button', { name: 'Remove Insurance Filter' }))
    const card = await screen.findByTestId('facility-cost-card')
    expect(within(card).queryByText('Insurance Pays')).toBeNull()
    expect(router.state.location.search).toBe('?zip_code=77004&procedure_codes_csv=70551')
    expect(api.callsTo('GET /cost-transparency/procedure')).toHaveLength(2)
    expect(api.callsTo('GET /cost-transparency/procedure').map((call) => call.query.get('radius_in_m'))).toEqual(['50000', '50000'])
  })

  it('names the procedure of a bookmarked results URL from its codes', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'member' }))
    mockApi({
      'GET /cost-transparency/procedure': answer(null, [facility('Cash Place', 90, 300, 500, null)]),
      'GET /typeahead/procedure-typeahead': {
        procedures: [
          { name: 'Brain MRI with contrast', cpt_codes: ['70551', '70552'], description: 'x' },
          { name: 'Brain MRI', cpt_codes: ['70551'], description: 'MRI of the brain' },
        ],
      },
    })
    renderApp('/price-check/results?zip_code=77004&procedure_codes_csv=70551')
    expect(await screen.findByRole('heading', { name: 'Brain MRI' }, { timeout: 8000 })).toBeTruthy()
  }, 30_000)

  it('shows the error alert and no list when the fetch fails', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'member' }))
    vi.spyOn(console, 'error').mockImplementation(() => undefined)
    mockApi({ 'GET /cost-transparency/procedure': reply(500, { message: 'boom', code: 'INTERNAL_ERROR', status: 500 }) })
    renderApp('/price-check/results?zip_code=77004&procedure_codes_csv=70551')
    expect(await screen.findByText('Failed to fetch cost data. Please try again later.', {}, { timeout: 8000 })).toBeTruthy()
    expect(screen.queryAllByTestId('facility-cost-card')).toHaveLength(0)
  })
})
