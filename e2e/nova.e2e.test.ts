import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { loadTestDatasetFirst } from '../test/helpers.ts'
import { chooseOption, dismissToasts, guideScreenshot, useBrowserSuite, VIEWPORTS } from './browser.ts'

/**
 * Nova end to end in Chromium as the demo citrus user: search, the results map, health system → hospital →
 * HCPs and the breadcrumb back, map type and sort changes, pinning a hospital to the AI Hub (server-side) and
 * finding it in the pinned tab and the Strategy Hub; the map canvas draws and no request leaves the origin.
 */
describe('Nova in a real browser', () => {
  loadTestDatasetFirst()
  const suite = useBrowserSuite()

  async function signIn(page: Page) {
    await page.goto(`${suite.server.baseUrl}/sign-in`)
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill('citrus@citrus.demo')
    await page.getByLabel('Password *', { exact: true }).fill('Citrus#Demo2026')
    await page.getByRole('button', { name: 'Sign In', exact: true }).click()
    await page.waitForURL(`${suite.server.baseUrl}/apps`, { timeout: 30_000 })
  }
  const param = (page: Page, name: string) => new URL(page.url()).searchParams.get(name)

  it.each(VIEWPORTS)('explores the antivenom market from the national map down to prescribers at $width px', async (viewport) => {
    // the demo user's pins of an earlier run would show the hospital as saved already
    await suite.db.pool.query(`DELETE FROM ai_pins WHERE user_id IN (SELECT id FROM users WHERE email = 'citrus@citrus.demo')`)
    const context = await suite.browser.newContext({ viewport })
    const page = await context.newPage()
    const requests: string[] = []
    page.on('request', (request) => requests.push(request.url()))
    await signIn(page)

    // search form → results with the documented parameters
    await page.goto(`${suite.server.baseUrl}/nova-search`)
    const search = page.getByRole('button', { name: 'Search', exact: true })
    await expect.poll(() => search.isEnabled(), { timeout: 30_000 }).toBe(true)
    await search.click()
    await page.waitForURL(/\/nova-results\?/, { timeout: 30_000 })
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toMatchObject({
      region_level: 'COUNTRY',
      granularity: 'STATE',
      map_type: 'serb_crofab_opportunity_score',
      nova_use_case: 'serb_crofab',
      point_type: 'ALL',
      tab: 'atlas',
      account_query_type: 'FACILITY',
    })
    const legend = page.getByTestId('nova-legend')
    await legend.getByText('SERB CroFab Opportunity Score', { exact: true }).waitFor({ timeout: 30_000 })

    // the shared map draws Nova's tiles: MapLibre is ready and its canvas has a size (WebGL through SwiftShader)
    const map = page.getByTestId('nova-map').getByTestId('citrus-map')
    await map.and(page.locator('[data-map-ready="true"]')).waitFor({ timeout: 60_000 })
    await page.waitForFunction(
      () => {
        const canvas = document.querySelector('[data-testid="nova-map"] [data-testid="citrus-map"] canvas')
        return canvas instanceof HTMLCanvasElement && canvas.width > 0 && canvas.height > 0
      },
      undefined,
      { timeout: 30_000 },
    )

    // change the map type
    await chooseOption(page, 'Map visualization', 'Snake Envenomation Cases')
    await legend.getByText('Snake Envenomation Cases', { exact: true }).waitFor({ timeout: 30_000 })
    expect(param(page, 'map_type')).toBe('snake_envenomination_count')

    // Market Analytics: health systems → a system's hospitals → a hospital's HCPs
    await page.getByRole('tab', { name: 'Market Analytics', exact: true }).click()
    await page.getByText('Explore Health Systems', { exact: true }).waitFor({ timeout: 30_000 })
    const system = page.locator('[data-insight^="HS"]').first()
    await system.waitFor({ timeout: 30_000 })
    await guideScreenshot(page, 'nova-market-analytics')
    const systemId = await system.getAttribute('data-insight')
    await system.click()
    await expect.poll(() => param(page, 'system_id')).toBe(systemId)
    await page.getByText('Health System ID', { exact: true }).waitFor({ timeout: 30_000 })
    // the list swaps the systems (and independent facilities) for the system's hospitals once they arrive
    await page.locator(`[data-insight="${systemId}"]`).waitFor({ state: 'detached', timeout: 30_000 })

    const hospital = page.locator('[data-insight]:not([data-insight^="HS"])').first()
    await hospital.waitFor({ timeout: 30_000 })
    const npi = await hospital.getAttribute('data-insight')
    await hospital.click()
    await expect.poll(() => param(page, 'hco_npi')).toBe(npi)
    await page.getByText('HOSPITAL', { exact: false }).first().waitFor({ timeout: 30_000 })

    // pin the hospital to the AI Hub (server-side pins): the toast names it
    await page.getByRole('button', { name: 'Save to AI Hub', exact: true }).click()
    const toast = page.getByText(/ saved to AI Hub!$/)
    await toast.waitFor({ timeout: 30_000 })
    const hospitalName = (await toast.innerText()).replace(/ saved to AI Hub!$/, '')
    expect(hospitalName.length).toBeGreaterThan(0)
    await page.getByRole('button', { name: 'Saved to AI Hub', exact: true }).waitFor()
    await dismissToasts(page)

    // sort the HCPs by CroFab units used, ascending
    await page.getByRole('button', { name: /^Filter and sort/ }).click()
    await chooseOption(page, 'Sort by', 'CroFab Units Used')
    await expect.poll(() => param(page, 'insights_sort')).toBe('crofab_units_used')
    await page.getByRole('button', { name: 'Sort direction', exact: true }).click()
    await expect.poll(() => param(page, 'sort_direction')).toBe('ASC')

    const provider = page.locator('[data-insight]').first()
    await provider.waitFor({ timeout: 30_000 })
    await provider.click()
    await page.getByText('Years in Practice', { exact: true }).waitFor({ timeout: 30_000 })
    const crumbs = page.getByTestId('nova-breadcrumb')
    await expect.poll(async () => (await crumbs.innerText()).split(/\s*›\s*|\n/).filter(Boolean).length).toBeGreaterThanOrEqual(4)

    // breadcrumb back to the health system: the hospital is cleared
    await crumbs.getByRole('button').nth(1).click()
    await expect.poll(() => param(page, 'hco_npi')).toBeNull()
    expect(param(page, 'system_id')).toBe(systemId)

    // the pinned tab is the AI Hub's context panel: it lists the hospital
    await page.getByRole('tab', { name: 'Pinned', exact: true }).click()
    const sidebarPins = page.getByTestId('ai-context-panel').getByTestId('ai-pin')
    await expect.poll(() => sidebarPins.filter({ hasText: hospitalName }).count(), { timeout: 30_000 }).toBe(1)

    // the Strategy Hub tab is the AI Hub, with the pin from the panel in its context
    await page.getByRole('tab', { name: 'Strategy Hub', exact: true }).click()
    await expect.poll(() => param(page, 'tab')).toBe('strategy')
    const hub = page.getByTestId('strategy-hub').getByTestId('ai-hub')
    await hub.waitFor({ timeout: 30_000 })
    await hub.getByText('Context Loaded • Ready to Generate Insights', { exact: true }).waitFor({ timeout: 30_000 })
    await expect.poll(() => hub.getByTestId('ai-pin').filter({ hasText: hospitalName }).count(), { timeout: 30_000 }).toBe(1)

    // the Strategy Hub's sidebar drills down too: its hospital list shows the system's hospitals (it used to stay on
    // 'Loading...'), and an account picked there swaps in its own list
    await page.getByRole('tab', { name: 'Hospital List', exact: true }).click()
    await page.locator('[data-insight]:not([data-insight^="HS"])').first().waitFor({ timeout: 30_000 })
    const systemHospitals = await page.locator('[data-insight]').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-insight')))
    await crumbs.getByRole('button').first().click()
    await expect.poll(() => param(page, 'system_id')).toBeNull()
    // health systems and independent facilities (sorted by CroFab units, ascending, since the sort above): the list has
    // left the system's hospitals once its first account is none of them (which kind comes first depends on the data:
    // other suites add independent hospitals to the shared dataset)
    const firstAccount = () =>
      page
        .locator('[data-insight]')
        .first()
        .getAttribute('data-insight', { timeout: 1_000 })
        .catch(() => null)
    await expect
      .poll(
        async () => {
          const id = await firstAccount()
          return id !== null && !systemHospitals.includes(id)
        },
        { timeout: 30_000 },
      )
      .toBe(true)
    const accountId = (await firstAccount())!
    // clicked by its id: a list still settling cannot put another account under the click
    await page.locator(`[data-insight="${accountId}"]`).click()
    await expect.poll(() => param(page, accountId.startsWith('HS') ? 'system_id' : 'hco_npi')).toBe(accountId)
    await page.locator(`[data-insight="${accountId}"]`).waitFor({ state: 'detached', timeout: 30_000 })
    await page.locator('[data-insight], [data-empty="list"]').first().waitFor({ timeout: 30_000 })
    expect(param(page, 'tab')).toBe('strategy')

    // no request left the origin (the basemap, tiles and AI Hub are all our own)
    const origin = new URL(suite.server.baseUrl).origin
    const foreign = requests.filter((url) => !url.startsWith('data:') && !url.startsWith('blob:') && new URL(url).origin !== origin)
    expect(foreign).toEqual([])
    await context.close()
  })
})
