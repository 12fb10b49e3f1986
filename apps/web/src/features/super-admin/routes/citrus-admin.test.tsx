import { TOKEN_STORAGE_KEY } from '@citrus/contracts'
import { fireEvent, screen, within } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { malformed, mockApi, reply, type MockCall, type MockHandler } from '../../../test/mock-api'
import { renderApp } from '../../../test/render'
import { loginToken } from '../../../test/tokens'

const KEY_A = 'a'.repeat(43)
const KEY_B = 'b'.repeat(42) + '-'
const REQUIRED = 'Please fill in all required fields correctly.'

const acme = {
  id: 1,
  company_name: 'Acme Health',
  industry: 'Pharma',
  renewal_cycle_days: 30,
  activation_key: KEY_A,
  created_at: '2024-01-01T00:00:00.000Z',
  policies: [
    { product_group: 'ATLAS', limit: null },
    { product_group: 'NOVA', limit: 100 },
  ],
}
const beta = { ...acme, id: 2, company_name: 'Beta Care', activation_key: KEY_B, policies: [{ product_group: 'CARE_SELECT', limit: 5 }] }

function setup(handlers: Record<string, MockHandler | unknown> = {}, role = 'citrus') {
  localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role }))
  return mockApi({
    'GET /company/products': { product_groups: [] },
    'GET /super-admin/company': { companies: [acme, beta] },
    'GET /super-admin/company/1': acme,
    ...handlers,
  })
}

async function openDashboard() {
  const view = renderApp('/citrus-admin')
  await screen.findByRole('heading', { name: 'Super Admin Dashboard' })
  return view
}

const modal = () => within(screen.getByRole('dialog'))
const change = (label: RegExp | string, value: string) => fireEvent.change(modal().getByLabelText(label), { target: { value } })

async function openCreate() {
  fireEvent.click(screen.getByRole('button', { name: 'Create New Company' }))
  await screen.findByRole('dialog')
}

function fillCreate() {
  change(/Company Name/, 'Gamma Clinics')
  change(/Industry/, 'Providers')
  change(/Renewal Cycle/, '90')
}

async function openEdit(name = 'Acme Health') {
  fireEvent.click(await screen.findByRole('button', { name: `Edit ${name}` }))
  await screen.findByRole('dialog')
  await modal().findByLabelText(/Company Name/)
}

describe('Super Admin Dashboard', () => {
  it('lists companies: ID, Company Name, Activation Key, Onboard Users, Edit', async () => {
    setup()
    await openDashboard()
    const table = await screen.findByRole('table')
    for (const header of ['ID', 'Company Name', 'Activation Key', 'Onboard Users', 'Edit']) {
      expect(within(table).getByRole('columnheader', { name: header })).toBeTruthy()
    }
    const rows = within(table).getAllByRole('row').slice(1)
    expect(rows).toHaveLength(2)
    expect(rows[0]?.textContent).toContain('Acme Health')
    expect(rows[0]?.textContent).toContain(KEY_A)
    expect(within(rows[1] as HTMLElement).getByRole('button', { name: 'Edit Beta Care' })).toBeTruthy()
    expect(within(rows[1] as HTMLElement).getByRole('button', { name: 'Send onboarding email for Beta Care' })).toBeTruthy()
  })

  it("shows 'No companies found'", async () => {
    setup({ 'GET /super-admin/company': { companies: [] } })
    await openDashboard()
    expect(await screen.findByText('No companies found')).toBeTruthy()
  })

  it("shows 'Failed to load companies.' when the call fails", async () => {
    setup({ 'GET /super-admin/company': reply(500, { message: 'down', code: 'INTERNAL_ERROR', status: 500 }) })
    await openDashboard()
    expect(await screen.findByText('Failed to load companies.')).toBeTruthy()
  })

  it("shows 'Companies could not be fetched' when the response has no list", async () => {
    setup({ 'GET /super-admin/company': malformed({}) })
    await openDashboard()
    expect(await screen.findByText('Companies could not be fetched')).toBeTruthy()
  })

  it("a row click opens the company's users page; the row buttons do not", async () => {
    setup({ 'GET /super-admin/company/2/users': { users: [] } })
    const { router } = await openDashboard()
    fireEvent.click(await screen.findByRole('button', { name: 'Edit Beta Care' }))
    expect(router.state.location.pathname).toBe('/citrus-admin')
    fireEvent.keyDown(screen.getByRole('dialog'), { key: 'Escape' })
    await vi.waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    fireEvent.click(screen.getByText('Beta Care'))
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/company/2/users'))
  })

  it('is for citrus only', async () => {
    setup({}, 'admin')
    renderApp('/citrus-admin')
    expect(await screen.findByText('Access Restricted')).toBeTruthy()
  })

  describe('onboarding', () => {
    it("offers User, Admin and Citrus, prefilled with the company's key, and sends the chosen role", async () => {
      const api = setup({ 'POST /admin/email/onboarding': { message_id: 'm-1' } })
      await openDashboard()
      fireEvent.click(await screen.findByRole('button', { name: 'Send onboarding email for Beta Care' }))
      await screen.findByRole('dialog')
      for (const role of ['User', 'Admin', 'Citrus']) expect(modal().getByRole('radio', { name: role })).toBeTruthy()
      expect((modal().getByLabelText(/Activation Key/) as HTMLInputElement).value).toBe(KEY_B)
      change(/Email/, 'staff@citrus.health')
      fireEvent.click(modal().getByRole('radio', { name: 'Citrus' }))
      fireEvent.click(modal().getByRole('button', { name: 'Send Email' }))
      expect(await screen.findByText('Onboarding email sent successfully to staff@citrus.health')).toBeTruthy()
      expect(screen.getByText('An email has been sent to the user')).toBeTruthy()
      expect(api.callsTo('POST /admin/email/onboarding')[0]?.body).toEqual({
        email: 'staff@citrus.health',
        company_activation_key: KEY_B,
        role: 'citrus',
        is_trial: false,
      })
    })

    it('validates before sending', async () => {
      const api = setup()
      await openDashboard()
      fireEvent.click(await screen.findByRole('button', { name: 'Send onboarding email for Acme Health' }))
      await screen.findByRole('dialog')
      fireEvent.click(modal().getByRole('button', { name: 'Send Email' }))
      expect(await modal().findByText('All fields are required.')).toBeTruthy()
      change(/Email/, 'not-an-email')
      fireEvent.click(modal().getByRole('button', { name: 'Send Email' }))
      expect(await modal().findByText('Please enter a valid email address.')).toBeTruthy()
      change(/Email/, 'ok@acme.com')
      change(/Activation Key/, 'x'.repeat(43) + '!')
      fireEvent.click(modal().getByRole('button', { name: 'Send Email' }))
      expect(await modal().findByText('Invalid activation key format.')).toBeTruthy()
      expect(api.callsTo('POST /admin/email/onboarding')).toHaveLength(0)
    })
  })

  describe('create company', () => {
    it('starts with one ATLAS policy without a limit; the only policy cannot be removed', async () => {
      setup()
      await openDashboard()
      await openCreate()
      expect(modal().getAllByTestId('policy-row')).toHaveLength(1)
      expect((modal().getByLabelText(/Product group 1/) as HTMLSelectElement).value).toBe('ATLAS')
      expect((modal().getByLabelText(/Limit 1/) as HTMLInputElement).value).toBe('')
      expect(modal().getByRole('button', { name: 'Remove policy 1' }).hasAttribute('disabled')).toBe(true)
    })

    it('adds and removes policies while more than one exists; a group is offered once', async () => {
      setup()
      await openDashboard()
      await openCreate()
      fireEvent.click(modal().getByRole('button', { name: 'Add Policy' }))
      expect(modal().getAllByTestId('policy-row')).toHaveLength(2)
      const second = modal().getByLabelText(/Product group 2/) as HTMLSelectElement
      expect(second.value).toBe('')
      expect((within(second).getByRole('option', { name: /^ATLAS/ }) as HTMLOptionElement).disabled).toBe(true)
      expect(modal().getByRole('button', { name: 'Remove policy 1' }).hasAttribute('disabled')).toBe(false)
      fireEvent.click(modal().getByRole('button', { name: 'Remove policy 1' }))
      expect(modal().getAllByTestId('policy-row')).toHaveLength(1)
      expect(modal().getByRole('button', { name: 'Remove policy 1' }).hasAttribute('disabled')).toBe(true)
    })

    it.each([
      ['company name', () => change(/Company Name/, '')],
      ['industry', () => change(/Industry/, '')],
      ['renewal cycle days', () => change(/Renewal Cycle/, '')],
      ['a product group', () => fireEvent.click(modal().getByRole('button', { name: 'Add Policy' }))],
    ])("without %s: 'Please fill in all required fields correctly.'", async (_, breakIt) => {
      const api = setup()
      await openDashboard()
      await openCreate()
      fillCreate()
      breakIt()
      fireEvent.click(modal().getByRole('button', { name: 'Create Company' }))
      expect(await modal().findByText(REQUIRED)).toBeTruthy()
      expect(api.callsTo('POST /super-admin/company')).toHaveLength(0)
    })

    it("creates the company: 'Company activated successfully' and the list refreshes", async () => {
      let companies = [acme]
      const api = setup({
        'GET /super-admin/company': () => ({ companies }),
        'POST /super-admin/company': ({ body }: MockCall) => {
          const created = { ...acme, ...(body as object), id: 3, activation_key: 'c'.repeat(43) }
          companies = [...companies, created]
          return created
        },
      })
      await openDashboard()
      await screen.findByText('Acme Health')
      await openCreate()
      fillCreate()
      fireEvent.click(modal().getByRole('button', { name: 'Add Policy' }))
      fireEvent.change(modal().getByLabelText(/Product group 2/), { target: { value: 'SEARCH' } })
      fireEvent.change(modal().getByLabelText(/Limit 2/), { target: { value: '250' } })
      expect((modal().getByLabelText(/Plan Tier/) as HTMLSelectElement).value).toBe('BASE')
      fireEvent.change(modal().getByLabelText(/Plan Tier/), { target: { value: 'BUSINESS_PLUS' } })
      fireEvent.click(modal().getByRole('button', { name: 'Create Company' }))
      expect(await screen.findByText('Company activated successfully')).toBeTruthy()
      expect(api.callsTo('POST /super-admin/company')[0]?.body).toEqual({
        company_name: 'Gamma Clinics',
        industry: 'Providers',
        renewal_cycle_days: 90,
        policies: [
          { product_group: 'ATLAS', limit: null },
          { product_group: 'SEARCH', limit: 250 },
        ],
        plan_tier: 'BUSINESS_PLUS',
      })
      expect(await screen.findByText('Gamma Clinics')).toBeTruthy()
      await vi.waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    })

    it.each([
      ['with the server reason', reply(400, { message: REQUIRED, code: 'VALIDATION_ERROR', status: 400 }), REQUIRED],
      ['without a reason', malformed({}, 500), 'Failed to process the request.'],
      ['when nothing comes back', malformed({}), 'Failed to process the request.'],
    ])("reports 'Failed to activate company' %s", async (_, response, detail) => {
      setup({ 'POST /super-admin/company': response })
      await openDashboard()
      await openCreate()
      fillCreate()
      fireEvent.click(modal().getByRole('button', { name: 'Create Company' }))
      expect(await screen.findByText('Failed to activate company')).toBeTruthy()
      expect(screen.getAllByText(detail).length).toBeGreaterThan(0)
      expect(screen.getByRole('dialog')).toBeTruthy()
    })
  })

  describe('edit company', () => {
    it('loads the record into the form, with the key and Reset Activation Key', async () => {
      const api = setup()
      await openDashboard()
      await openEdit()
      expect((modal().getByLabelText(/Company Name/) as HTMLInputElement).value).toBe('Acme Health')
      expect((modal().getByLabelText(/Industry/) as HTMLInputElement).value).toBe('Pharma')
      expect((modal().getByLabelText(/Renewal Cycle/) as HTMLInputElement).value).toBe('30')
      expect((modal().getByLabelText(/Product group 2/) as HTMLSelectElement).value).toBe('NOVA')
      expect((modal().getByLabelText(/Limit 2/) as HTMLInputElement).value).toBe('100')
      expect(modal().getByTestId('current-activation-key').textContent).toBe(KEY_A)
      expect(modal().getByLabelText(/Reset Activation Key/)).toBeTruthy()
      expect(api.callsTo('GET /super-admin/company/1')).toHaveLength(1)
    })

    it("shows 'Failed to load company details.' when the record cannot be loaded", async () => {
      setup({ 'GET /super-admin/company/1': reply(404, { message: 'Company 1 not found', code: 'NOT_FOUND', status: 404 }) })
      await openDashboard()
      fireEvent.click(await screen.findByRole('button', { name: 'Edit Acme Health' }))
      expect(await screen.findByText('Failed to load company details.')).toBeTruthy()
    })

    it.each([
      ['name', () => change(/Company Name/, ' ')],
      ['industry', () => change(/Industry/, '')],
      ['renewal cycle days', () => change(/Renewal Cycle/, '')],
      ['a product group', () => fireEvent.click(modal().getByRole('button', { name: 'Add Policy' }))],
    ])("without %s: 'Please fill in all required fields correctly.'", async (_, breakIt) => {
      const api = setup()
      await openDashboard()
      await openEdit()
      breakIt()
      fireEvent.click(modal().getByRole('button', { name: 'Save Changes' }))
      expect(await modal().findByText(REQUIRED)).toBeTruthy()
      expect(api.callsTo('PUT /super-admin/company')).toHaveLength(0)
    })

    it("saves with { record, reset_activation_key }: 'Company updated successfully' and the new key is listed", async () => {
      let current = acme
      const api = setup({
        'GET /super-admin/company': () => ({ companies: [current, beta] }),
        'PUT /super-admin/company': ({ body }: MockCall) => {
          const { record, reset_activation_key } = body as { record: typeof acme; reset_activation_key: boolean }
          current = { ...current, ...record, activation_key: reset_activation_key ? 'n'.repeat(43) : current.activation_key }
          return current
        },
      })
      await openDashboard()
      await openEdit()
      change(/Company Name/, 'Acme Health Group')
      expect((modal().getByLabelText(/Plan Tier/) as HTMLSelectElement).value).toBe('BASE')
      fireEvent.change(modal().getByLabelText(/Plan Tier/), { target: { value: 'ENTERPRISE' } })
      fireEvent.click(modal().getByLabelText(/Reset Activation Key/))
      fireEvent.click(modal().getByRole('button', { name: 'Save Changes' }))
      expect(await screen.findByText('Company updated successfully')).toBeTruthy()
      expect(api.callsTo('PUT /super-admin/company')[0]?.body).toEqual({
        record: {
          id: 1,
          company_name: 'Acme Health Group',
          industry: 'Pharma',
          renewal_cycle_days: 30,
          policies: acme.policies,
          plan_tier: 'ENTERPRISE',
          activation_key: KEY_A,
        },
        reset_activation_key: true,
      })
      expect(await screen.findByText('n'.repeat(43))).toBeTruthy()
    })

    it('sends reset_activation_key false unless asked', async () => {
      const api = setup({ 'PUT /super-admin/company': acme })
      await openDashboard()
      await openEdit()
      fireEvent.click(modal().getByRole('button', { name: 'Save Changes' }))
      expect(await screen.findByText('Company updated successfully')).toBeTruthy()
      expect((api.callsTo('PUT /super-admin/company')[0]?.body as { reset_activation_key: boolean }).reset_activation_key).toBe(false)
    })

    it.each([
      ['with the server reason', reply(404, { message: 'Company 1 not found', code: 'NOT_FOUND', status: 404 }), 'Company 1 not found'],
      ['without a reason', malformed({}, 500), 'Failed to process the request.'],
    ])("reports 'Failed to update company' %s", async (_, response, detail) => {
      setup({ 'PUT /super-admin/company': response })
      await openDashboard()
      await openEdit()
      fireEvent.click(modal().getByRole('button', { name: 'Save Changes' }))
      expect(await screen.findByText('Failed to update company')).toBeTruthy()
      expect(screen.getByText(detail)).toBeTruthy()
    })
  })
})
