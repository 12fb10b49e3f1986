import { readFileSync } from 'node:fs'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { inject } from 'vitest'
import { ensureTestDataset } from '../apps/server/src/data/test-dataset.ts'
import { createTenant, eventually, startSmtpCapture, TEST_PASSWORD } from '../test/helpers.ts'
import { guideScreenshot, useBrowserSuite, VIEWPORTS } from './browser.ts'
import { createMemberLink, verifyByEmailCode } from './member-links.ts'

/**
 * Care Connect end to end in Chromium (issue 11): search → results → select two → compare → referral letter →
 * share by e-mail → the member opens the link in a fresh browser, verifies the code and sees the recommendations;
 * a public link; a restricted link.
 */
describe('Care Connect in a real browser', () => {
  let smtp: Awaited<ReturnType<typeof startSmtpCapture>>
  beforeAll(async () => {
    smtp = await startSmtpCapture()
  })
  afterAll(async () => {
    await smtp?.close()
  })
  const suite = useBrowserSuite(() => smtp.env)
  let search: { zip: string; code: string; name: string }
  let tenant: Awaited<ReturnType<typeof createTenant>>

  beforeAll(async () => {
    await ensureTestDataset(suite.db.pool, inject('databaseUrl'))
    tenant = await createTenant(suite.db, { roles: ['user'], products: [{ product_group: 'CARE_SELECT' }] })
    const best = await suite.db.pool.query<{ zip: string; code: string; name: string }>(
      `SELECT p.zip_code AS zip, p.primary_taxonomy_code AS code, s.display_name AS name
       FROM providers p JOIN mv_provider_panel pp ON pp.npi = p.npi JOIN specialties s ON s.code = p.primary_taxonomy_code
       GROUP BY 1, 2, 3 ORDER BY count(*) DESC, 1, 2 LIMIT 1`,
    )
    search = best.rows[0]!
  })

  async function signedInPage(viewport?: { width: number; height: number }): Promise<Page> {
    const context = await suite.browser.newContext({ acceptDownloads: true, ...(viewport && { viewport }) })
    const page = await context.newPage()
    // no tours in the way
    await context.addCookies([
      {
        name: 'onboardingFlows',
        value: encodeURIComponent(JSON.stringify(['care-select-search', 'care-select-results'])),
        url: suite.server.baseUrl,
      },
    ])
    await page.goto(`${suite.server.baseUrl}/sign-in`)
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill(tenant.users[0]!.email)
    await page.getByLabel('Password *', { exact: true }).fill(TEST_PASSWORD)
    await page.getByRole('button', { name: 'Sign In', exact: true }).click()
    await page.waitForURL(/\/apps/)
    return page
  }

  it.each(VIEWPORTS)(
    'searches, compares two, downloads the referral letter, shares by e-mail; the member verifies and sees them at $width px',
    async (viewport) => {
      const page = await signedInPage(viewport)
      await page.goto(`${suite.server.baseUrl}/care-connect-search`)
      await page.getByRole('textbox', { name: 'Patient ZIP' }).fill(search.zip)
      const specialty = page
        .getByRole('textbox', { name: 'Provider Specialty' })
        .or(page.getByRole('combobox', { name: 'Provider Specialty' }))
        .first()
      await specialty.click()
      await specialty.fill(search.name.slice(0, 12))
      await page.getByRole('option', { name: `${search.name} (${search.code})` }).click()
      await page.getByRole('button', { name: 'Find Providers' }).click()
      // the search runs before the results open (the button reads Finding Providers... meanwhile); the first search of
      // a specialty builds its index
      await page.waitForURL(/\/care-connect-results\?/, { timeout: 60_000 })
      const url = new URL(page.url())
      expect(url.searchParams.get('zip_code')).toBe(search.zip)
      expect(url.searchParams.get('omni_code')).toBe(search.code)
      await expect.poll(() => page.getByTestId('results-count').textContent(), { timeout: 60_000 }).toMatch(/\d+ Referral Results/)

      // the results map: the shared MapLibre map is ready and its canvas has a size (WebGL through SwiftShader)
      await page
        .getByTestId('care-results-map')
        .getByTestId('citrus-map')
        .and(page.locator('[data-map-ready="true"]'))
        .waitFor({ timeout: 60_000 })
      await page.waitForFunction(
        () => {
          const canvas = document.querySelector('[data-testid="care-results-map"] [data-testid="citrus-map"] canvas')
          return canvas instanceof HTMLCanvasElement && canvas.width > 0 && canvas.height > 0
        },
        undefined,
        { timeout: 30_000 },
      )

      const cards = page.getByTestId('provider-card')
      await expect.poll(() => cards.count()).toBeGreaterThanOrEqual(2)
      await guideScreenshot(page, 'care-connect-results')
      const npis = [await cards.nth(0).getAttribute('data-npi'), await cards.nth(1).getAttribute('data-npi')]
      await cards.nth(0).click()
      await cards.nth(1).click()
      await page.getByTestId('selection-bar').getByRole('button', { name: 'Compare' }).click()
      await expect.poll(() => page.getByTestId('comparison-table').isVisible()).toBe(true)
      await guideScreenshot(page, 'care-connect-compare')
      await page.keyboard.press('Escape')

      // a phone's button reads Referral
      await page.getByRole('button', { name: /^Referral( Letter)?$/ }).click()
      await page.getByRole('textbox', { name: 'Patient name' }).fill('Jane E2E')
      await page.getByLabel('Date of birth').fill('1970-04-12')
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Generate' }).click()])
      expect(download.suggestedFilename()).toBe('referral_letter.pdf')
      const pdf = readFileSync((await download.path())!)
      expect(pdf.subarray(0, 5).toString()).toBe('%PDF-')
      await expect.poll(() => page.getByText('Referral letter downloaded successfully!').first().isVisible()).toBe(true)
      await expect.poll(() => page.getByText('Referral Letter Generator').isVisible(), { timeout: 5000 }).toBe(false)

      // share by e-mail
      const member = `member-${Date.now()}@example.com`
      await page.getByTestId('selection-bar').getByRole('button', { name: 'Send' }).click()
      await page.getByRole('tab', { name: 'Email' }).click()
      await page.getByRole('textbox', { name: 'Email' }).fill(member)
      await guideScreenshot(page, 'member-links-send')
      await page.getByRole('dialog').getByRole('button', { name: 'Send' }).click()
      await expect.poll(() => page.getByText('Successfully sent provider link!').first().isVisible()).toBe(true)
      const mail = await eventually(() => {
        const found = smtp.messages.find((m) => m.to.includes(member) && /member-recommendations/.test(m.decoded))
        if (!found) throw new Error('no link e-mail yet')
        return found
      }, 20_000)
      const link = /(http:\/\/127\.0\.0\.1:\d+\/member-recommendations\?[^\s"<]+)/.exec(mail.decoded)![1]!.replace(/&amp;/g, '&')
      expect(new URL(link).searchParams.get('filter_npis')?.split(',').sort()).toEqual([...npis].sort())

      // the member, in a fresh browser
      const memberPage = await (await suite.browser.newContext({ viewport })).newPage()
      await memberPage.goto(link)
      await verifyByEmailCode(memberPage, smtp, member, { access: 'member-links-verify-access', code: 'member-links-code' })
      await memberPage
        .getByText(/Recommended Providers/)
        .first()
        .waitFor({ timeout: 60_000 })
        .catch(async (error: unknown) => {
          console.warn('DEBUG member page', memberPage.url(), (await memberPage.locator('body').innerText()).slice(0, 600))
          throw error
        })
      expect(await memberPage.getByTestId('results-count').textContent()).toBe('2 Recommended Providers')
      const shown = await memberPage.getByTestId('provider-card').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-npi')))
      expect(shown.sort()).toEqual([...npis].sort())
      // the member's map (with the search radius circle) draws too
      await memberPage
        .getByTestId('care-results-map')
        .getByTestId('citrus-map')
        .and(memberPage.locator('[data-map-ready="true"]'))
        .waitFor({ timeout: 60_000 })
      await memberPage.waitForFunction(
        () => {
          const canvas = document.querySelector('[data-testid="care-results-map"] [data-testid="citrus-map"] canvas')
          return canvas instanceof HTMLCanvasElement && canvas.width > 0 && canvas.height > 0
        },
        undefined,
        { timeout: 30_000 },
      )
      await guideScreenshot(memberPage, 'member-links-recommendations')
    },
  )

  it('downloads the referral letter of a search with a procedure code and a carrier (issue 33 item 1)', async () => {
    const { rows } = await suite.db.pool.query<{ cpt: string; carrier: string }>(
      `SELECT (SELECT code FROM procedure_codes ORDER BY code LIMIT 1) AS cpt, (SELECT name FROM insurers ORDER BY name LIMIT 1) AS carrier`,
    )
    const { cpt, carrier } = rows[0]!
    const page = await signedInPage()
    // the results page's URL as the search form writes it: every parameter, the diagnoses empty
    const params = new URLSearchParams({
      zip_code: search.zip,
      omni_code: search.code,
      omni_genre: 'SPECIALTY',
      cpt_union_csv: cpt,
      icd10_cm_union_csv: '',
      insurance_names_csv: carrier,
      radius_in_m: '48280',
    })
    await page.goto(`${suite.server.baseUrl}/care-connect-results?${params.toString()}`)
    await expect.poll(() => page.getByTestId('results-count').textContent(), { timeout: 60_000 }).toMatch(/\d+ Referral Results/)
    await page.getByTestId('provider-card').first().click()
    // a phone's button reads Referral
    await page.getByRole('button', { name: /^Referral( Letter)?$/ }).click()
    await page.getByRole('textbox', { name: 'Patient name' }).fill('Coded E2E')
    await page.getByLabel('Date of birth').fill('1975-05-06')
    const letter = page.waitForResponse((response) => response.url().endsWith('/api/care-select/referral-letter'))
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Generate' }).click()])
    expect((await letter).status()).toBe(200)
    expect(download.suggestedFilename()).toBe('referral_letter.pdf')
    expect(
      readFileSync((await download.path())!)
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-')
    await expect.poll(() => page.getByText('Referral letter downloaded successfully!').first().isVisible()).toBe(true)
    expect(await page.getByText('Failed to download the referral letter. Please try again.').count()).toBe(0)
  })

  it('opens a public link with a click; a restricted link shows Access Restricted', async () => {
    const page = await signedInPage()
    const create = async (body: Record<string, unknown>) =>
      (await createMemberLink(page, suite.server.baseUrl, { zip_code: search.zip, omni_code: search.code, radius_in_m: 300000 }, body)).url
    const publicLink = await create({})
    const guest = await (await suite.browser.newContext()).newPage()
    await guest.goto(publicLink)
    await guest.getByRole('button', { name: 'Continue' }).click()
    await expect.poll(() => guest.getByTestId('results-count').textContent(), { timeout: 60_000 }).toMatch(/Recommended Providers/)

    const restricted = await create({ url_type: 'private', authorized_user_ids: [999999999] })
    await page.goto(restricted)
    await expect.poll(() => page.getByText('Access Restricted').first().isVisible(), { timeout: 20_000 }).toBe(true)
  })

  it('keeps a member who verified through a link on a full page load of another allowed URL (issue 33)', async () => {
    const page = await signedInPage()
    const member = `member-reload-${Date.now()}@example.com`
    const { url: link } = await createMemberLink(
      page,
      suite.server.baseUrl,
      { zip_code: search.zip, omni_code: search.code, radius_in_m: 300000 },
      { url_type: 'private', invite_email: member, requires_email_verification: true },
    )

    const guest = await (await suite.browser.newContext()).newPage()
    await guest.goto(link)
    await verifyByEmailCode(guest, smtp, member)
    await expect.poll(() => guest.getByTestId('results-count').textContent(), { timeout: 60_000 }).toMatch(/Recommended Providers/)

    // another URL the link allows, loaded afresh (typed, bookmarked or opened in the same tab): still the member's
    const other = `${suite.server.baseUrl}/member-recommendations?zip_code=${search.zip}&omni_code=${search.code}&radius_in_m=200000`
    await guest.goto(other)
    await expect.poll(() => guest.getByTestId('results-count').textContent(), { timeout: 60_000 }).toMatch(/Recommended Providers/)
    expect(new URL(guest.url()).pathname).toBe('/member-recommendations')
    // and a reload of it too, with no second verification
    await guest.reload()
    await expect.poll(() => guest.getByTestId('results-count').textContent(), { timeout: 60_000 }).toMatch(/Recommended Providers/)
    expect(await guest.getByRole('button', { name: 'Verify Access' }).count()).toBe(0)
    // a path outside the link is still refused
    await guest.goto(`${suite.server.baseUrl}/price-check`)
    await guest.waitForURL(/\/not-authorized$/, { timeout: 30_000 })
  })
})
