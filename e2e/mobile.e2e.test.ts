import { writeFileSync } from 'node:fs'
import path from 'node:path'
import type { Locator, Page } from 'playwright-core'
import { describe, expect, inject, it } from 'vitest'
import { ensureTestDataset } from '../apps/server/src/data/test-dataset.ts'
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

type Box = { x: number; y: number; width: number; height: number }
const intersects = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height

/** Runs in the page: the page itself does not scroll sideways. */
const NO_SIDEWAYS_SCROLL = 'document.scrollingElement.scrollWidth <= window.innerWidth'

/**
 * Runs in the page, scrolled to the bottom: the visible buttons, links and inputs of the page under the floating
 * Feedback button. Written as a string because the root tsconfig has no DOM types.
 */
const UNDER_FEEDBACK_PROBE = `(() => {
  window.scrollTo(0, document.scrollingElement.scrollHeight)
  const feedback = document.querySelector('[data-testid="feedback-button"]').getBoundingClientRect()
  const under = []
  for (const el of document.querySelectorAll('main button, main a, main input, main textarea, main [role="tab"]')) {
    const r = el.getBoundingClientRect()
    if (r.width === 0 || r.height === 0 || r.bottom <= 0 || r.top >= window.innerHeight) continue
    if (r.left < feedback.right && feedback.left < r.right && r.top < feedback.bottom && feedback.top < r.bottom)
      under.push(el.getAttribute('aria-label') || (el.textContent || '').trim().slice(0, 30) || el.tagName)
  }
  return under
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

  async function underFeedback(page: Page): Promise<string[]> {
    await page.getByTestId('feedback-button').waitFor({ timeout: 30_000 })
    return (await page.evaluate(UNDER_FEEDBACK_PROBE)) as string[]
  }

  /** The AI Hub's composer: its send button and counter are clear of the Feedback button, at the top and the bottom. */
  async function expectComposerClear(page: Page) {
    const composer = page.getByRole('textbox', { name: 'Ask the AI assistant' })
    await composer.waitFor({ timeout: 30_000 })
    await composer.fill('Which states grew fastest?')
    for (const scroll of ['top', 'bottom']) {
      await page.evaluate(scroll === 'top' ? 'window.scrollTo(0, 0)' : 'window.scrollTo(0, document.scrollingElement.scrollHeight)')
      const feedback = await boxOf(page.getByTestId('feedback-button'))
      const send = await boxOf(page.getByRole('button', { name: 'Send', exact: true }))
      const counter = await boxOf(page.getByTestId('ai-char-count'))
      expect(intersects(send, feedback), `send (${scroll}): ${JSON.stringify({ send, feedback })}`).toBe(false)
      expect(intersects(counter, feedback), `counter (${scroll})`).toBe(false)
    }
  }

  async function boxOf(locator: Locator): Promise<Box> {
    const box = await locator.boundingBox()
    if (!box) throw new Error('not visible')
    return box
  }

  async function screenshot(page: Page, name: string) {
    if (process.env.E2E_SCREENSHOT_DIR)
      writeFileSync(path.join(process.env.E2E_SCREENSHOT_DIR, name), await page.screenshot({ fullPage: true }))
  }

  it('Atlas and Nova stack their panels at 390 px; the Feedback button sits in the top bar, clear of the AI Hub composer', async () => {
    await ensureTestDataset(suite.db.pool, inject('databaseUrl'))
    const { company, users } = await createTenant(suite.db, {
      roles: ['citrus'],
      products: [{ product_group: 'ATLAS' }, { product_group: 'NOVA' }],
    })
    await suite.db.pool.query(`UPDATE companies SET plan_tier = 'ENTERPRISE' WHERE id = $1`, [company.id])
    const page = await phonePage()
    await signIn(page, users[0]!.email)
    // on a phone the Feedback button is an icon in the top bar: nothing at the bottom of the screen is under it
    await page.getByRole('banner').getByRole('button', { name: 'Feedback', exact: true }).waitFor({ timeout: 30_000 })

    // Atlas: the query builder above the results, each the width of the screen, nothing cut or scrolled sideways
    await page.goto(`${suite.server.baseUrl}/atlas-search`)
    await page.getByText('Ready to Discover Healthcare Insights', { exact: true }).waitFor({ timeout: 30_000 })
    const picker = page.getByTestId('condition-picker')
    await picker.click()
    await picker.fill('I10')
    await page.getByRole('option', { name: /^I10 / }).first().click({ timeout: 30_000 })
    await page.getByRole('button', { name: 'Search', exact: true }).click()
    const totalPatients = page.locator('[data-stat="Total Patients"]')
    await totalPatients.waitFor({ timeout: 30_000 })
    const builder = await boxOf(page.getByTestId('resizable-panel'))
    const results = await boxOf(page.getByRole('tablist').filter({ hasText: 'Overview' }))
    expect(builder.width).toBeGreaterThan(330)
    expect(results.width).toBeGreaterThan(330)
    expect(results.y).toBeGreaterThanOrEqual(builder.y + builder.height)
    expect(await page.getByRole('separator', { name: 'Resize query builder' }).count()).toBe(0)
    // the stat cards show their label and number whole ("Total Patients", not "Tot / Pat")
    const card = await boxOf(totalPatients)
    expect(card.width).toBeGreaterThan(140)
    const clipped = await totalPatients.evaluate(
      (el) =>
        [...el.querySelectorAll('p')].filter((p) => p.scrollWidth > p.clientWidth + 1 || p.getBoundingClientRect().height > 60).length,
    )
    expect(clipped).toBe(0)
    expect(await page.evaluate(NO_SIDEWAYS_SCROLL), '/atlas-search').toBe(true)
    await expectNoOverflow(page, '/atlas-search')
    await screenshot(page, 'atlas-390.png')

    // Nova: the sidebar takes the screen's width above the map
    await page.goto(`${suite.server.baseUrl}/nova-search`)
    const search = page.getByRole('button', { name: 'Search', exact: true })
    await expect.poll(() => search.isEnabled(), { timeout: 30_000 }).toBe(true)
    await search.click()
    await page.waitForURL(/\/nova-results\?/, { timeout: 30_000 })
    const sidebar = page.getByTestId('nova-sidebar')
    await sidebar.getByRole('tab').first().waitFor({ timeout: 30_000 })
    await page.getByTestId('nova-legend').waitFor({ timeout: 60_000 })
    const side = await boxOf(sidebar)
    expect(side.width).toBeGreaterThan(300)
    const map = await boxOf(page.getByTestId('nova-map'))
    expect(map.width).toBeGreaterThan(300)
    expect(map.y).toBeGreaterThanOrEqual(side.y + side.height)
    expect(await page.evaluate(NO_SIDEWAYS_SCROLL), '/nova-results').toBe(true)
    await screenshot(page, 'nova-390.png')

    // AI Hub: the sticky composer's send button and counter stay clear of the Feedback button
    await page.goto(`${suite.server.baseUrl}/ai-hub`)
    await expectComposerClear(page)
    expect(await page.evaluate(NO_SIDEWAYS_SCROLL), '/ai-hub').toBe(true)
    await screenshot(page, 'ai-hub-390.png')
    await page.context().close()
  })

  it('on a desktop the floating Feedback button leaves the AI Hub composer and the end of every page uncovered', async () => {
    const { company, users } = await createTenant(suite.db, { roles: ['citrus'], products: [{ product_group: 'ATLAS' }] })
    await suite.db.pool.query(`UPDATE companies SET plan_tier = 'ENTERPRISE' WHERE id = $1`, [company.id])
    const page = await (await suite.browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage()
    await signIn(page, users[0]!.email)
    expect(await underFeedback(page), '/apps').toEqual([])
    await page.goto(`${suite.server.baseUrl}/ai-hub`)
    await expectComposerClear(page)
    expect(await underFeedback(page), '/ai-hub').toEqual([])
    await screenshot(page, 'ai-hub-1280.png')
    await page.goto(`${suite.server.baseUrl}/atlas-search`)
    await page.getByText('Ready to Discover Healthcare Insights', { exact: true }).waitFor({ timeout: 30_000 })
    expect(await underFeedback(page), '/atlas-search').toEqual([])
    await page.context().close()
  })
})
