import { writeFileSync } from 'node:fs'
import path from 'node:path'
import type { Page, Request, Response } from 'playwright-core'
import { beforeAll, describe, expect, inject, it } from 'vitest'
import { ensureTestDataset } from '../apps/server/src/data/test-dataset.ts'
import { createTenant, TEST_PASSWORD } from '../test/helpers.ts'
import { useBrowserSuite } from './browser.ts'

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
