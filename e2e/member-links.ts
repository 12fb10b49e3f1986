import type { Page } from 'playwright-core'
import { eventually, type CapturedMail } from '../test/helpers.ts'
import { guideScreenshot } from './browser.ts'

/**
 * A Care Connect member link (public unless `body` says otherwise), made through the API as the user signed in on
 * `page`: the recommendations of a search, for the member role.
 */
export async function createMemberLink(
  page: Page,
  baseUrl: string,
  search: { zip_code: string; omni_code: string; radius_in_m: number },
  body: Record<string, unknown> = {},
): Promise<{ status: number; url: string }> {
  const token = await page.evaluate(() => localStorage.getItem('jwtToken'))
  const response = await fetch(`${baseUrl}/api/shareable-url`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({
      url_type: 'public',
      client_routes: ['/member-recommendations'],
      api_endpoints: ['GET /care-select/rankings', 'GET /shareable-url/validate-shareable-link'],
      incoming_url: '/member-recommendations',
      initial_query_params: search,
      role: 'member',
      ...body,
    }),
  })
  return { status: response.status, url: ((await response.json()) as { url: string }).url }
}

/**
 * On a link's access modal: asks for a code by e-mail, reads it from the captured mail and enters it. `guide` names the
 * user guide's screenshots of the two steps (docs/guide/member-links.md): the Verify Access form filled in, and the
 * Email Verification step with the code typed, each taken just before its button is pressed.
 */
export async function verifyByEmailCode(
  page: Page,
  mail: { messages: CapturedMail[] },
  email: string,
  guide: { access?: string; code?: string } = {},
): Promise<void> {
  await page.getByRole('textbox', { name: 'Email' }).fill(email)
  if (guide.access) await guideScreenshot(page, guide.access)
  await page.getByRole('button', { name: 'Verify Access' }).click()
  const codeMail = await eventually(() => {
    const found = mail.messages.find((m) => m.to.includes(email) && /verification code is \d{6}/.test(m.decoded))
    if (!found) throw new Error('no code e-mail yet')
    return found
  }, 20_000)
  const code = /verification code is (\d{6})/.exec(codeMail.decoded)![1]!
  await page.getByLabel('Verification code').first().click()
  await page.keyboard.type(code)
  if (guide.code) await guideScreenshot(page, guide.code)
  await page.getByRole('button', { name: 'Verify', exact: true }).click()
}
