import { ATLAS_MESSAGES, TOKEN_STORAGE_KEY, atlasGenericFormSchema } from '@citrus/contracts'
import { fireEvent, screen, waitFor } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { mockApi } from '../../../test/mock-api'
import { renderApp } from '../../../test/render'
import { loginToken } from '../../../test/tokens'

const slow = { timeout: 15_000 }
const contractMessages = (form: { codes: string[]; region: 'us' | 'zip'; zip: string }) =>
  atlasGenericFormSchema.safeParse(form).error?.issues.map((issue) => issue.message)

describe('/atlas/generic: the search form is checked with the contract atlasGenericFormSchema (spec 2 §5)', () => {
  it("shows the schema's messages once Search was pressed, then follows every change", { timeout: 40_000 }, async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'user' }))
    mockApi({ 'GET /company/products': { product_groups: ['ATLAS'] } })
    const { router } = renderApp('/atlas/generic')
    const search = await screen.findByRole('button', { name: 'Search' }, slow)
    expect(screen.queryByText(ATLAS_MESSAGES.codeRequired)).toBeNull()

    fireEvent.click(search)
    expect(contractMessages({ codes: [], region: 'us', zip: '' })).toEqual(['This field is required'])
    expect(await screen.findByText('This field is required')).toBeTruthy()
    expect(screen.getByText('Please complete all required fields')).toBeTruthy()
    expect((search as HTMLButtonElement).disabled).toBe(true)

    // another region starts over; a ZIP search asks for a 5-digit ZIP
    fireEvent.click(screen.getByText('ZIP code'))
    await waitFor(() => expect(screen.queryByText('This field is required')).toBeNull())
    fireEvent.click(screen.getByRole('button', { name: 'Search' }))
    expect(contractMessages({ codes: [], region: 'zip', zip: '' })).toEqual(['This field is required', 'ZIP code is required'])
    expect(await screen.findByText('ZIP code is required')).toBeTruthy()
    fireEvent.change(screen.getByRole('textbox', { name: 'ZIP code' }), { target: { value: '981' } })
    expect(await screen.findByText('Please enter a valid 5-digit ZIP code')).toBeTruthy()
    expect(router.state.location.pathname).toBe('/atlas/generic')
  })
})
