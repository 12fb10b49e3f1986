import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { createTenant, TEST_PASSWORD } from '../test/helpers.ts'
import { useBrowserSuite } from './browser.ts'

/** An iPhone 12-sized viewport: the narrowest screen the tables must work on. */
const VIEWPORT = { width: 390, height: 844 }

/**
 * Runs in the page: every visible element that reaches past the right edge of the viewport, unless it sits
 * inside a horizontal scroll container (overflow-x auto or scroll) that itself fits the viewport. Also the page's
 * own horizontal overflow. Written as a string because the root tsconfig has no DOM types.
 */
const OVERFLOW_PROBE = `(() => {
  const width = document.documentElement.clientWidth
  const scrollsX = (el) => /(auto|scroll)/.test(getComputedStyle(el).overflowX) && el.scrollWidth > el.clientWidth + 1
  const fits = (el) => { const r = el.getBoundingClientRect(); return r.left >= -1 && r.right <= width + 1 }
  const describe = (el) => el.tagName.toLowerCase() + (el.getAttribute('aria-label') ? '[' + el.getAttribute('aria-label') + ']' : '') + ':' + (el.textContent || '').trim().slice(0, 40)
  const offenders = []
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect()
    if (r.width === 0 || r.height === 0 || r.right <= width + 1) continue
    const style = getComputedStyle(el)
    if (style.visibility === 'hidden' || style.position === 'fixed') continue
    let ancestor = el.parentElement
    let contained = false
    while (ancestor && ancestor !== document.body) {
      if (scrollsX(ancestor) && fits(ancestor)) { contained = true; break }
      // content hidden by an ancestor that clips it (collapsed navbar off-screen, transitions) is not visible
      if (getComputedStyle(ancestor).transform !== 'none' && ancestor.getBoundingClientRect().left >= width) { contained = true; break }
      ancestor = ancestor.parentElement
    }
    if (!contained) offenders.push(describe(el))
  }
  return { pageScrollWidth: document.documentElement.scrollWidth, width, offenders: offenders.slice(0, 10) }
})()`

/** Runs in the page: every table's row actions (buttons) lie inside their table, so scrolling reaches them. */
const ACTIONS_PROBE = `(() => {
  const clipped = []
  for (const table of document.querySelectorAll('table')) {
    const t = table.getBoundingClientRect()
    for (const button of table.querySelectorAll('button')) {
      const b = button.getBoundingClientRect()
      if (b.width === 0) continue
      if (b.right > t.right + 1 || b.left < t.left - 1) clipped.push(button.getAttribute('aria-label') || button.textContent)
    }
  }
  return clipped
})()`

describe('the tables at 390 px wide in a real browser', () => {
  const suite = useBrowserSuite()

  async function phonePage(): Promise<Page> {
    const context = await suite.browser.newContext({ viewport: VIEWPORT, isMobile: true, hasTouch: true })
    return context.newPage()
  }

  async function signIn(page: Page, email: string) {
    await page.goto(`${suite.server.baseUrl}/sign-in`)
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email)
    await page.getByLabel('Password *', { exact: true }).fill(TEST_PASSWORD)
    await page.getByRole('button', { name: 'Sign In', exact: true }).click()
    await page.waitForURL(`${suite.server.baseUrl}/apps`, { timeout: 30_000 })
  }

  async function expectNoOverflow(page: Page, where: string) {
    const result = (await page.evaluate(OVERFLOW_PROBE)) as { pageScrollWidth: number; width: number; offenders: string[] }
    expect(result.width, where).toBe(VIEWPORT.width)
    expect(result.offenders, where).toEqual([])
    expect(result.pageScrollWidth, where).toBeLessThanOrEqual(VIEWPORT.width)
    expect(await page.evaluate(ACTIONS_PROBE), where).toEqual([])
  }

  it('data dictionary, team, super admin and company users fit 390 px; wide tables scroll in their container', async () => {
    const { company, users } = await createTenant(suite.db, { roles: ['citrus', 'admin', 'user', 'member'] })
    const page = await phonePage()

    await page.goto(`${suite.server.baseUrl}/data-dictionary`)
    await page.getByRole('heading', { name: 'Data Dictionary', exact: true }).waitFor({ timeout: 30_000 })
    await page.getByRole('columnheader', { name: 'Description', exact: true }).first().waitFor()
    await expectNoOverflow(page, '/data-dictionary')

    await signIn(page, users[0]!.email)
    await expectNoOverflow(page, '/apps')

    await page.goto(`${suite.server.baseUrl}/team-management`)
    await page.getByRole('cell', { name: users[1]!.email, exact: true }).waitFor({ timeout: 30_000 })
    await expectNoOverflow(page, '/team-management (users)')
    await page.getByRole('tab', { name: 'Products and Credits', exact: true }).click()
    await page.getByRole('columnheader', { name: 'Plan Type', exact: true }).waitFor()
    await expectNoOverflow(page, '/team-management (products)')

    await page.goto(`${suite.server.baseUrl}/citrus-admin`)
    await page.getByRole('button', { name: 'Create New Company', exact: true }).waitFor({ timeout: 30_000 })
    await page.getByRole('cell', { name: company.company_name, exact: true }).waitFor()
    await expectNoOverflow(page, '/citrus-admin')

    await page.goto(`${suite.server.baseUrl}/company/${company.id}/users`)
    await page.getByRole('cell', { name: users[3]!.email, exact: true }).waitFor({ timeout: 30_000 })
    await expectNoOverflow(page, '/company/:id/users')

    await page.goto(`${suite.server.baseUrl}/api-keys`)
    await page.getByText('No API keys found', { exact: true }).waitFor({ timeout: 30_000 })
    await expectNoOverflow(page, '/api-keys')

    // the probe is not blind: a wide block in the page is reported, the same block in a scroll container is not
    await page.evaluate(
      `document.querySelector('main').insertAdjacentHTML('beforeend', '<div id="wide-probe" style="width:600px;height:10px">wide</div>')`,
    )
    const loose = (await page.evaluate(OVERFLOW_PROBE)) as { offenders: string[] }
    expect(loose.offenders).toContain('div:wide')
    await page.evaluate(
      `document.getElementById('wide-probe').outerHTML = '<div style="overflow-x:auto;max-width:100%"><div style="width:600px;height:10px">wide</div></div>'`,
    )
    expect(((await page.evaluate(OVERFLOW_PROBE)) as { offenders: string[] }).offenders).toEqual([])
    await page.context().close()
  })
})
