import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, inject, it } from 'vitest'
import { ensureTestDataset } from '../apps/server/src/data/test-dataset.ts'
import { DEFAULT_DEMO_PASSWORD } from '../apps/server/src/seed/demo-accounts.ts'
import { testDatabase } from '../test/helpers.ts'
import { chooseOption, guideScreenshot, useBrowserSuite, VIEWPORTS } from './browser.ts'

interface Scenario {
  zip: string
  procedure: string
  payer: string
  npi: string
  provider: string
}

describe('Price Check in Chromium as the demo member', () => {
  let scenario: Scenario
  // the synthetic dataset first, so that the server starts on it
  beforeAll(async () => {
    const db = testDatabase()
    try {
      await ensureTestDataset(db.pool, inject('databaseUrl'))
      // a shoppable procedure of one code, a carrier of the insurance list with rates for it and the ZIP with the
      // most such facilities (on a shared PostgreSQL test database, importer tests add payers of their own)
      const { rows } = await db.pool.query<{ zip: string; procedure: string; payer: string }>(
        `SELECT f.zip_code AS zip, s.name AS procedure, fp.payer_name AS payer
         FROM shoppable_procedures s JOIN facility_prices fp ON fp.procedure_code = s.cpt_codes[1] AND fp.payer_name <> ''
         JOIN insurers i ON i.name = fp.payer_name
         JOIN facilities f ON f.id = fp.facility_id
         WHERE cardinality(s.cpt_codes) = 1
         GROUP BY 1, 2, 3 ORDER BY count(*) DESC, 1, 2, 3 LIMIT 1`,
      )
      const provider = await db.pool.query<{ npi: string; full_name: string }>(
        `SELECT p.npi, p.full_name FROM claims c JOIN providers p ON p.npi = c.rendering_npi GROUP BY p.npi, p.full_name ORDER BY count(*) DESC, p.npi LIMIT 1`,
      )
      scenario = { ...rows[0]!, npi: provider.rows[0]!.npi, provider: provider.rows[0]!.full_name }
    } finally {
      await db.close()
    }
  })
  const suite = useBrowserSuite()

  async function listRates(page: Page): Promise<number[]> {
    const texts = await page.getByTestId('list-rate').allTextContents()
    return texts.map((t) => Number(t.replace(/[$,]/g, '')))
  }

  it.each(VIEWPORTS)(
    'clears the procedure, searches with a carrier, sorts, removes the carrier, opens a provider cost page and shares it with a guest at $width px',
    async (viewport) => {
      const context = await suite.browser.newContext({ viewport })
      const page = await context.newPage()
      // a phone opens the form in a full-screen dialog from the floating search button (spec 3 §2.6)
      const openForm = async () => {
        if (viewport.width < 768) await page.getByRole('button', { name: 'Open search', exact: true }).click()
      }

      await page.goto(`${suite.server.baseUrl}/sign-in`)
      await page.getByRole('textbox', { name: 'Email', exact: true }).fill('member@citrus.demo')
      await page.getByLabel('Password *', { exact: true }).fill(DEFAULT_DEMO_PASSWORD)
      await page.getByRole('button', { name: 'Sign In', exact: true }).click()
      await page.waitForURL((url) => url.pathname === '/price-check', { timeout: 30_000 })

      await openForm()
      await page.getByRole('textbox', { name: 'ZIP code' }).fill(scenario.zip)
      // the clear button stays while suggestions load (held back here) and takes a real mouse click
      const procedureField = page.getByRole('combobox', { name: 'Procedure' })
      const suggestionsCall = (url: URL) => url.pathname.endsWith('/typeahead/procedure-typeahead')
      let releaseSuggestions = () => {}
      const held = new Promise<void>((resolve) => (releaseSuggestions = resolve))
      // clearing the field drops the held look-up, so the page may have ended the request by then
      await page.route(suggestionsCall, (route) => held.then(() => route.continue().catch(() => undefined)))
      const asked = page.waitForRequest((request) => suggestionsCall(new URL(request.url())))
      await procedureField.fill(scenario.procedure)
      await asked
      await page.getByRole('button', { name: 'Clear procedure', exact: true }).click({ timeout: 10_000 })
      expect(await procedureField.inputValue()).toBe('')
      releaseSuggestions()
      await page.unroute(suggestionsCall)
      await procedureField.fill(scenario.procedure)
      await page
        .getByRole('option', { name: new RegExp(scenario.procedure) })
        .first()
        .click()
      await page.getByRole('button', { name: /Add insurance/ }).click()
      await page.getByRole('combobox', { name: 'Insurance' }).fill(scenario.payer)
      await page.getByRole('option', { name: scenario.payer, exact: true }).click()
      await guideScreenshot(page, 'price-check-search')
      await page.getByRole('button', { name: 'Search', exact: true }).click()

      await page.waitForURL((url) => url.pathname === '/price-check/results', { timeout: 30_000 })
      expect(new URL(page.url()).searchParams.get('insurance')).toBe(scenario.payer)
      await page.getByTestId('facility-cost-card').first().waitFor({ timeout: 30_000 })
      expect(await page.getByText('Insurance Pays', { exact: true }).count()).toBeGreaterThan(0)
      // a range whose ends are equal reads as one value (issue 33 item 9)
      await expect(page.getByTestId('estimate-range').first().textContent()).resolves.toMatch(/^\$[\d,]+\.\d\d( – \$[\d,]+\.\d\d)?$/)

      // sort by list price: ascending
      await chooseOption(page, 'Sort by', 'List Price')
      const rates = await listRates(page)
      expect(rates.length).toBeGreaterThan(0)
      expect(rates).toEqual([...rates].sort((a, b) => a - b))
      await guideScreenshot(page, 'price-check-results')

      // a facility's cost page from its card: the same "You pay" figure, now labelled as the price list's (issue 33 item 3)
      const linked = page
        .getByTestId('facility-cost-card')
        .filter({ has: page.getByTestId('facility-cost-link') })
        .first()
      const youPay = await linked.getByTestId('patient-rate').textContent()
      const listRate = await linked.getByTestId('list-rate').textContent()
      const facilityName = await linked.getByTestId('facility-cost-link').textContent()
      await linked.getByTestId('facility-cost-link').click()
      await page.waitForURL((url) => url.pathname.startsWith('/provider-cost-transparency/'), { timeout: 30_000 })
      const costUrl = new URL(page.url())
      expect(costUrl.searchParams.get('insurance')).toBe(scenario.payer)
      expect(costUrl.searchParams.get('zip_code')).toBe(scenario.zip)
      await page.getByRole('heading', { name: facilityName! }).waitFor({ timeout: 30_000 })
      const listedSection = page.getByTestId('listed-price')
      await listedSection.waitFor({ timeout: 30_000 })
      expect(await listedSection.getByTestId('listed-patient-rate').textContent()).toBe(youPay)
      expect(await listedSection.getByTestId('listed-list-rate').textContent()).toBe(listRate)
      expect(await page.getByText('Paid claims', { exact: true }).count()).toBe(1)
      await guideScreenshot(page, 'price-check-cost-page')
      await page.goBack()
      await page.waitForURL((url) => url.pathname === '/price-check/results', { timeout: 30_000 })
      await page.getByTestId('facility-cost-card').first().waitFor({ timeout: 30_000 })

      // remove the carrier: a new search in cash
      await page.getByRole('button', { name: 'New Search', exact: true }).click()
      await page.waitForURL((url) => url.pathname === '/price-check', { timeout: 30_000 })
      await openForm()
      await page.getByRole('button', { name: 'Remove', exact: true }).click()
      await page.getByRole('button', { name: 'Search', exact: true }).click()
      await page.waitForURL((url) => url.pathname === '/price-check/results' && !url.searchParams.has('insurance'), { timeout: 30_000 })
      await page.getByTestId('facility-cost-card').first().waitFor({ timeout: 30_000 })
      expect(await page.getByText('Insurance Pays', { exact: true }).count()).toBe(0)

      // a facility's cost page (kind: facility) from its card, shared with a guest as a clinician's is (issue 33 item 2)
      const facilityCard = page
        .getByTestId('facility-cost-card')
        .filter({ has: page.getByTestId('facility-cost-link') })
        .first()
      const sharedFacilityName = (await facilityCard.getByTestId('facility-cost-link').textContent())!
      await facilityCard.getByTestId('facility-cost-link').click()
      await page.waitForURL((url) => url.pathname.startsWith('/provider-cost-transparency/'), { timeout: 30_000 })
      const facilityPath = new URL(page.url()).pathname
      await page.getByRole('heading', { name: sharedFacilityName }).waitFor({ timeout: 30_000 })
      const facilityNpi = facilityPath.split('/').pop()!
      const facilityShare = page.waitForResponse((response) =>
        response.url().endsWith(`/api/cost-transparency/provider/${facilityNpi}/share`),
      )
      await page.getByRole('button', { name: 'Share', exact: true }).click()
      expect((await facilityShare).status()).toBe(200)
      const facilityLinkInput = page.getByRole('textbox', { name: 'Shareable link' })
      await facilityLinkInput.waitFor({ timeout: 30_000 })
      const facilityLink = await facilityLinkInput.inputValue()
      expect(new URL(facilityLink).pathname).toBe(facilityPath)
      const facilityGuest = await (await suite.browser.newContext({ viewport })).newPage()
      await facilityGuest.goto(facilityLink)
      await facilityGuest.getByRole('heading', { name: sharedFacilityName }).waitFor({ timeout: 30_000 })
      expect(await facilityGuest.getByText('Facility', { exact: true }).count()).toBeGreaterThan(0)
      await facilityGuest.context().close()

      // a provider's cost page, shared with a guest
      await page.goto(`${suite.server.baseUrl}/provider-cost-transparency/${scenario.npi}`)
      await page.getByRole('heading', { name: scenario.provider }).waitFor({ timeout: 30_000 })
      await page.getByRole('button', { name: 'Share', exact: true }).click()
      const linkInput = page.getByRole('textbox', { name: 'Shareable link' })
      await linkInput.waitFor({ timeout: 30_000 })
      const link = await linkInput.inputValue()
      expect(new URL(link).pathname).toBe(`/provider-cost-transparency/${scenario.npi}`)

      const guest = await (await suite.browser.newContext({ viewport })).newPage()
      await guest.goto(link)
      await guest.getByRole('heading', { name: scenario.provider }).waitFor({ timeout: 30_000 })
      expect(await guest.getByRole('button', { name: 'Share', exact: true }).count()).toBe(0)
      // the link opens nothing else
      await guest.goto(`${suite.server.baseUrl}/price-check`)
      await guest.waitForURL((url) => url.pathname !== '/price-check', { timeout: 30_000 })
      await context.close()
    },
  )
})
