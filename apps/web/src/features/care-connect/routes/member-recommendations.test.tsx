import { TOKEN_STORAGE_KEY } from '@citrus/contracts'
import { fireEvent, screen, waitFor } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { getGuestSession, resumeGuestSession } from '../../../lib/guest-session'
import { markShareableTokenAccepted, SHAREABLE_TOKEN_STORAGE_KEY } from '../../../lib/guest-token-store'
import { EMPTY_RANKINGS, rankingProvider } from '../../../test/care-fixtures'
import { mockApi, reply } from '../../../test/mock-api'
import { renderApp } from '../../../test/render'
import { loginToken, shareableToken } from '../../../test/tokens'

const RESTRICTED =
  'You are not authorized to view these provider recommendations. This content was shared with specific individuals. If you believe you should have access, please contact support for assistance.'
const NOT_AUTHORIZED = { message: 'You are not authorized to access this content', code: 'FORBIDDEN', status: 403 }

const validation = (authorized: number[] | null) => ({
  url_type: 'private' as const,
  role: 'member',
  requires_phone_verification: false,
  requires_email_verification: false,
  requires_account_creation: false,
  authorized_user_ids: authorized,
  is_expired: false,
  client_routes: ['/member-recommendations'],
})

describe('/member-recommendations for a signed-in user and a restricted link', () => {
  const link = shareableToken({ ut: 'private' })
  const path = `/member-recommendations?token=${link}&zip_code=10460&omni_code=207Q00000X`

  it('shows Access Restricted when the server refuses the user on validation, and asks no rankings', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ sub: '42', role: 'member' }))
    const api = mockApi({
      'GET /shareable-url/validate-shareable-link': () => reply(403, NOT_AUTHORIZED),
    })
    renderApp(path)
    expect(await screen.findByText('Access Restricted', {}, { timeout: 8000 })).toBeTruthy()
    expect(screen.getByText(RESTRICTED)).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Return to Dashboard' })).toBeTruthy()
    expect(api.callsTo('GET /care-select/rankings')).toHaveLength(0)
  }, 30_000)

  it('sends the link beside the login to the rankings; a 403 of the server for the user is Access Restricted', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ sub: '42', role: 'member' }))
    const api = mockApi({
      'GET /shareable-url/validate-shareable-link': validation([42]),
      'GET /care-select/rankings': () => reply(403, NOT_AUTHORIZED),
    })
    renderApp(path)
    expect(await screen.findByText('Access Restricted', {}, { timeout: 8000 })).toBeTruthy()
    expect(screen.getByText(RESTRICTED)).toBeTruthy()
    const [call] = api.callsTo('GET /care-select/rankings')
    expect(call!.query.get('token')).toBe(link)
    expect(call!.query.get('zip_code')).toBe('10460')
    expect(call!.headers.get('Authorization')).toMatch(/^Bearer /)
  }, 30_000)

  it('restricts on the validation answer when the link lists other users', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ sub: '42', role: 'member' }))
    const api = mockApi({ 'GET /shareable-url/validate-shareable-link': validation([7]) })
    renderApp(path)
    expect(await screen.findByText(RESTRICTED, {}, { timeout: 8000 })).toBeTruthy()
    await waitFor(() => expect(api.callsTo('GET /care-select/rankings')).toHaveLength(0))
  }, 30_000)
})

describe('/member-recommendations: the care-search modal and the tour (spec 3 §2.3)', () => {
  it('opens the search form filled with the search shown; a new search stays on the screen with the link', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ sub: '42', role: 'member' }))
    const api = mockApi({
      'GET /insurers/': { insurers: ['Aetna'] },
      'GET /care-select/rankings': EMPTY_RANKINGS,
    })
    const { router } = renderApp('/member-recommendations?zip_code=10460&omni_code=207Q00000X')
    fireEvent.click(await screen.findByRole('button', { name: 'New search' }, { timeout: 8000 }))
    const zip = (await screen.findByRole('textbox', { name: 'Patient ZIP' })) as HTMLInputElement
    expect(zip.value).toBe('10460')
    const specialty = (screen.queryByRole('textbox', { name: 'Provider Specialty' }) ??
      screen.getByRole('combobox', { name: 'Provider Specialty' })) as HTMLInputElement
    expect(specialty.value).toBe('Family Medicine (207Q00000X)')
    fireEvent.change(zip, { target: { value: '98101' } })
    const find = screen.getByRole('button', { name: 'Find Providers' }) as HTMLButtonElement
    await waitFor(() => expect(find.disabled).toBe(false))
    fireEvent.click(find)
    await waitFor(() => expect(new URLSearchParams(router.state.location.search).get('zip_code')).toBe('98101'))
    expect(router.state.location.pathname).toBe('/member-recommendations')
    await waitFor(() => expect(api.callsTo('GET /care-select/rankings').map((c) => c.query.get('zip_code'))).toEqual(['10460', '98101']))
  }, 30_000)

  it('offers the tour with the recommendations, and runs it when asked even after it was completed', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ sub: '42', role: 'member' }))
    document.cookie = `onboardingFlows=${encodeURIComponent(JSON.stringify(['care-select-member']))}; path=/`
    mockApi({ 'GET /care-select/rankings': { ...EMPTY_RANKINGS, hcp_rankings: [rankingProvider(1), rankingProvider(2)] } })
    renderApp('/member-recommendations?zip_code=10460&omni_code=207Q00000X')
    fireEvent.click(await screen.findByRole('button', { name: 'Take the tour' }, { timeout: 8000 }))
    expect((await screen.findByTestId('tour-step', {}, { timeout: 8000 })).textContent).toContain('New search')
    document.cookie = 'onboardingFlows=; max-age=0; path=/'
  }, 30_000)
})

describe('/member-recommendations for a guest who verified through a link, after a full page load (issue 33)', () => {
  // the token the verification answered with (what the tab keeps in sessionStorage)
  const verified = shareableToken({ em: 'member@example.com', ph: undefined, vf: ['5f34b3a3-a6b0-4ec3-8594-c0a699404769'] })
  const link = { ...validation(null), requires_email_verification: true }
  const rankings = { ...EMPTY_RANKINGS, hcp_rankings: [rankingProvider(1), rankingProvider(2)] }

  /** What a page load does (app/router.tsx): the tab's guest session is validated again before the first page. */
  function pageLoad() {
    sessionStorage.setItem(SHAREABLE_TOKEN_STORAGE_KEY, verified)
    markShareableTokenAccepted(verified)
    resumeGuestSession()
  }

  it("shows another URL the link allows, with no token in it, with the rankings asked under the tab's link", async () => {
    const api = mockApi({ 'GET /shareable-url/validate-shareable-link': link, 'GET /care-select/rankings': rankings })
    pageLoad()
    const { router } = renderApp('/member-recommendations?zip_code=98101&omni_code=207Q00000X&radius_in_m=200000')
    await waitFor(() => expect(screen.getByTestId('results-count').textContent).toBe('2 Recommended Providers'), { timeout: 8000 })
    expect(router.state.location.pathname).toBe('/member-recommendations')
    expect(getGuestSession()).toMatchObject({ status: 'active', token: verified })
    const [call] = api.callsTo('GET /care-select/rankings')
    expect(call!.query.get('token')).toBe(verified)
    expect(call!.query.get('zip_code')).toBe('98101')
    expect(call!.headers.get('Authorization')).toBeNull()
  }, 30_000)

  it('does not ask a reloaded page to verify again', async () => {
    mockApi({ 'GET /shareable-url/validate-shareable-link': link, 'GET /care-select/rankings': rankings })
    pageLoad()
    renderApp(`/member-recommendations?zip_code=10460&omni_code=207Q00000X&token=${verified}`)
    await waitFor(() => expect(screen.getByTestId('results-count').textContent).toBe('2 Recommended Providers'), { timeout: 8000 })
    expect(screen.queryByRole('button', { name: 'Verify Access' })).toBeNull()
  }, 30_000)
})
