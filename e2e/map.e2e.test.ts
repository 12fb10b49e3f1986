import { writeFileSync } from 'node:fs'
import path from 'node:path'
import type { Page, Request, Response } from 'playwright-core'
import { beforeAll, describe, expect, inject, it } from 'vitest'
import { ensureTestDataset } from '../apps/server/src/data/test-dataset.ts'
import { createTenant, TEST_PASSWORD } from '../test/helpers.ts'
import { useBrowserSuite } from './browser.ts'
import { createMemberLink } from './member-links.ts'

/**
 * The shared map in headless Chromium (WebGL through SwiftShader) against the real server process: the
 * data dictionary's coverage map renders the offline basemap (state and county outlines from
 * /api/geo/tiles) and the state choropleth, and no request leaves the origin.
 */
describe('the shared map in a real browser', () => {
  const suite = useBrowserSuite()
  // the states and counties (with their polygons) come with the reference data of the dataset
  beforeAll(() => ensureTestDataset(suite.db.pool, inject('databaseUrl')))

  async function signedInPage(email: string): Promise<{ page: Page; requests: Request[]; responses: Response[] }> {
    const context = await suite.browser.newContext()
    const page = await context.newPage()
    const requests: Request[] = []
    const responses: Response[] = []
    page.on('request', (request) => requests.push(request))
    page.on('response', (response) => responses.push(response))
    await page.goto(`${suite.server.baseUrl}/sign-in`)
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email)
    await page.getByLabel('Password *', { exact: true }).fill(TEST_PASSWORD)
    await page.getByRole('button', { name: 'Sign In', exact: true }).click()
    await page.waitForURL(`${suite.server.baseUrl}/apps`, { timeout: 30_000 })
    return { page, requests, responses }
  }

  /** Runs in the page: the map's visible box and its radius circle's box ([[west, south], [east, north]]). */
  const mapBoxes = (root: string) => `(() => {
    const map = document.querySelector('${root} [data-testid="citrus-map"]')
    return map && map.dataset.bounds ? { bounds: JSON.parse(map.dataset.bounds), circle: map.dataset.radiusBounds ? JSON.parse(map.dataset.radiusBounds) : null, labels: Number(map.dataset.placeLabels || 0) } : null
  })()`
  type Box = [[number, number], [number, number]]
  const contains = (outer: Box, inner: Box) =>
    outer[0][0] <= inner[0][0] && outer[0][1] <= inner[0][1] && outer[1][0] >= inner[1][0] && outer[1][1] >= inner[1][1]

  it("Care Connect's map opens on the candidates and the whole radius circle, with place labels; the member view names the radius in miles", async () => {
    const { users, company } = await createTenant(suite.db, { roles: ['user'], products: [{ product_group: 'CARE_SELECT' }] })
    const best = await suite.db.pool.query<{ zip: string; code: string }>(
      `SELECT p.zip_code AS zip, p.primary_taxonomy_code AS code
       FROM providers p JOIN mv_provider_panel pp ON pp.npi = p.npi
       GROUP BY 1, 2 ORDER BY count(*) DESC, 1, 2 LIMIT 1`,
    )
    const { zip, code } = best.rows[0]!
    const { page, requests } = await signedInPage(users[0]!.email)
    // no tours in the way
    await page.context().addCookies([
      {
        name: 'onboardingFlows',
        value: encodeURIComponent(JSON.stringify(['care-select-search', 'care-select-results'])),
        url: suite.server.baseUrl,
      },
    ])
    const radiusMeters = 40_234 // 25 miles
    const rankings = page.waitForResponse((response) => response.url().includes('/api/care-select/rankings'), { timeout: 90_000 })
    await page.goto(`${suite.server.baseUrl}/care-connect-results?zip_code=${zip}&omni_code=${code}&radius_in_m=${radiusMeters}`)
    const body = (await (await rankings).json()) as {
      hcp_rankings: { hcp_entity: { latitude: number; longitude: number } }[]
      hco_rankings: { latitude: number; longitude: number }[]
    }
    const shown = body.hcp_rankings.length > 0 ? body.hcp_rankings.slice(0, 5).map((r) => r.hcp_entity) : body.hco_rankings.slice(0, 5)
    expect(shown.length).toBeGreaterThan(0)
    const root = '[data-testid="care-results-map"]'
    await page.locator(`${root} [data-map-ready="true"]`).waitFor({ timeout: 60_000 })
    // on open the view holds the circle (and so every candidate within the radius) and the candidates themselves
    await expect
      .poll(
        async () => {
          const boxes = (await page.evaluate(mapBoxes(root))) as { bounds: Box; circle: Box | null } | null
          return boxes?.circle ? contains(boxes.bounds, boxes.circle) : false
        },
        { timeout: 30_000 },
      )
      .toBe(true)
    const { bounds, circle } = (await page.evaluate(mapBoxes(root))) as { bounds: Box; circle: Box }
    for (const point of shown)
      expect(
        contains(bounds, [
          [point.longitude, point.latitude],
          [point.longitude, point.latitude],
        ]),
      ).toBe(true)
    // fitted, not the whole country: the circle fills a good part of the view
    expect((circle[1][1] - circle[0][1]) / (bounds[1][1] - bounds[0][1])).toBeGreaterThan(0.4)
    expect(await page.getByTestId('map-radius').textContent()).toBe('Search radius: 25 mi')
    // city and state names from /api/geo/places, drawn from the app's own font (no glyph server)
    await expect
      .poll(async () => ((await page.evaluate(mapBoxes(root))) as { labels: number }).labels, { timeout: 30_000 })
      .toBeGreaterThan(0)
    expect(requests.some((request) => request.url().endsWith('/api/geo/places'))).toBe(true)
    expect(requests.some((request) => /manrope-latin-\d00-normal.*\.woff2$/.test(request.url()))).toBe(true)
    if (process.env.E2E_SCREENSHOT_DIR)
      writeFileSync(
        path.join(process.env.E2E_SCREENSHOT_DIR, 'care-results-map.png'),
        await page.getByTestId('care-results-map').screenshot(),
      )

    // the member view of a public link (a guest: tiles and places carry the link's token)
    const created = await createMemberLink(page, suite.server.baseUrl, { zip_code: zip, omni_code: code, radius_in_m: 16_093 })
    expect(created.status, String(company.id)).toBe(200)
    const guest = await (
      await suite.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })
    ).newPage()
    const guestRequests: Request[] = []
    guest.on('request', (request) => guestRequests.push(request))
    await guest.goto(created.url)
    await guest.getByRole('button', { name: 'Continue' }).click()
    await guest.locator(`${root} [data-map-ready="true"]`).waitFor({ timeout: 90_000 })
    expect(await guest.getByTestId('map-radius').textContent()).toBe('Search radius: 10 mi')
    await expect
      .poll(
        async () => {
          const boxes = (await guest.evaluate(mapBoxes(root))) as { bounds: Box; circle: Box | null; labels: number } | null
          return boxes?.circle ? contains(boxes.bounds, boxes.circle) && boxes.labels > 0 : false
        },
        { timeout: 30_000 },
      )
      .toBe(true)
    expect(guestRequests.some((request) => /\/api\/geo\/places\?token=/.test(request.url()))).toBe(true)
    if (process.env.E2E_SCREENSHOT_DIR)
      writeFileSync(path.join(process.env.E2E_SCREENSHOT_DIR, 'member-map-390.png'), await guest.screenshot({ fullPage: true }))
    await guest.context().close()
    await page.context().close()
  })

  it('renders the coverage map from our own tiles, colours a clicked state, and nothing leaves the origin', async () => {
    const { users } = await createTenant(suite.db, { roles: ['user'] })
    const { page, requests, responses } = await signedInPage(users[0]!.email)
    const errors: string[] = []
    page.on('pageerror', (error) => errors.push(error.message))
    const launcherScripts = requests.filter((request) => request.resourceType() === 'script').map((request) => request.url())

    await page.goto(`${suite.server.baseUrl}/data-dictionary`)
    const map = page.getByTestId('citrus-map')
    await map.and(page.locator('[data-map-ready="true"]')).waitFor({ timeout: 60_000 })
    // the basemap's tiles and the state boundaries came from our API, with the caller's credentials
    const tiles = responses.filter((response) => /\/api\/geo\/tiles\/\d+\/\d+\/\d+\.mvt$/.test(response.url()))
    expect(tiles.length).toBeGreaterThan(0)
    expect(tiles.map((response) => response.status())).toEqual(tiles.map(() => 200))
    expect(tiles[0]!.headers()['content-type']).toBe('application/vnd.mapbox-vector-tile')
    const sizes = await Promise.all(tiles.map(async (response) => (await response.body()).length))
    expect(Math.max(...sizes)).toBeGreaterThan(1_000) // tiles over land hold the outlines (ocean tiles are empty)
    expect(requests.some((request) => request.url().includes('/api/geo/boundaries?level=state'))).toBe(true)
    await page.getByTestId('map-legend').getByText('Population', { exact: true }).waitFor()

    // the map drew: the canvas is not blank (WebGL through SwiftShader)
    await page.waitForFunction(
      () => {
        const canvas = document.querySelector('[data-testid="citrus-map"] canvas')
        return canvas instanceof HTMLCanvasElement && canvas.width > 0 && canvas.height > 0
      },
      undefined,
      { timeout: 30_000 },
    )
    await page.waitForTimeout(1_000)
    const screenshot = await map.screenshot()
    expect(screenshot.length).toBeGreaterThan(10_000)
    if (process.env.E2E_SCREENSHOT_DIR) writeFileSync(path.join(process.env.E2E_SCREENSHOT_DIR, 'coverage-map.png'), screenshot)

    // a click in the middle of Kansas reports the state's properties
    const box = (await map.boundingBox())!
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2)
    await page
      .getByTestId('coverage-picked')
      .getByText(/^Kansas: [\d,]+$/)
      .waitFor({ timeout: 10_000 })

    // MapLibre is not part of the launcher: the map's code arrived with the data dictionary
    expect(launcherScripts.some((url) => /maplibre/i.test(url))).toBe(false)
    expect(requests.some((request) => request.url().includes('maplibre-gl-worker'))).toBe(true)

    const origin = new URL(suite.server.baseUrl).origin
    const foreign = requests
      .map((request) => request.url())
      .filter((url) => !url.startsWith('data:') && !url.startsWith('blob:') && new URL(url).origin !== origin)
    expect(foreign).toEqual([])
    expect(errors).toEqual([])
    await page.context().close()
  })
})
