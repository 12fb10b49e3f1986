import { TOKEN_STORAGE_KEY } from '@citrus/contracts'
import { focusManager } from '@tanstack/react-query'
import { act, fireEvent, screen, waitFor } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { EMPTY_RANKINGS } from '../../../test/care-fixtures'
import { mockApi, reply } from '../../../test/mock-api'
import { renderApp } from '../../../test/render'
import { loginToken } from '../../../test/tokens'

const ZIP_MESSAGE = 'Invalid ZIP code format. Expected 5 digits.'

describe('/care-connect-search: Find Providers (spec 3 §2.1)', () => {
  it('reads Finding Providers... while the search loads, then opens the results without asking again', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'user' }))
    let answer: (value: unknown) => void = () => {}
    const api = mockApi({
      'GET /company/products': { product_groups: ['CARE_SELECT'] },
      'GET /insurers/': { insurers: ['Aetna'] },
      'GET /typeahead/omni': { suggestions: [{ code: '207Q00000X', description: 'Family Medicine', genre: 'SPECIALTY', score: 1 }] },
      'GET /care-select/rankings': () => new Promise((resolve) => (answer = resolve)),
    })
    const { router } = renderApp('/care-connect-search')
    const welcome = await screen.findByRole('button', { name: 'Skip' }, { timeout: 8000 })
    fireEvent.click(welcome)
    fireEvent.change(screen.getByRole('textbox', { name: 'Patient ZIP' }), { target: { value: '10460' } })
    const specialty =
      screen.queryByRole('textbox', { name: 'Provider Specialty' }) ?? screen.getByRole('combobox', { name: 'Provider Specialty' })
    fireEvent.focus(specialty)
    fireEvent.click(specialty)
    fireEvent.click(await screen.findByRole('option', { name: 'Family Medicine (207Q00000X)' }, { timeout: 4000 }))
    const find = await screen.findByRole('button', { name: 'Find Providers' })
    await waitFor(() => expect((find as HTMLButtonElement).disabled).toBe(false))
    fireEvent.click(find)

    const busy = await screen.findByRole('button', { name: 'Finding Providers...' })
    expect(busy.getAttribute('aria-busy')).toBe('true')
    expect((busy as HTMLButtonElement).disabled).toBe(true)
    expect(router.state.location.pathname).toBe('/care-connect-search')

    await act(async () => answer(reply(200, EMPTY_RANKINGS)))
    await waitFor(() => expect(router.state.location.pathname).toBe('/care-connect-results'))
    // the seven parameters of spec 3 §2.1, the optional ones empty when not chosen
    expect([...new URLSearchParams(router.state.location.search).entries()]).toEqual([
      ['zip_code', '10460'],
      ['omni_code', '207Q00000X'],
      ['omni_genre', 'SPECIALTY'],
      ['cpt_union_csv', ''],
      ['icd10_cm_union_csv', ''],
      ['insurance_names_csv', ''],
      ['radius_in_m', '48280'],
    ])
    expect(await screen.findByText('No Providers Found', {}, { timeout: 4000 })).toBeTruthy()
    // the results screen shows the answer the search fetched: one request, one credit
    expect(api.callsTo('GET /care-select/rankings')).toHaveLength(1)
    expect(api.callsTo('GET /care-select/rankings')[0]!.query.get('zip_code')).toBe('10460')
  }, 30_000)
})

describe('/care-connect-search: the form checks the search with the contract rankings schema (spec 3 §5)', () => {
  it('shows the ZIP error while a ZIP is partly typed and keeps Find Providers disabled until ZIP and specialty are valid', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'user' }))
    const api = mockApi({
      'GET /company/products': { product_groups: ['CARE_SELECT'] },
      'GET /insurers/': { insurers: ['Aetna'] },
      'GET /typeahead/omni': { suggestions: [{ code: '207Q00000X', description: 'Family Medicine', genre: 'SPECIALTY', score: 1 }] },
    })
    renderApp('/care-connect-search')
    const zip = (await screen.findByLabelText('Patient ZIP', {}, { timeout: 8000 })) as HTMLInputElement
    // the welcome shows until the tour was started or skipped once (the test above skipped it)
    const skip = screen.queryByRole('button', { name: 'Skip' })
    if (skip) fireEvent.click(skip)
    const find = screen.getByRole('button', { name: 'Find Providers' }) as HTMLButtonElement
    expect(screen.queryByText(ZIP_MESSAGE)).toBeNull()

    fireEvent.change(zip, { target: { value: '981' } })
    expect(await screen.findByText(ZIP_MESSAGE)).toBeTruthy()
    expect(find.disabled).toBe(true)

    // digits only, the first five: a valid ZIP clears the message; the specialty is still missing
    fireEvent.change(zip, { target: { value: '98-1017' } })
    expect(zip.value).toBe('98101')
    await waitFor(() => expect(screen.queryByText(ZIP_MESSAGE)).toBeNull())
    expect(find.disabled).toBe(true)

    const specialty =
      screen.queryByRole('textbox', { name: 'Provider Specialty' }) ?? screen.getByRole('combobox', { name: 'Provider Specialty' })
    fireEvent.focus(specialty)
    fireEvent.click(specialty)
    fireEvent.click(await screen.findByRole('option', { name: 'Family Medicine (207Q00000X)' }, { timeout: 4000 }))
    await waitFor(() => expect(find.disabled).toBe(false))
    expect(api.callsTo('GET /care-select/rankings')).toHaveLength(0)
  }, 30_000)
})

describe('/care-connect-results: a search is asked once (spec 3 §4.1)', () => {
  it('is not fetched again when the window regains focus, even once its answer is stale (a search costs a credit)', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'user' }))
    const api = mockApi({
      'GET /company/products': { product_groups: ['CARE_SELECT'] },
      'GET /care-select/rankings': EMPTY_RANKINGS,
    })
    const { queryClient } = renderApp('/care-connect-results?zip_code=10460&omni_code=207Q00000X&omni_genre=SPECIALTY')
    expect(await screen.findByText('No Providers Found', {}, { timeout: 8000 })).toBeTruthy()
    expect(api.callsTo('GET /care-select/rankings')).toHaveLength(1)
    await act(async () => {
      await queryClient.invalidateQueries({ queryKey: ['GET', '/care-select/rankings'], refetchType: 'none' })
      focusManager.setFocused(false)
      focusManager.setFocused(true)
    })
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(api.callsTo('GET /care-select/rankings')).toHaveLength(1)
    focusManager.setFocused(undefined)
  }, 30_000)
})
