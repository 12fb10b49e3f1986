import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, inject, it } from 'vitest'
import { ensureTestDataset } from '../apps/server/src/data/test-dataset.ts'
import { createTenant, TEST_PASSWORD } from '../test/helpers.ts'
import { dismissToasts, guideScreenshot, useBrowserSuite, VIEWPORTS } from './browser.ts'

/**
 * Atlas end to end in headless Chromium against the real server process and the ci dataset: the
 * condition-based search (overview with a card exported as PNG, the resizable query builder kept across a
 * reload, list, hospitals, CSV export, a map click opening the region's detail card) and the generic search
 * (drill-down to providers and back, GeoJSON export, the shared URL in a fresh browser).
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

  async function signedInPage(viewport?: { width: number; height: number }): Promise<Page> {
    const context = await suite.browser.newContext({
      permissions: ['clipboard-read', 'clipboard-write'],
      acceptDownloads: true,
      ...(viewport && { viewport }),
    })
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

  /** The pixels of a PNG, decoded by the browser itself (a data: URL, so no request is made). */
  async function pngPixels(page: Page, png: Buffer) {
    return page.evaluate(async (base64) => {
      const image = new Image()
      image.src = `data:image/png;base64,${base64}`
      await image.decode()
      const canvas = document.createElement('canvas')
      canvas.width = image.naturalWidth
      canvas.height = image.naturalHeight
      const context = canvas.getContext('2d')!
      context.drawImage(image, 0, 0)
      const data = context.getImageData(0, 0, canvas.width, canvas.height).data
      // the pie's payer colours (overview-tab.tsx PAYER_COLORS)
      const payer = [
        [0x1c, 0x7e, 0xd6],
        [0x2f, 0x9e, 0x44],
        [0xf0, 0x8c, 0x00],
        [0x86, 0x8e, 0x96],
      ]
      let payerPixels = 0
      let dark = 0
      for (let i = 0; i < data.length; i += 4) {
        const [r, g, b, a] = [data[i]!, data[i + 1]!, data[i + 2]!, data[i + 3]!]
        if (a > 200 && payer.some(([pr, pg, pb]) => Math.abs(r - pr!) + Math.abs(g - pg!) + Math.abs(b - pb!) < 24)) payerPixels++
        if (a > 200 && r + g + b < 200) dark++
      }
      return { width: canvas.width, height: canvas.height, payerPixels, dark }
    }, png.toString('base64'))
  }

  // at 390 px the query builder stacks above the results (no resizer) and the map's click geometry is the desktop's:
  // the phone walks search → overview → PNG export → list → a state's hospitals → CSV export
  it.each(VIEWPORTS)(
    'condition search: overview, PNG export, resizable query builder, list, hospitals of a state, CSV export, map click with the region card at $width px',
    async (viewport) => {
      const desktop = viewport.width >= 1024
      const page = await signedInPage(viewport)
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
      await guideScreenshot(page, 'atlas-overview')

      // PNG export of a card: a real PNG of the card at scale 2, and no request leaves the origin
      const outside: string[] = []
      page.on('request', (request) => {
        const url = request.url()
        if (!url.startsWith(suite.server.baseUrl) && !url.startsWith('data:') && !url.startsWith('blob:')) outside.push(url)
      })
      const keyInsights = page.locator('[data-export-card="Key Insights"]')
      const cardBox = (await keyInsights.boundingBox())!
      const pngDownload = page.waitForEvent('download')
      await page.getByRole('button', { name: 'Export Key Insights as PNG', exact: true }).click()
      const png = await pngDownload
      expect(png.suggestedFilename()).toMatch(/^atlas-key-insights-\d{4}-\d{2}-\d{2}\.png$/)
      const bytes = readFileSync((await png.path())!)
      if (process.env.E2E_SCREENSHOT_DIR) writeFileSync(path.join(process.env.E2E_SCREENSHOT_DIR, png.suggestedFilename()), bytes)
      expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
      expect(bytes.subarray(12, 16).toString('latin1')).toBe('IHDR')
      expect(bytes.length).toBeGreaterThan(4_000)
      // IHDR width and height: the card at scale 2
      expect(Math.abs(bytes.readUInt32BE(16) - 2 * cardBox.width)).toBeLessThanOrEqual(4)
      expect(Math.abs(bytes.readUInt32BE(20) - 2 * cardBox.height)).toBeLessThanOrEqual(4)
      const pixels = await pngPixels(page, bytes)
      expect(pixels.width).toBe(bytes.readUInt32BE(16))
      // the pie (at least its 5 % minimum slices) and the text were drawn
      expect(pixels.payerPixels).toBeGreaterThan(2_000)
      expect(pixels.dark).toBeGreaterThan(200)
      await page.getByText('Component exported successfully', { exact: true }).waitFor()
      expect(outside).toEqual([])
      await dismissToasts(page)

      if (desktop) {
        // the query builder: dragged wider, narrowed by a key, collapsed; all kept across a reload
        const panel = page.getByTestId('resizable-panel')
        const separator = page.getByRole('separator', { name: 'Resize query builder' })
        expect(await separator.getAttribute('aria-valuenow')).toBe('33')
        const startWidth = (await panel.boundingBox())!.width
        // the top of the page, so that the grip point below is not under the fixed header
        await page.evaluate('window.scrollTo(0, 0)')
        const handle = (await separator.boundingBox())!
        await page.mouse.move(handle.x + handle.width / 2, handle.y + 40)
        await page.mouse.down()
        await page.mouse.move(handle.x + handle.width / 2 + 200, handle.y + 40, { steps: 8 })
        await page.mouse.up()
        await expect.poll(async () => (await panel.boundingBox())!.width).toBeGreaterThan(startWidth + 180)
        const dragged = Number(await separator.getAttribute('aria-valuenow'))
        expect(dragged).toBeGreaterThan(33)
        await separator.focus()
        await page.keyboard.press('ArrowLeft')
        await expect.poll(() => separator.getAttribute('aria-valuenow')).toBe(String(Math.round((dragged - 2) * 10) / 10))
        const kept = await separator.getAttribute('aria-valuenow')
        await page.waitForTimeout(300) // the width transition (150 ms) ends
        const keptWidth = (await panel.boundingBox())!.width
        if (process.env.E2E_SCREENSHOT_DIR)
          await page.screenshot({ path: path.join(process.env.E2E_SCREENSHOT_DIR, 'atlas-query-builder-resized.png') })

        await page.reload()
        await page.getByText('Total Patients', { exact: true }).waitFor({ timeout: 30_000 })
        expect(await separator.getAttribute('aria-valuenow')).toBe(kept)
        expect(Math.abs((await panel.boundingBox())!.width - keptWidth)).toBeLessThanOrEqual(2)
        await page.getByRole('button', { name: 'Collapse query builder', exact: true }).click()
        await expect.poll(async () => (await panel.boundingBox())!.width).toBeLessThanOrEqual(57)
        await page.reload()
        await page.getByText('Total Patients', { exact: true }).waitFor({ timeout: 30_000 })
        expect(await panel.getAttribute('data-collapsed')).toBe('true')
        expect(Math.round((await panel.boundingBox())!.width)).toBe(56)
        await page.getByRole('button', { name: 'Expand query builder', exact: true }).click()
        expect(await separator.getAttribute('aria-valuenow')).toBe(kept)
      }

      await page.getByRole('tab', { name: 'List' }).click()
      await page.getByTestId('atlas-state-table').waitFor({ timeout: 30_000 })
      // the state with the most patients first (a header click sorts descending)
      await page.getByRole('button', { name: 'Patients', exact: true }).click()
      await page.getByRole('button', { name: 'Patients ▼', exact: true }).waitFor({ timeout: 30_000 })
      await page.getByRole('button', { name: 'View Hospitals' }).first().click()
      await page.getByTestId('atlas-hospital-table').waitFor({ timeout: 30_000 })
      await guideScreenshot(page, 'atlas-hospitals')
      const download = page.waitForEvent('download')
      await page.getByRole('button', { name: 'Export CSV' }).click()
      const file = await download
      expect(file.suggestedFilename()).toMatch(/^atlas-hospital-data-\d{4}-\d{2}-\d{2}\.csv$/)
      const csv = readFileSync((await file.path())!, 'utf8')
      expect(csv.split('\r\n')[0]).toBe('Hospital,City,State,Patients,%Commercial,%Medicare,%Medicaid,HCPs,Score')
      await page.getByRole('button', { name: 'All States' }).click()
      await page.getByTestId('atlas-state-table').waitFor()

      if (!desktop) return
      // the map: a click on a region (Kansas, the centre of the default view) opens its detail card as the
      // region popup; a click on it promotes it to the fixed card; an empty click clears selection and popups,
      // the fixed card too (spec 2: 'Clicking empty map clears selection and popups'); close removes it
      await page.getByRole('tab', { name: 'Map' }).click()
      const map = page.getByTestId('citrus-map')
      await map.and(page.locator('[data-map-ready="true"]')).waitFor({ timeout: 60_000 })
      await page.waitForFunction(
        () => {
          const canvas = document.querySelector('[data-testid="citrus-map"] canvas')
          return canvas instanceof HTMLCanvasElement && canvas.width > 0 && canvas.height > 0
        },
        undefined,
        { timeout: 30_000 },
      )
      await map.scrollIntoViewIfNeeded()
      await page.waitForTimeout(1_000) // the choropleth source is drawn
      await guideScreenshot(page, 'atlas-map')
      const mapBox = (await map.boundingBox())!
      // a point with no region: Canada, at the top edge right of the card and left of the zoom buttons
      const empty = { x: mapBox.x + mapBox.width - 80, y: mapBox.y + 8 }
      await page.mouse.click(mapBox.x + mapBox.width / 2, mapBox.y + mapBox.height / 2)
      await page.getByText('Viewing Region KS', { exact: true }).waitFor({ timeout: 10_000 })
      const card = page.getByRole('dialog', { name: 'Region details: Kansas', exact: true })
      await card.waitFor({ timeout: 10_000 })
      expect(await card.getAttribute('data-variant')).toBe('region-popup')
      const kansas = await suite.db.pool.query<{ n: number }>(
        `SELECT count(DISTINCT c.patient_id)::int AS n FROM claims c JOIN claim_diagnoses d ON d.claim_id = c.id
       JOIN patients p ON p.id = c.patient_id WHERE d.icd10_code LIKE 'I10%' AND p.state = 'KS'`,
      )
      expect(await card.locator('[data-metric="patient_count"]').innerText()).toBe(kansas.rows[0]!.n.toLocaleString('en-US'))
      await card.locator('[data-metric="commercial_percent"]').waitFor()
      if (process.env.E2E_SCREENSHOT_DIR)
        await page.screenshot({ path: path.join(process.env.E2E_SCREENSHOT_DIR, 'atlas-map-region-card.png') })
      await card.getByRole('button', { name: 'Pin region details', exact: true }).click()
      await expect.poll(() => card.getAttribute('data-variant')).toBe('fixed-card')
      // an empty click clears the fixed card as well as popups
      await page.mouse.click(empty.x, empty.y)
      await card.waitFor({ state: 'detached', timeout: 10_000 })
      // a popup that is not promoted goes with an empty click too
      await page.mouse.click(mapBox.x + mapBox.width / 2, mapBox.y + mapBox.height / 2)
      await card.waitFor({ timeout: 10_000 })
      expect(await card.getAttribute('data-variant')).toBe('region-popup')
      await page.mouse.click(empty.x, empty.y)
      await card.waitFor({ state: 'detached', timeout: 10_000 })
      // and close removes a fixed card
      await page.mouse.click(mapBox.x + mapBox.width / 2, mapBox.y + mapBox.height / 2)
      await card.waitFor({ timeout: 10_000 })
      await card.getByRole('button', { name: 'Pin region details', exact: true }).click()
      await expect.poll(() => card.getAttribute('data-variant')).toBe('fixed-card')
      await card.getByRole('button', { name: 'Close region details', exact: true }).click()
      await card.waitFor({ state: 'detached' })
    },
  )

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

    // Region Analysis names the searched code's cases (not 'Arthritis') and shows its fixed rates as assumptions
    await stateCard.getByRole('button', { name: 'Region Analysis', exact: true }).click()
    const drawer = page.getByRole('dialog', { name: 'Region Analysis' })
    await drawer.getByTestId('region-cases').waitFor({ timeout: 10_000 })
    expect(await drawer.getByTestId('region-cases').innerText()).toMatch(/^Cases \(I10\): [\d,]+$/)
    expect(await drawer.getByTestId('region-estimates').innerText()).toContain('Illustrative estimates')
    expect(await drawer.innerText()).not.toMatch(/arthritis/i)
    await page.keyboard.press('Escape')
    await drawer.waitFor({ state: 'detached', timeout: 10_000 })

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
