import { readFileSync } from 'node:fs'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, inject, it } from 'vitest'
import { ensureTestDataset } from '../apps/server/src/data/test-dataset.ts'
import { createTenant, TEST_PASSWORD } from '../test/helpers.ts'
import { dismissToasts, useBrowserSuite } from './browser.ts'

/**
 * Atlas end to end in headless Chromium against the real server process and the ci dataset: the
 * condition-based search (overview, list, hospitals, CSV export) and the generic search (drill-down to
 * providers and back, GeoJSON export, the shared URL in a fresh browser). The map click and the PNG export
 * of cards wait for the shared map component and the image export (not in this branch).
 */
describe('Atlas in a real browser', () => {
  const suite = useBrowserSuite()
  let email: string

  beforeAll(async () => {
    await ensureTestDataset(suite.db.pool, inject('databaseUrl'))
    const { company, users } = await createTenant(suite.db, { roles: ['user'], products: [{ product_group: 'ATLAS' }] })
    await suite.db.pool.query(`UPDATE companies SET plan_tier = 'ENTERPRISE' WHERE id = $1`, [company.id])
    email = users[0]!.email
  })

  async function signedInPage(): Promise<Page> {
    const context = await suite.browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'], acceptDownloads: true })
    const page = await context.newPage()
    await page.goto(`${suite.server.baseUrl}/sign-in`)
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email)
    await page.getByLabel('Password *', { exact: true }).fill(TEST_PASSWORD)
    await page.getByRole('button', { name: 'Sign In', exact: true }).click()
    await page.waitForURL(`${suite.server.baseUrl}/apps`, { timeout: 30_000 })
    return page
  }

  async function pickCondition(page: Page, text: string, code: string) {
    const picker = page.getByTestId('condition-picker')
    await picker.click()
    await picker.fill(text)
    await page
      .getByRole('option', { name: new RegExp(`^${code.replace('.', '\\.')} `) })
      .first()
      .click({ timeout: 30_000 })
  }

  it('condition search: overview, list, hospitals of a state, CSV export', async () => {
    const page = await signedInPage()
    await page.goto(`${suite.server.baseUrl}/atlas-search`)
    await page.getByText('Ready to Discover Healthcare Insights', { exact: true }).waitFor({ timeout: 30_000 })
    await pickCondition(page, 'I10', 'I10')
    await page.getByRole('button', { name: 'Search', exact: true }).click()
    await page.getByText('Total Patients', { exact: true }).waitFor({ timeout: 30_000 })
    const expected = await suite.db.pool.query<{ n: number }>(
      `SELECT count(DISTINCT c.patient_id)::int AS n FROM claims c JOIN claim_diagnoses d ON d.claim_id = c.id WHERE d.icd10_code LIKE 'I10%'`,
    )
    await page.getByText(expected.rows[0]!.n.toLocaleString('en-US'), { exact: true }).first().waitFor()
    expect(page.url()).toContain('icd10_cm_union_csv=I10')

    await page.getByRole('tab', { name: 'List' }).click()
    await page.getByTestId('atlas-state-table').waitFor({ timeout: 30_000 })
    // the state with the most patients first (a header click sorts descending)
    await page.getByRole('button', { name: 'Patients', exact: true }).click()
    await page.getByRole('button', { name: 'Patients ▼', exact: true }).waitFor({ timeout: 30_000 })
    await page.getByRole('button', { name: 'View Hospitals' }).first().click()
    await page.getByTestId('atlas-hospital-table').waitFor({ timeout: 30_000 })
    const download = page.waitForEvent('download')
    await page.getByRole('button', { name: 'Export CSV' }).click()
    const file = await download
    expect(file.suggestedFilename()).toMatch(/^atlas-hospital-data-\d{4}-\d{2}-\d{2}\.csv$/)
    const csv = readFileSync((await file.path())!, 'utf8')
    expect(csv.split('\r\n')[0]).toBe('Hospital,City,State,Patients,%Commercial,%Medicare,%Medicaid,HCPs,Score')
    await page.getByRole('button', { name: 'All States' }).click()
    await page.getByTestId('atlas-state-table').waitFor()
  })

  it('generic search: drill state → facility → providers → back, GeoJSON export, shared URL in a fresh browser', async () => {
    const page = await signedInPage()
    await page.goto(`${suite.server.baseUrl}/atlas/generic`)
    await pickCondition(page, 'I10', 'I10')
    await page.getByRole('button', { name: 'Search', exact: true }).click()
    await page.waitForURL(/\/atlas\/generic\/results\?/, { timeout: 30_000 })
    await page.getByText('Analysis: I10', { exact: true }).waitFor({ timeout: 30_000 })
    await page.getByText('Region: United States', { exact: true }).waitFor()

    // the map: the shared MapLibre map is ready and its canvas has a size (WebGL through SwiftShader)
    await page.getByTestId('citrus-map').and(page.locator('[data-map-ready="true"]')).waitFor({ timeout: 60_000 })
    await page.waitForFunction(
      () => {
        const canvas = document.querySelector('[data-testid="citrus-map"] canvas')
        return canvas instanceof HTMLCanvasElement && canvas.width > 0 && canvas.height > 0
      },
      undefined,
      { timeout: 30_000 },
    )

    const stateCard = page.locator('[data-insight="STATE"]').first()
    await stateCard.waitFor({ timeout: 30_000 })
    // 'Save to Hub' on a card pins it server-side (and does not drill); the ai-hub tab holds the AI Hub
    const stateName = (await stateCard.locator('p').first().innerText()).trim()
    await stateCard.getByRole('button', { name: 'Save to Hub', exact: true }).click()
    await page.getByText(`${stateName} saved to AI Hub!`, { exact: true }).waitFor({ timeout: 30_000 })
    await stateCard.getByRole('button', { name: 'Saved to Hub', exact: true }).waitFor()
    expect(await page.locator('[data-insight="FACILITY"]').count()).toBe(0)
    await page.getByRole('tab', { name: 'AI Hub', exact: true }).click()
    await page.getByTestId('atlas-ai-hub-panel').getByTestId('ai-hub').waitFor({ timeout: 30_000 })
    await page.getByRole('tab', { name: 'Overview', exact: true }).click()
    await stateCard.getByRole('button', { name: 'Saved to Hub', exact: true }).click()
    await page.getByText(`${stateName} removed from AI Hub`, { exact: true }).waitFor({ timeout: 30_000 })
    await stateCard.getByRole('button', { name: 'Save to Hub', exact: true }).waitFor()

    await stateCard.click()
    const facilityCard = page.locator('[data-insight="FACILITY"]').first()
    await facilityCard.waitFor({ timeout: 30_000 })
    await facilityCard.click()
    await page.locator('[data-insight="PROVIDER"], [data-empty-state]').first().waitFor({ timeout: 30_000 })
    await page.getByRole('button', { name: 'Back', exact: true }).click()
    await page.locator('[data-insight="FACILITY"]').first().waitFor({ timeout: 30_000 })

    const download = page.waitForEvent('download')
    await page.getByRole('button', { name: 'Export Data', exact: true }).click()
    const geojson = JSON.parse(readFileSync((await (await download).path())!, 'utf8')) as { type: string; features: unknown[] }
    expect(geojson.type).toBe('FeatureCollection')
    expect(geojson.features.length).toBeGreaterThan(0)
    await page.getByText('GeoJSON exported successfully', { exact: true }).waitFor()
    await dismissToasts(page)

    await page.getByRole('button', { name: 'Share Results', exact: true }).click()
    await page.getByText('URL copied to clipboard', { exact: true }).waitFor()
    const shared = await page.evaluate(() =>
      (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText(),
    )
    expect(shared).toContain('/atlas/generic/results?')

    const fresh = await signedInPage()
    await fresh.goto(shared)
    await fresh.getByText('Analysis: I10', { exact: true }).waitFor({ timeout: 30_000 })
    const freshFirst = fresh.locator('[data-insight="STATE"]').first()
    await freshFirst.waitFor({ timeout: 30_000 })
    await page.getByRole('button', { name: 'Back', exact: true }).click()
    const original = await page.locator('[data-insight="STATE"]').first().innerText({ timeout: 30_000 })
    expect(await freshFirst.innerText()).toBe(original)
  })
})
