import { TOKEN_STORAGE_KEY } from '@citrus/contracts'
import { fireEvent, screen, within } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { malformed, mockApi, reply, type MockCall } from '../../../test/mock-api'
import { renderApp } from '../../../test/render'
import { loginToken } from '../../../test/tokens'
import { API_KEYS_TEXT } from './api-keys'

const products = { 'GET /company/products': { product_groups: [] } }

const token = (overrides: Record<string, unknown> = {}) => ({
  id: 'tok-1',
  name: 'CI pipeline',
  masked_token: 'AbCd',
  created_at: '2024-03-05T12:00:00.000Z',
  last_used_at: null,
  user_id: 42,
  user_email: 'ada@example.com',
  company_id: 7,
  ...overrides,
})

function signIn(claims: Record<string, unknown> = {}) {
  localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'admin', ...claims }))
}

async function openPage() {
  const view = renderApp('/api-keys')
  await screen.findByRole('button', { name: 'Create New Secret Key' })
  return view
}

const dialog = () => screen.getByRole('dialog')

async function openCreate() {
  fireEvent.click(screen.getByRole('button', { name: 'Create New Secret Key' }))
  return within(await screen.findByRole('dialog'))
}

describe('API Keys page', () => {
  it('lists the keys of the session company with the documented columns and formats', async () => {
    signIn()
    const api = mockApi({
      ...products,
      'GET /admin/api-token': [
        token(),
        token({ id: 'tok-2', name: '', masked_token: '', created_at: 'not a date', last_used_at: '2024-04-01T08:30:00.000Z' }),
        token({ id: 'tok-3', name: null, created_at: '' }),
      ],
    })
    await openPage()
    const table = await screen.findByRole('table')
    for (const header of ['Name', 'Secret Key', 'Created', 'Last Used'])
      expect(within(table).getByRole('columnheader', { name: header })).toBeTruthy()
    const rows = within(table).getAllByRole('row').slice(1)
    expect(rows).toHaveLength(3)
    expect(rows[0]?.textContent).toContain('CI pipeline')
    expect(rows[0]?.textContent).toContain('sk-AbCd...')
    // Created as yyyy-MM-dd (spec 1 §2; issue 33 item 11), Last Used in the browser's locale (jsdom: en-US)
    expect(rows[0]?.textContent).toContain('2024-03-05')
    expect(rows[0]?.textContent).not.toContain('Mar 5, 2024')
    expect(rows[0]?.textContent).toContain('Unused')
    expect(rows[1]?.textContent).toContain('Unnamed Token')
    expect(rows[1]?.textContent).toContain('N/A')
    expect(rows[1]?.textContent).toContain('Unknown')
    expect(rows[1]?.textContent).toContain('Apr 1, 2024')
    expect(rows[1]?.textContent).not.toContain('2024-04-01T08:30:00.000Z')
    expect(rows[2]?.textContent).toContain('Unnamed Token')
    expect(rows[2]?.textContent).toContain('Unknown')
    expect(api.callsTo('GET /admin/api-token')[0]?.query.get('company_id')).toBe('7')
  })

  it("shows 'Failed to fetch tokens' for an answer that is not the documented list", async () => {
    signIn()
    mockApi({ ...products, 'GET /admin/api-token': malformed({ tokens: [token({ name: 'Wrapped' })] }) })
    await openPage()
    expect(await screen.findByText('Failed to fetch tokens')).toBeTruthy()
    expect(screen.queryByText('Wrapped')).toBeNull()
  })

  it("shows 'No API keys found' for an empty list", async () => {
    signIn()
    mockApi({ ...products, 'GET /admin/api-token': [] })
    await openPage()
    expect(await screen.findByText('No API keys found')).toBeTruthy()
  })

  it('explains who manages keys, what they are tied to, when they are disabled and their permissions', async () => {
    signIn()
    mockApi({ ...products, 'GET /admin/api-token': [] })
    await openPage()
    for (const text of Object.values(API_KEYS_TEXT)) expect(screen.getByText(text)).toBeTruthy()
    expect(screen.getByText(/workspace owner/)).toBeTruthy()
    expect(screen.getByText(/tied to the user and project/)).toBeTruthy()
    expect(screen.getByText(/disabled if its user leaves the organization or the project/)).toBeTruthy()
    expect(screen.getByText(/read and write API resources/)).toBeTruthy()
  })

  it("shows 'Failed to fetch tokens' when the list cannot be loaded, and retries", async () => {
    signIn()
    let calls = 0
    mockApi({
      ...products,
      'GET /admin/api-token': () => (++calls === 1 ? reply(500, { message: 'boom', code: 'INTERNAL_ERROR', status: 500 }) : [token()]),
    })
    await openPage()
    expect(await screen.findByText('Failed to fetch tokens')).toBeTruthy()
    fireEvent.click(screen.getByRole('button', { name: 'Try Again' }))
    expect(await screen.findByText('CI pipeline')).toBeTruthy()
  })

  it("without a company id: 'Failed to fetch tokens - company id null', the token is cleared and the user sent to /", async () => {
    signIn({ company_id: null })
    const api = mockApi(products)
    const { router } = renderApp('/api-keys')
    expect(await screen.findByText('Failed to fetch tokens - company id null')).toBeTruthy()
    expect(localStorage.getItem(TOKEN_STORAGE_KEY)).toBeNull()
    // sent to /, which in turn asks the signed-out user to sign in
    await vi.waitFor(() => expect(['/', '/sign-in']).toContain(router.state.location.pathname))
    expect(api.callsTo('GET /admin/api-token')).toHaveLength(0)
  })

  it("requires a name: 'Please provide a name for the key.'", async () => {
    signIn()
    const api = mockApi({ ...products, 'GET /admin/api-token': [] })
    await openPage()
    const form = await openCreate()
    fireEvent.change(form.getByLabelText(/Name/), { target: { value: '   ' } })
    fireEvent.click(form.getByRole('button', { name: 'Create Secret Key' }))
    expect(await form.findByText('Please provide a name for the key.')).toBeTruthy()
    expect(api.callsTo('POST /admin/api-token')).toHaveLength(0)
  })

  it("creates a key, shows it once with copy ('API Key Copied!') and I've Saved It, then refreshes the list", async () => {
    signIn()
    const writeText = vi.fn().mockResolvedValue(undefined)
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true })
    let listed = [token()]
    const full = `sk-${'x'.repeat(48)}`
    const api = mockApi({
      ...products,
      'GET /admin/api-token': () => listed,
      'POST /admin/api-token': () => {
        listed = [...listed, token({ id: 'tok-new', name: 'Reporting' })]
        return { ...token({ id: 'tok-new', name: 'Reporting' }), token: full }
      },
    })
    await openPage()
    await screen.findByText('CI pipeline')
    const form = await openCreate()
    fireEvent.change(form.getByLabelText(/Name/), { target: { value: ' Reporting ' } })
    fireEvent.click(form.getByRole('button', { name: 'Create Secret Key' }))
    expect((await screen.findByTestId('new-api-key')).textContent).toBe(full)
    expect(api.callsTo('POST /admin/api-token')[0]?.body).toEqual({ name: 'Reporting', company_id: 7 })

    fireEvent.click(within(dialog()).getByRole('button', { name: 'Copy' }))
    expect(await screen.findByText('API Key Copied!')).toBeTruthy()
    expect(writeText).toHaveBeenCalledWith(full)

    fireEvent.click(within(dialog()).getByRole('button', { name: "I've Saved It" }))
    await vi.waitFor(() => expect(screen.queryByTestId('new-api-key')).toBeNull())
    expect(await screen.findByText('Reporting')).toBeTruthy()
    expect(api.callsTo('GET /admin/api-token').length).toBeGreaterThanOrEqual(2)
  })

  it("reports 'Failed to copy to clipboard' when copying fails", async () => {
    signIn()
    Object.defineProperty(navigator, 'clipboard', {
      value: { writeText: vi.fn().mockRejectedValue(new Error('denied')) },
      configurable: true,
    })
    mockApi({ ...products, 'GET /admin/api-token': [], 'POST /admin/api-token': { ...token(), token: 'sk-secret' } })
    await openPage()
    const form = await openCreate()
    fireEvent.change(form.getByLabelText(/Name/), { target: { value: 'Key' } })
    fireEvent.click(form.getByRole('button', { name: 'Create Secret Key' }))
    await screen.findByTestId('new-api-key')
    fireEvent.click(within(dialog()).getByRole('button', { name: 'Copy' }))
    expect(await screen.findByText('Failed to copy to clipboard')).toBeTruthy()
  })

  it("shows 'User has reached max number of tokens.' when create returns no token", async () => {
    signIn()
    mockApi({ ...products, 'GET /admin/api-token': [], 'POST /admin/api-token': malformed({ id: 'x' }) })
    await openPage()
    const form = await openCreate()
    fireEvent.change(form.getByLabelText(/Name/), { target: { value: 'Key' } })
    fireEvent.click(form.getByRole('button', { name: 'Create Secret Key' }))
    expect(await form.findByText('User has reached max number of tokens.')).toBeTruthy()
    expect(screen.queryByTestId('new-api-key')).toBeNull()
  })

  it("shows 'User has reached max number of tokens.' for the server's 409 envelope", async () => {
    signIn()
    mockApi({
      ...products,
      'GET /admin/api-token': [],
      'POST /admin/api-token': reply(409, { message: 'User has reached max number of tokens.', code: 'CONFLICT', status: 409 }),
    })
    await openPage()
    const form = await openCreate()
    fireEvent.change(form.getByLabelText(/Name/), { target: { value: 'Key' } })
    fireEvent.click(form.getByRole('button', { name: 'Create Secret Key' }))
    expect(await form.findByText('User has reached max number of tokens.')).toBeTruthy()
  })

  it("shows 'Failed to create the API token.' (with the server's reason) when create fails", async () => {
    signIn()
    mockApi({
      ...products,
      'GET /admin/api-token': [],
      'POST /admin/api-token': reply(403, { message: 'API keys can only be created for your own company', code: 'FORBIDDEN', status: 403 }),
    })
    await openPage()
    const form = await openCreate()
    fireEvent.change(form.getByLabelText(/Name/), { target: { value: 'Key' } })
    fireEvent.click(form.getByRole('button', { name: 'Create Secret Key' }))
    expect(await form.findByText('Failed to create the API token.')).toBeTruthy()
    expect(form.getByText('API keys can only be created for your own company')).toBeTruthy()
  })

  it("shows 'Failed to create the API token.' for a failure without a message", async () => {
    signIn()
    mockApi({ ...products, 'GET /admin/api-token': [], 'POST /admin/api-token': malformed({}, 500) })
    await openPage()
    const form = await openCreate()
    fireEvent.change(form.getByLabelText(/Name/), { target: { value: 'Key' } })
    fireEvent.click(form.getByRole('button', { name: 'Create Secret Key' }))
    expect(await form.findByText('Failed to create the API token.')).toBeTruthy()
  })

  it("revokes after confirmation: 'Token Deleted' and the list refreshes", async () => {
    signIn()
    let listed = [token(), token({ id: 'tok-2', name: 'Old key' })]
    const api = mockApi({
      ...products,
      'GET /admin/api-token': () => listed,
      'DELETE /admin/api-token': ({ body }: MockCall) => {
        listed = listed.filter((item) => item.id !== (body as { id: string }).id)
        return { message: 'Token Deleted' }
      },
    })
    await openPage()
    fireEvent.click(await screen.findByRole('button', { name: 'Revoke Old key' }))
    const confirm = within(await screen.findByRole('dialog'))
    expect(confirm.getByText(/immediately be disabled/)).toBeTruthy()
    fireEvent.click(confirm.getByRole('button', { name: 'Revoke Key' }))
    expect(await screen.findByText('Token Deleted')).toBeTruthy()
    expect(api.callsTo('DELETE /admin/api-token')[0]?.body).toEqual({ id: 'tok-2' })
    await vi.waitFor(() => expect(screen.queryByText('Old key')).toBeNull())
    expect(screen.getByText('CI pipeline')).toBeTruthy()
  })

  it('cancelling the confirmation does not revoke', async () => {
    signIn()
    const api = mockApi({ ...products, 'GET /admin/api-token': [token()] })
    await openPage()
    fireEvent.click(await screen.findByRole('button', { name: 'Revoke CI pipeline' }))
    fireEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Cancel' }))
    await vi.waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    expect(api.callsTo('DELETE /admin/api-token')).toHaveLength(0)
  })

  it.each([
    ['the request fails', reply(404, { message: 'API token not found', code: 'NOT_FOUND', status: 404 })],
    ['the response has no message', malformed({})],
  ])("shows 'Failed to delete the token' when %s", async (_, response) => {
    signIn()
    mockApi({ ...products, 'GET /admin/api-token': [token()], 'DELETE /admin/api-token': response })
    await openPage()
    fireEvent.click(await screen.findByRole('button', { name: 'Revoke CI pipeline' }))
    fireEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Revoke Key' }))
    expect(await screen.findByText('Failed to delete the token')).toBeTruthy()
    expect(screen.queryByText('Token Deleted')).toBeNull()
  })

  it('is open to citrus as well', async () => {
    signIn({ role: 'citrus' })
    mockApi({ ...products, 'GET /admin/api-token': [token()] })
    await openPage()
    expect(await screen.findByText('CI pipeline')).toBeTruthy()
  })
})
