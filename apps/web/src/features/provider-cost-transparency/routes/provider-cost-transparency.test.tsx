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
