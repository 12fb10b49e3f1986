import { TOKEN_STORAGE_KEY } from '@citrus/contracts'
import { fireEvent, screen, within } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { mockApi } from '../../../test/mock-api'
import { renderWithRouter } from '../../../test/render'
import { loginToken } from '../../../test/tokens'
import { CreateKeyDialog } from './create-key-dialog'

describe('Create New Secret Key dialog', () => {
  it("without a company id: 'Company ID not set', the user is logged out and sent to /sign-in", async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'admin', company_id: null }))
    const api = mockApi()
    const { router } = renderWithRouter(<CreateKeyDialog opened onClose={() => {}} companyId={null} />, {
      path: '/api-keys',
      routes: [{ path: '/sign-in', element: <p>sign-in page</p> }],
    })
    const form = within(await screen.findByRole('dialog'))
    fireEvent.change(form.getByLabelText(/Name/), { target: { value: 'Key' } })
    fireEvent.click(form.getByRole('button', { name: 'Create Secret Key' }))
    expect(await screen.findByText('Company ID not set')).toBeTruthy()
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/sign-in'))
    expect(localStorage.getItem(TOKEN_STORAGE_KEY)).toBeNull()
    expect(api.callsTo('POST /admin/api-token')).toHaveLength(0)
  })

  it('calls onClose when cancelled (the page refreshes its list then)', async () => {
    mockApi()
    const onClose = vi.fn()
    renderWithRouter(<CreateKeyDialog opened onClose={onClose} companyId={7} />)
    fireEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Cancel' }))
    expect(onClose).toHaveBeenCalledTimes(1)
  })
})
