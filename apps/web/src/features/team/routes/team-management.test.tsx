import { TOKEN_STORAGE_KEY } from '@citrus/contracts'
import { fireEvent, screen, within } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { malformed, mockApi, reply, type MockHandler } from '../../../test/mock-api'
import { renderApp } from '../../../test/render'
import { loginToken } from '../../../test/tokens'
import { USAGE_TABLE_MAX_HEIGHT } from '../components/products-tab'

const KEY = 'k'.repeat(40) + '-_1'
const fail = reply(500, { message: 'Database unavailable', code: 'INTERNAL_ERROR', status: 500 })

const seats = {
  users: [
    { id: 1, email: 'owner@acme.com', role: 'admin', created_at: '2024-01-01T00:00:00.000Z' },
    { id: 2, email: 'analyst@acme.com', role: 'user', created_at: '2024-02-01T00:00:00.000Z' },
  ],
}
const usage = {
  products: [
    {
      id: 11,
      product_group: 'ATLAS',
      remaining_count: null,
      is_infinite: true,
      limit: null,
      used_count: 3,
      cycle_start: '2024-03-01T00:00:00.000Z',
      renews_on: '2024-03-31',
    },
    {
      id: 12,
      product_group: 'CARE_SELECT',
      remaining_count: 1250,
      is_infinite: false,
      limit: 1500,
      used_count: 250,
      cycle_start: '2024-03-01T00:00:00.000Z',
      renews_on: '2024-03-31',
    },
  ],
}

function setup(handlers: Record<string, MockHandler | unknown> = {}, role = 'admin') {
  localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role }))
  return mockApi({
    'GET /company/products': { product_groups: [] },
    'GET /admin/active-seats': seats,
    'GET /admin/activation-key': { activation_key: KEY },
    'GET /admin/product-usage': usage,
    ...handlers,
  })
}

async function openInvite() {
  fireEvent.click(await screen.findByRole('button', { name: 'Send Onboarding Email' }))
  return within(await screen.findByRole('dialog'))
}

describe('Team Management', () => {
  it('fetches seats, activation key and product usage together', async () => {
    const api = setup()
    renderApp('/team-management')
    await screen.findByText('owner@acme.com')
    expect(api.callsTo('GET /admin/active-seats')).toHaveLength(1)
    expect(api.callsTo('GET /admin/activation-key')).toHaveLength(1)
    expect(api.callsTo('GET /admin/product-usage')).toHaveLength(1)
  })

  it('users tab: No., Email, Role', async () => {
    setup()
    renderApp('/team-management')
    const table = await screen.findByRole('table')
    for (const header of ['No.', 'Email', 'Role']) expect(within(table).getByRole('columnheader', { name: header })).toBeTruthy()
    const rows = within(table).getAllByRole('row').slice(1)
    expect(rows.map((row) => Array.from(row.querySelectorAll('td')).map((cell) => cell.textContent))).toEqual([
      ['1', 'owner@acme.com', 'admin'],
      ['2', 'analyst@acme.com', 'user'],
    ])
  })

  it("users tab: 'No users found'", async () => {
    setup({ 'GET /admin/active-seats': { users: [] } })
    renderApp('/team-management')
    expect(await screen.findByText('No users found')).toBeTruthy()
  })

  it('tabs are URL-synced', async () => {
    setup()
    const { router } = renderApp('/team-management')
    await screen.findByText('owner@acme.com')
    fireEvent.click(screen.getByRole('tab', { name: 'Products and Credits' }))
    await vi.waitFor(() => expect(router.state.location.search).toBe('?tab=products'))
    expect(await screen.findByText('CITRUS ATLAS')).toBeTruthy()
  })

  it('products tab: Business Trial Tier, Services table, Enterprise Access with a Contact us mail link', async () => {
    setup()
    renderApp('/team-management?tab=products')
    expect(await screen.findByText('Business Trial Tier')).toBeTruthy()
    expect(
      screen.getByText(
        'Your organization is on a trial plan with a limited number of requests and services. Contact us to upgrade your plan.',
      ),
    ).toBeTruthy()
    const table = await screen.findByRole('table')
    for (const header of ['Service', 'Remaining Credits', 'Plan Type'])
      expect(within(table).getByRole('columnheader', { name: header })).toBeTruthy()
    const rows = within(table).getAllByRole('row').slice(1)
    expect(rows.map((row) => Array.from(row.querySelectorAll('td')).map((cell) => cell.textContent))).toEqual([
      ['CITRUS ATLAS', '∞', 'Unlimited'],
      ['CITRUS CARE_SELECT', '1,250', 'Limited'],
    ])
    expect(screen.getByText('Enterprise Access')).toBeTruthy()
    expect(screen.getByText(/Bespoke healthcare data pulls/)).toBeTruthy()
    expect(screen.getByText(/Increased credits/)).toBeTruthy()
    expect(screen.getByText(/Seats/)).toBeTruthy()
    expect(screen.getByRole('link', { name: 'Contact us' }).getAttribute('href')).toMatch(/^mailto:/)
  })

  it("products tab: the trial card does not say 'limited' when every service is unlimited", async () => {
    setup({
      'GET /admin/product-usage': {
        products: usage.products.map((product) => ({ ...product, is_infinite: true, remaining_count: null, limit: null })),
      },
    })
    renderApp('/team-management?tab=products')
    expect(
      await screen.findByText(
        'Your organization is on a trial plan with unlimited requests for every service it holds. Contact us to upgrade your plan.',
      ),
    ).toBeTruthy()
    expect(screen.queryByText(/limited number/)).toBeNull()
    expect(screen.queryByText('Limited')).toBeNull()
  })

  it('users tab: role badges take the one colour of their role', async () => {
    setup()
    renderApp('/team-management')
    const table = await screen.findByRole('table')
    expect(within(table).getByText('admin').closest('[data-role-color]')?.getAttribute('data-role-color')).toBe('citrus')
    expect(within(table).getByText('user').closest('[data-role-color]')?.getAttribute('data-role-color')).toBe('blue')
  })

  it('products tab: the Services table is at most 300 px high', async () => {
    setup()
    renderApp('/team-management?tab=products')
    await screen.findByText('CITRUS ATLAS')
    expect(USAGE_TABLE_MAX_HEIGHT).toBe(300)
    const scroll = screen.getByTestId('product-usage-scroll')
    // Mantine writes 300 px as rem: 300 / 16 = 18.75
    expect(scroll.getAttribute('style') ?? '').toContain(`max-height: calc(${USAGE_TABLE_MAX_HEIGHT / 16}rem`)
  })

  it("products tab: 'No product usage data available'", async () => {
    setup({ 'GET /admin/product-usage': { products: [] } })
    renderApp('/team-management?tab=products')
    expect(await screen.findByText('No product usage data available')).toBeTruthy()
  })

  it('each call can fail on its own', async () => {
    setup({ 'GET /admin/product-usage': fail })
    renderApp('/team-management')
    expect(await screen.findByText('owner@acme.com')).toBeTruthy()
    fireEvent.click(screen.getByRole('tab', { name: 'Products and Credits' }))
    expect(await screen.findByText('Failed to load product usage')).toBeTruthy()
    expect(screen.getByText('Business Trial Tier')).toBeTruthy()
  })

  it('a failed seats call leaves the rest working, with a retry', async () => {
    let attempts = 0
    setup({ 'GET /admin/active-seats': () => (++attempts === 1 ? fail : seats) })
    renderApp('/team-management')
    expect(await screen.findByText('Failed to load users')).toBeTruthy()
    const form = await openInvite()
    expect((form.getByLabelText(/Activation Key/) as HTMLInputElement).value).toBe(KEY)
    fireEvent.click(form.getByRole('button', { name: 'Cancel' }))
    fireEvent.click(screen.getByRole('button', { name: 'Try Again' }))
    expect(await screen.findByText('owner@acme.com')).toBeTruthy()
  })

  it('onboarding dialog offers only User and Admin, prefilled with the activation key', async () => {
    setup()
    renderApp('/team-management')
    const form = await openInvite()
    expect(form.getByRole('radio', { name: 'User' })).toBeTruthy()
    expect(form.getByRole('radio', { name: 'Admin' })).toBeTruthy()
    expect(form.queryByRole('radio', { name: 'Citrus' })).toBeNull()
    expect((form.getByLabelText(/Activation Key/) as HTMLInputElement).value).toBe(KEY)
  })

  it('with the activation key unavailable the field starts empty', async () => {
    setup({ 'GET /admin/activation-key': fail })
    renderApp('/team-management')
    await screen.findByText('owner@acme.com')
    const form = await openInvite()
    expect((form.getByLabelText(/Activation Key/) as HTMLInputElement).value).toBe('')
  })

  it.each([
    ['', KEY, 'All fields are required.'],
    ['new@acme', KEY, 'Please enter a valid email address.'],
    ['new@acme.com', 'short-key', 'Invalid activation key format.'],
    ['new@acme.com', '', 'All fields are required.'],
  ])("onboarding email '%s' with key '%s': '%s'", async (email, key, message) => {
    const api = setup()
    renderApp('/team-management')
    const form = await openInvite()
    fireEvent.change(form.getByLabelText(/Email/), { target: { value: email } })
    fireEvent.change(form.getByLabelText(/Activation Key/), { target: { value: key } })
    fireEvent.click(form.getByRole('button', { name: 'Send Email' }))
    expect(await form.findByText(message)).toBeTruthy()
    expect(api.callsTo('POST /admin/email/onboarding')).toHaveLength(0)
  })

  it.each([
    ['User', 'user'],
    ['Admin', 'admin'],
  ])("sends the selected role (%s) and reports 'Onboarding email sent successfully to {email}'", async (label, role) => {
    const api = setup({ 'POST /admin/email/onboarding': { message_id: 'msg-1' } })
    renderApp('/team-management')
    const form = await openInvite()
    fireEvent.change(form.getByLabelText(/Email/), { target: { value: 'new@acme.com' } })
    fireEvent.click(form.getByRole('radio', { name: label }))
    fireEvent.click(form.getByRole('button', { name: 'Send Email' }))
    expect(await screen.findByText('Onboarding email sent successfully to new@acme.com')).toBeTruthy()
    expect(screen.getByText('An email has been sent to the user')).toBeTruthy()
    expect(api.callsTo('POST /admin/email/onboarding')[0]?.body).toEqual({
      email: 'new@acme.com',
      company_activation_key: KEY,
      role,
      is_trial: false,
    })
    await vi.waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
  })

  it.each([
    [
      'the server refuses',
      reply(409, { message: 'An account with this email already exists', code: 'CONFLICT', status: 409 }),
      'An account with this email already exists',
    ],
    ['the response has no message_id', malformed({}), null],
  ])("shows 'Failed to send the onboarding email. Please try again.' when %s", async (_, response, detail) => {
    setup({ 'POST /admin/email/onboarding': response })
    renderApp('/team-management')
    const form = await openInvite()
    fireEvent.change(form.getByLabelText(/Email/), { target: { value: 'new@acme.com' } })
    fireEvent.click(form.getByRole('button', { name: 'Send Email' }))
    expect(await form.findByText('Failed to send the onboarding email. Please try again.')).toBeTruthy()
    if (detail) expect(form.getByText(detail)).toBeTruthy()
    expect(screen.queryByText(/Onboarding email sent successfully/)).toBeNull()
  })

  it('is closed to regular users', async () => {
    setup({}, 'user')
    renderApp('/team-management')
    expect(await screen.findByText('Access Restricted')).toBeTruthy()
  })
})
