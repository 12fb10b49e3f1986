import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '../apps/server/src/db/database.ts'
import { createTenant, testDatabase, TEST_PASSWORD } from '../test/helpers.ts'
import { launchBrowser, startServer, type RunningServer } from './browser.ts'

/** Administration end to end in headless Chromium against the real server process. */
describe('administration in a real browser', () => {
  let server: RunningServer
  let browser: Browser
  let db: Database

  beforeAll(async () => {
    db = testDatabase()
    server = await startServer()
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
    await server?.stop()
    await db?.close()
  })

  async function signedInPage(email: string): Promise<Page> {
    const context = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] })
    const page = await context.newPage()
    await page.goto(`${server.baseUrl}/sign-in`)
    await page.getByLabel(/email/i).fill(email)
    await page.getByLabel(/^password\s*\*?$/i).fill(TEST_PASSWORD)
    await page.getByRole('button', { name: 'Sign In' }).click()
    await page.waitForURL(`${server.baseUrl}/apps`, { timeout: 30_000 })
    return page
  }

  it('an admin creates an API key, copies it, uses it, and revokes it', async () => {
    const { users } = await createTenant(db, { roles: ['admin'] })
    const page = await signedInPage(users[0]!.email)
    await page.goto(`${server.baseUrl}/api-keys`)
    await page.getByText('No API keys found').waitFor({ timeout: 30_000 })

    await page.getByRole('button', { name: 'Create New Secret Key' }).click()
    await page.getByRole('button', { name: 'Create Secret Key' }).click()
    await page.getByText('Please provide a name for the key.').waitFor()
    await page.getByLabel(/^name/i).fill('CI pipeline')
    await page.getByRole('button', { name: 'Create Secret Key' }).click()
    const key = (await page.getByTestId('new-api-key').textContent())?.trim() ?? ''
    expect(key).toMatch(/^sk-[A-Za-z0-9_-]{48}$/)

    await page.getByRole('button', { name: 'Copy' }).click()
    await page.getByText('API Key Copied!').waitFor()
    // runs in the page, where navigator exists (the root tsconfig has no DOM types)
    const readClipboard = () => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText()
    expect(await page.evaluate(readClipboard)).toBe(key)
    await page.getByRole('button', { name: "I've Saved It" }).click()

    // the list shows the masked key, never the key itself
    await page.getByText('CI pipeline').waitFor()
    await expect.poll(() => page.getByText(`${key.slice(0, 7)}...`).count()).toBe(1)
    expect(await page.content()).not.toContain(key)
    await page.getByText('Unused').waitFor()

    // the key works as its owner
    const info = await fetch(`${server.baseUrl}/api/users/info`, { headers: { authorization: `Bearer ${key}` } })
    expect(info.status).toBe(200)
    expect(((await info.json()) as { email: string }).email).toBe(users[0]!.email)

    await page.getByRole('button', { name: 'Revoke CI pipeline' }).click()
    await page.getByRole('button', { name: 'Revoke Key' }).click()
    await page.getByText('Token Deleted').waitFor()
    await page.getByText('No API keys found').waitFor()
    const after = await fetch(`${server.baseUrl}/api/users/info`, { headers: { authorization: `Bearer ${key}` } })
    expect(after.status).toBe(401)
    await page.context().close()
  })

  it('a citrus user creates a company with two policies and opens its users page', async () => {
    const { users } = await createTenant(db, { roles: ['citrus'] })
    const page = await signedInPage(users[0]!.email)
    await page.goto(`${server.baseUrl}/citrus-admin`)
    await page.getByRole('button', { name: 'Create New Company' }).click()
    const name = `E2E Health ${Date.now()}`
    await page.getByLabel(/company name/i).fill(name)
    await page.getByLabel(/industry/i).fill('Payer')
    await page.getByLabel(/renewal cycle/i).fill('30')
    await page.getByRole('button', { name: 'Add Policy' }).click()
    await page.getByLabel(/product group 2/i).selectOption('NOVA')
    await page.getByLabel(/limit 2/i).fill('250')
    await page.getByRole('button', { name: 'Create Company' }).click()
    await page.getByText('Company activated successfully').waitFor({ timeout: 30_000 })

    const company = await db.prisma.company.findFirstOrThrow({ where: { company_name: name }, include: { policies: true } })
    expect(company.policies.map((p) => [p.product_group, p.limit]).sort()).toEqual([
      ['ATLAS', null],
      ['NOVA', 250],
    ])

    await page.getByRole('row', { name: `Open the users of ${name}` }).getByText(name).click()
    await page.waitForURL(`${server.baseUrl}/company/${company.id}/users`)
    await page.getByText(`User Management for Company ${company.id}`).waitFor()
    await page.getByText('No users found for this company.').waitFor()
    await page.context().close()
  })
})
