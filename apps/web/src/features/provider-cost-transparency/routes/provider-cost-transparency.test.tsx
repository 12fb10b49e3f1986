import { TOKEN_STORAGE_KEY } from '@citrus/contracts'
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { mockApi, reply, type MockCall } from '../../../test/mock-api'
import { renderApp } from '../../../test/render'
import { loginToken } from '../../../test/tokens'
import { NPI, providerCostBody as body } from '../../../test/provider-cost-fixture'

describe('/provider-cost-transparency/{npi}', () => {
  it('shows the cost range, visit types with codes and affordability, compares with peers, shares and prints', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'member' }))
    const api = mockApi({
      [`GET /cost-transparency/provider/${NPI}`]: body,
      [`POST /cost-transparency/provider/${NPI}/share`]: {
        id: 'b3f1c6a2-0000-4000-8000-000000000000',
        url: `http://localhost/provider-cost-transparency/${NPI}?token=abc`,
        expires_at: '2026-12-25T00:00:00.000Z',
      },
    })
    renderApp(`/provider-cost-transparency/${NPI}`)
    expect(await screen.findByText('Ada Lovelace, MD', {}, { timeout: 8000 })).toBeTruthy()
    expect(screen.getByTestId('cost-range').textContent).toBe('$20.00 – $120.00')
    expect(screen.getByText('99213')).toBeTruthy()
    expect(screen.getAllByLabelText('Affordability 100').length).toBeGreaterThan(0)

    fireEvent.click(screen.getByRole('button', { name: 'Compare' }))
    const compare = await screen.findByRole('dialog', { name: 'Compared with peers' })
    expect(within(compare).getByText('$58.84')).toBeTruthy()
    fireEvent.keyDown(compare, { key: 'Escape' })

    fireEvent.click(screen.getByRole('button', { name: 'Share' }))
    expect(((await screen.findByLabelText('Shareable link')) as HTMLInputElement).value).toBe(
      `http://localhost/provider-cost-transparency/${NPI}?token=abc`,
    )
    expect(api.callsTo(`POST /cost-transparency/provider/${NPI}/share`)).toHaveLength(1)

    const print = vi.spyOn(window, 'print').mockImplementation(() => undefined)
    fireEvent.click(screen.getByRole('button', { name: 'Print' }))
    expect(print).toHaveBeenCalled()
  }, 30_000)

  it('picks a carrier: the figures come from its claims and the choice stays in the address bar', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'member' }))
    const api = mockApi({
      [`GET /cost-transparency/provider/${NPI}`]: (call: MockCall) =>
        call.query.get('payment_perspective')
          ? { ...body, kind: 'facility', payment_perspective: call.query.get('payment_perspective') }
          : body,
      'GET /insurers/': { insurers: ['Aetna', 'Cigna Healthcare'] },
    })
    const { router } = renderApp(`/provider-cost-transparency/${NPI}?insurance=Aetna`)
    expect(await screen.findByText('Ada Lovelace, MD', {}, { timeout: 8000 })).toBeTruthy()
    expect(api.callsTo(`GET /cost-transparency/provider/${NPI}`)[0]!.query.get('payment_perspective')).toBe('Aetna')
    expect(await screen.findByText('Facility')).toBeTruthy()
    const select = screen.getByRole('combobox', { name: 'Carrier' }) as HTMLInputElement
    expect(select.value).toBe('Aetna')
    fireEvent.click(select)
    fireEvent.click(await screen.findByRole('option', { name: 'Cigna Healthcare' }))
    await waitFor(() => expect(router.state.location.search).toBe('?insurance=Cigna+Healthcare'))
    await waitFor(() =>
      expect(api.callsTo(`GET /cost-transparency/provider/${NPI}`).map((c) => c.query.get('payment_perspective'))).toContain(
        'Cigna Healthcare',
      ),
    )
  }, 30_000)

  it('says 1 claim and 1 peer, shows an equal range as one value and the phone formatted (issue 33 items 9-11)', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'member' }))
    mockApi({
      [`GET /cost-transparency/provider/${NPI}`]: {
        ...body,
        provider: { ...body.provider, phone_number: '2745550112' },
        claim_count: 1,
        estimated_cost_range: { low: 48.11, median: 48.11, high: 48.11 },
        patient_cost_range: { low: 9.62, median: 9.62, high: 9.62 },
        visit_types: [{ ...body.visit_types[0]!, claim_count: 1 }],
        peers: { ...body.peers, count: 1 },
      },
    })
    renderApp(`/provider-cost-transparency/${NPI}`)
    expect(await screen.findByText('Ada Lovelace, MD', {}, { timeout: 8000 })).toBeTruthy()
    expect(screen.getByTestId('cost-range').textContent).toBe('$48.11')
    expect(screen.getByTestId('patient-cost-range').textContent).toBe('$9.62')
    expect(screen.getByText('median $48.11 per visit, from 1 claim')).toBeTruthy()
    expect(screen.getByText('1 claim')).toBeTruthy()
    expect(screen.getByText(/^Affordability vs 1 peer \(/)).toBeTruthy()
    expect(screen.getByText(/\(274\) 555-0112/)).toBeTruthy()
    expect(screen.queryByText(/2745550112/)).toBeNull()
  }, 30_000)

  it("labels the claims figures as paid claims and, opened from Price Check, shows the listed price with Price Check's figures", async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'member' }))
    const listed = {
      procedure_codes: ['73721'],
      payment_perspective: 'Aetna',
      facility_name: 'Houston General Hospital',
      facility_npi: NPI,
      cost_bundle: {
        avg_list_rate: 306.38,
        avg_patient_rate: 151.91,
        avg_insurer_rate: 120.5,
        avg_negotiated_rate: 272.41,
        median_amount: 272.41,
        p10_amount: 272.41,
        p90_amount: 272.41,
        methodology: null,
        avg_patient_rate_deductible_met: 54.48,
        avg_insurer_rate_deductible_met: 217.93,
      },
      price_check: { zip_code: '60601', radius_in_m: 50000, facility_count: 13, affordability: 100 },
    }
    const api = mockApi({
      [`GET /cost-transparency/provider/${NPI}`]: (call: MockCall) =>
        call.query.get('procedure_codes_csv')
          ? { ...body, kind: 'facility', payment_perspective: 'Aetna', claim_count: 1, listed_price: listed }
          : body,
    })
    renderApp(`/provider-cost-transparency/${NPI}?insurance=Aetna&procedure_codes_csv=73721&zip_code=60601`)
    const section = await screen.findByTestId('listed-price', {}, { timeout: 8000 })
    const call = api.callsTo(`GET /cost-transparency/provider/${NPI}`)[0]!
    expect([call.query.get('payment_perspective'), call.query.get('procedure_codes_csv'), call.query.get('zip_code')]).toEqual([
      'Aetna',
      '73721',
      '60601',
    ])
    expect(within(section).getByText('Listed price')).toBeTruthy()
    expect(within(section).getByText('You pay (price list, deductible not met)')).toBeTruthy()
    expect(within(section).getByTestId('listed-patient-rate').textContent).toBe('$151.91')
    expect(within(section).getByTestId('listed-list-rate').textContent).toBe('$306.38')
    expect(within(section).getByTestId('listed-insurer-rate').textContent).toBe('$120.50')
    expect(within(section).getByText('Price Check affordability (among 13 facilities within 50 km of 60601)')).toBeTruthy()
    expect(within(section).getByLabelText('Affordability 100')).toBeTruthy()
    // the claims figures say they are claims
    expect(screen.getByText('Paid claims')).toBeTruthy()
    expect(screen.getByText('Estimated cost range (paid claims)')).toBeTruthy()
    expect(screen.getAllByText('Patient paid (claims)').length).toBeGreaterThan(0)
    expect(screen.getByText(/Compares mean negotiated amounts on claims/)).toBeTruthy()
  }, 30_000)

  it('shows a code billed in several units with its per-unit price (Care Connect) beside the claim-line mean', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'member' }))
    const visit = body.visit_types[0]!
    mockApi({
      [`GET /cost-transparency/provider/${NPI}`]: {
        ...body,
        visit_types: [{ ...visit, unit_price: { ...visit.unit_price!, negotiated: 26.5 } }],
      },
    })
    renderApp(`/provider-cost-transparency/${NPI}`)
    expect((await screen.findByTestId('unit-price', {}, { timeout: 8000 })).textContent).toBe('$26.50 per unit (Care Connect)')
    // equal figures are shown once; no listed price without Price Check's codes
    expect(screen.getAllByTestId('unit-price')).toHaveLength(1)
    expect(screen.queryByTestId('listed-price')).toBeNull()
  }, 30_000)

  it('shows the server message for an unknown NPI', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'member' }))
    vi.spyOn(console, 'error').mockImplementation(() => undefined)
    mockApi({
      [`GET /cost-transparency/provider/${NPI}`]: reply(404, { message: `No provider with NPI ${NPI}`, code: 'NOT_FOUND', status: 404 }),
    })
    renderApp(`/provider-cost-transparency/${NPI}`)
    expect(await screen.findByText(`No provider with NPI ${NPI}`, {}, { timeout: 8000 })).toBeTruthy()
  }, 30_000)
})
