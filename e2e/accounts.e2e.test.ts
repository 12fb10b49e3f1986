import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CompanyService } from '../apps/server/src/domain/companies.ts'
import { createTenant, eventually, startSmtpCapture, TEST_PASSWORD, uniqueEmail } from '../test/helpers.ts'
import { useBrowserSuite } from './browser.ts'

/** Accounts and access, end to end in headless Chromium against the real server process. */
describe('accounts in a real browser', () => {
  let smtp: Awaited<ReturnType<typeof startSmtpCapture>>
  beforeAll(async () => {
    smtp = await startSmtpCapture()
  })
  afterAll(async () => {
    await smtp?.close()
  })
  const suite = useBrowserSuite(() => smtp.env)

  async function newPage(): Promise<Page> {
    const context = await suite.browser.newContext()
    return context.newPage()
  }

  async function signIn(page: Page, email: string, password: string) {
    await page.goto(`${suite.server.baseUrl}/sign-in`)
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email)
    // password inputs have no ARIA role: the exact label, with the asterisk of a required field
    await page.getByLabel('Password *', { exact: true }).fill(password)
    await page.getByRole('button', { name: 'Sign In', exact: true }).click()
  }

  it('signs up with an activation key and lands on /apps', async () => {
    const company = await new CompanyService(suite.db.prisma).create({
      company_name: 'E2E Signup Co',
      industry: 'Payer',
      renewal_cycle_days: 30,
      policies: [{ product_group: 'ATLAS', limit: null }],
    })
    const page = await newPage()
    await page.goto(`${suite.server.baseUrl}/sign-up?activation_key=${company.activation_key}`)
    await expect.poll(() => page.getByRole('textbox', { name: 'Activation key', exact: true }).inputValue()).toBe(company.activation_key)
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill(uniqueEmail('e2e-signup'))
    await page.getByLabel('Password *', { exact: true }).fill('Fresh#Start9')
    await page.getByRole('button', { name: 'Create Account', exact: true }).click()
    await page.waitForURL(`${suite.server.baseUrl}/apps`, { timeout: 30_000 })
    await page.context().close()
  })

  it('signs a member in and lands on /price-check', async () => {
    const { users } = await createTenant(suite.db, { roles: ['member'] })
    const page = await newPage()
    await signIn(page, users[0]!.email, TEST_PASSWORD)
    await page.waitForURL(`${suite.server.baseUrl}/price-check`, { timeout: 30_000 })
    await page.context().close()
  })

  it('a member remembered on /apps signs in and lands on /price-check, not on Access Restricted', async () => {
    const { users } = await createTenant(suite.db, { roles: ['member'] })
    const page = await newPage()
    await page.goto(`${suite.server.baseUrl}/apps`)
    await page.getByRole('heading', { name: 'Sign In', exact: true }).waitFor({ timeout: 30_000 })
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill(users[0]!.email)
    await page.getByLabel('Password *', { exact: true }).fill(TEST_PASSWORD)
    await page.getByRole('button', { name: 'Sign In', exact: true }).click()
    await page.waitForURL(`${suite.server.baseUrl}/price-check`, { timeout: 30_000 })
    await page.getByRole('heading', { name: 'Price Check', exact: true }).waitFor()
    expect(await page.getByRole('heading', { name: 'Access Restricted', exact: true }).count()).toBe(0)
    await page.context().close()
  })

  it("shows the server's message for a wrong password", async () => {
    const { users } = await createTenant(suite.db, { roles: ['user'] })
    suite.guard.expect({ kind: 'response', status: 401, path: /^\/api\/users\/login$/ })
    const page = await newPage()
    await signIn(page, users[0]!.email, 'Wrong#Pass1')
    await page.getByText('Invalid email or password', { exact: true }).waitFor({ timeout: 30_000 })
    expect(new URL(page.url()).pathname).toBe('/sign-in')
    await page.context().close()
  })

  it('resets a password through a real SMTP server, from request to sign-in', async () => {
    const { users } = await createTenant(suite.db, { roles: ['user'] })
    const email = users[0]!.email
    const page = await newPage()
    await page.goto(`${suite.server.baseUrl}/password-reset-email`)
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email)
    await page.getByRole('button', { name: 'Send Reset Link', exact: true }).click()
    await page.getByRole('heading', { name: 'Password Reset Email Sent!', exact: true }).waitFor({ timeout: 30_000 })

    const mail = await eventually(() => {
      const found = smtp.messages.find((message) => message.to.includes(email))
      if (!found) throw new Error('no reset e-mail yet')
      return found
    }, 30_000)
    const link = /https?:\/\/[^\s"<>]+\/password-reset\?token=[A-Za-z0-9._~%-]+/.exec(mail.decoded)?.[0]
    expect(link).toBeDefined()

    await page.goto(link!)
    await page.getByLabel('New password *', { exact: true }).fill('Brand#New2026')
    await page.getByRole('button', { name: 'Reset Password', exact: true }).click()
    await page.waitForURL(`${suite.server.baseUrl}/sign-in`, { timeout: 30_000 })

    await signIn(page, email, 'Brand#New2026')
    await page.waitForURL(`${suite.server.baseUrl}/apps`, { timeout: 30_000 })
    await page.context().close()
  })

  it('lets a guest with a shareable link reach an allowed path and sends it to /not-authorized elsewhere', async () => {
    const { users } = await createTenant(suite.db, { roles: ['user'] })
    const login = await fetch(`${suite.server.baseUrl}/api/users/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: users[0]!.email, password: TEST_PASSWORD }),
    })
    const { token } = (await login.json()) as { token: string }
    const created = await fetch(`${suite.server.baseUrl}/api/shareable-url`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        url_type: 'public',
        role: 'member',
        client_routes: ['/member-recommendations'],
        api_endpoints: ['/shareable-url/validate-shareable-link'],
        incoming_url: '/member-recommendations',
        requires_email_verification: false,
        requires_phone_verification: false,
        requires_account_creation: false,
      }),
    })
    expect(created.status).toBe(200)
    const { url } = (await created.json()) as { url: string }

    const page = await newPage()
    await page.goto(url)
    await expect.poll(() => new URL(page.url()).pathname, { timeout: 30_000 }).toBe('/member-recommendations')
    await page.waitForTimeout(500)
    expect(new URL(page.url()).pathname).toBe('/member-recommendations')
    // the guest is offered only what the link allows: no Back to Apps, no Apps breadcrumb
    // the real page (issue 11) first asks a public link's holder to continue in its access dialog
    await page.getByRole('dialog').waitFor()
    expect(await page.getByRole('link', { name: 'Back to Apps', exact: true }).count()).toBe(0)
    expect(await page.getByRole('link', { name: 'Apps', exact: true }).count()).toBe(0)

    await page.goto(`${suite.server.baseUrl}/atlas-search`)
    await page.waitForURL(`${suite.server.baseUrl}/not-authorized`, { timeout: 30_000 })
    await page.context().close()
  })
})
