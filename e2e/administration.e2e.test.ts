import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { API_TOKEN_MASK_LENGTH, API_TOKEN_PREFIX } from '@citrus/contracts'
import { createTenant, TEST_PASSWORD } from '../test/helpers.ts'
import { guideScreenshot, useBrowserSuite } from './browser.ts'

/** Administration end to end in headless Chromium against the real server process. */
describe('administration in a real browser', () => {
  const suite = useBrowserSuite()

  async function signedInPage(email: string): Promise<Page> {
    const context = await suite.browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] })
    const page = await context.newPage()
    await page.goto(`${suite.server.baseUrl}/sign-in`)
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email)
    // password inputs have no ARIA role: the exact label, with the asterisk of a required field
    await page.getByLabel('Password *', { exact: true }).fill(TEST_PASSWORD)
    await page.getByRole('button', { name: 'Sign In', exact: true }).click()
    await page.waitForURL(`${suite.server.baseUrl}/apps`, { timeout: 30_000 })
    return page
  }

  it('an admin creates an API key, copies it, uses it, and revokes it', async () => {
    const { users } = await createTenant(suite.db, { roles: ['admin'] })
    const page = await signedInPage(users[0]!.email)
    await page.goto(`${suite.server.baseUrl}/api-keys`)
    await page.getByRole('cell', { name: 'No API keys found', exact: true }).waitFor({ timeout: 30_000 })

    await page.getByRole('button', { name: 'Create New Secret Key', exact: true }).click()
    const dialog = page.getByRole('dialog')
    await dialog.getByRole('button', { name: 'Create Secret Key', exact: true }).click()
    await dialog.getByText('Please provide a name for the key.', { exact: true }).waitFor()
    await dialog.getByRole('textbox', { name: 'Name', exact: true }).fill('CI pipeline')
    await dialog.getByRole('button', { name: 'Create Secret Key', exact: true }).click()
    const key = (await page.getByTestId('new-api-key').textContent())?.trim() ?? ''
    expect(key).toMatch(/^sk-[A-Za-z0-9_-]{48}$/)

    await page.getByRole('button', { name: 'Copy', exact: true }).click()
    await page.getByText('API Key Copied!', { exact: true }).waitFor()
    // runs in the page, where navigator exists (the root tsconfig has no DOM types)
    const readClipboard = () =>
      (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText()
    expect(await page.evaluate(readClipboard)).toBe(key)
    await page.getByRole('button', { name: "I've Saved It", exact: true }).click()

    // the list shows the masked key, never the key itself
    await page.getByRole('cell', { name: 'CI pipeline', exact: true }).waitFor()
    const masked = `${key.slice(0, API_TOKEN_PREFIX.length + API_TOKEN_MASK_LENGTH)}...`
    await expect.poll(() => page.getByRole('cell', { name: masked, exact: true }).count()).toBe(1)
    expect(await page.content()).not.toContain(key)
    await page.getByRole('cell', { name: 'Unused', exact: true }).waitFor()
    await guideScreenshot(page, 'administration-api-keys')

    // the key works as its owner
    const info = await fetch(`${suite.server.baseUrl}/api/users/info`, { headers: { authorization: `Bearer ${key}` } })
    expect(info.status).toBe(200)
    expect(((await info.json()) as { email: string }).email).toBe(users[0]!.email)

    await page.getByRole('button', { name: 'Revoke CI pipeline', exact: true }).click()
    await page.getByRole('button', { name: 'Revoke Key', exact: true }).click()
    await page.getByText('Token Deleted', { exact: true }).waitFor()
    await page.getByRole('cell', { name: 'No API keys found', exact: true }).waitFor()
    const after = await fetch(`${suite.server.baseUrl}/api/users/info`, { headers: { authorization: `Bearer ${key}` } })
    expect(after.status).toBe(401)
    await page.context().close()
  })

  it('a citrus user creates a company with two policies and opens its users page', async () => {
    const { users } = await createTenant(suite.db, { roles: ['citrus'] })
    const page = await signedInPage(users[0]!.email)
    await page.goto(`${suite.server.baseUrl}/citrus-admin`)
    await page.getByRole('button', { name: 'Create New Company', exact: true }).click()
    const name = `E2E Health ${Date.now()}`
    const dialog = page.getByRole('dialog')
    await dialog.getByRole('textbox', { name: 'Company Name', exact: true }).fill(name)
    await dialog.getByRole('textbox', { name: 'Industry', exact: true }).fill('Payer')
    await dialog.getByRole('textbox', { name: 'Renewal Cycle (days)', exact: true }).fill('30')
    await dialog.getByRole('button', { name: 'Add Policy', exact: true }).click()
    await dialog.getByRole('combobox', { name: 'Product group 2', exact: true }).selectOption('NOVA')
    await dialog.getByRole('textbox', { name: 'Limit 2', exact: true }).fill('250')
    await guideScreenshot(page, 'administration-new-company')
    await dialog.getByRole('button', { name: 'Create Company', exact: true }).click()
    await page.getByText('Company activated successfully', { exact: true }).waitFor({ timeout: 30_000 })

    const company = await suite.db.prisma.company.findFirstOrThrow({ where: { company_name: name }, include: { policies: true } })
    expect(company.policies.map((p) => [p.product_group, p.limit]).sort()).toEqual([
      ['ATLAS', null],
      ['NOVA', 250],
    ])

    await page
      .getByRole('row', { name: `Open the users of ${name}`, exact: true })
      .getByRole('cell', { name, exact: true })
      .click()
    await page.waitForURL(`${suite.server.baseUrl}/company/${company.id}/users`)
    await page.getByRole('heading', { name: `User Management for Company ${company.id}`, exact: true }).waitFor()
    await page.getByRole('cell', { name: 'No users found for this company.', exact: true }).waitFor()
    await guideScreenshot(page, 'administration-company-users')
    await page.context().close()
  })
})
