import { TOKEN_STORAGE_KEY } from '@citrus/contracts'
import { fireEvent, screen, within } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { mockApi } from '../../test/mock-api'
import { renderApp } from '../../test/render'
import { loginToken } from '../../test/tokens'
import { PHONE_QUERY } from './app-layout'

function signIn(role: string) {
  localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role, email: 'ada@example.com' }))
}

const nav = () => screen.getByRole('navigation', { name: 'Main navigation' })

describe('app shell', () => {
  it('filters sidebar items by role and product', async () => {
    signIn('admin')
    mockApi({ 'GET /company/products': { product_groups: ['ATLAS'] } })
    renderApp('/apps')
    await screen.findByRole('button', { name: 'Open Atlas' }, { timeout: 5000 })
    expect(within(nav()).getByRole('link', { name: 'Home' })).toBeTruthy()
    expect(within(nav()).getByRole('link', { name: 'Atlas' })).toBeTruthy()
    expect(within(nav()).queryByRole('link', { name: 'Care Connect' })).toBeNull()
    expect(within(nav()).getByText('Team Settings')).toBeTruthy()
    expect(within(nav()).queryByText('Super Admin Settings')).toBeNull()
  })

  it.each(['admin', 'user'])('does not offer Nova to %s, whom its page would refuse', async (role) => {
    signIn(role)
    mockApi({ 'GET /company/products': { product_groups: ['ATLAS', 'CARE_SELECT', 'NOVA'] } })
    renderApp('/apps')
    await screen.findByRole('button', { name: 'Open Atlas' }, { timeout: 5000 })
    expect(within(nav()).getByRole('link', { name: 'Care Connect' })).toBeTruthy()
    expect(within(nav()).queryByRole('link', { name: 'Nova' })).toBeNull()
    expect(screen.queryByRole('button', { name: 'Open Nova' })).toBeNull()
  })

  it("links the logo to the role's home: /apps for staff, /price-check for members", async () => {
    signIn('member')
    mockApi({ 'GET /company/products': { product_groups: [] } })
    renderApp('/user-settings')
    await screen.findByRole('heading', { name: 'Profile' }, { timeout: 5000 })
    expect(screen.getByRole('link', { name: 'Back Home' }).getAttribute('href')).toBe('/price-check')
    expect(screen.queryByRole('link', { name: 'Back to Apps' })).toBeNull()
  })

  it('auto-expands the submenu of the current route', async () => {
    signIn('admin')
    mockApi({ 'GET /company/products': { product_groups: [] } })
    renderApp('/api-keys')
    await screen.findByRole('heading', { name: 'API Keys' }, { timeout: 5000 })
    expect(within(nav()).getByRole('link', { name: 'Manage Team' })).toBeTruthy()
    expect(within(nav()).getByRole('link', { name: 'API Keys' })).toBeTruthy()
  })

  it('links Team Settings and Super Admin Settings to their pages', async () => {
    signIn('citrus')
    mockApi({ 'GET /company/products': { product_groups: [] }, 'GET /super-admin/company': { companies: [] } })
    renderApp('/citrus-admin')
    // the pages are lazy routes: a loaded machine takes more than the default second to load one
    await screen.findByText('No companies found', {}, { timeout: 5000 })
    // the Super Admin submenu is expanded on its own route; Team Settings' links are in its collapsed panel
    expect(within(nav()).getByRole('link', { name: 'Companies' }).getAttribute('href')).toBe('/citrus-admin')
    expect(within(nav()).getByRole('link', { name: 'Manage Team', hidden: true }).getAttribute('href')).toBe('/team-management')
    expect(within(nav()).getByRole('link', { name: 'API Keys', hidden: true }).getAttribute('href')).toBe('/api-keys')
  })

  it('collapses the sidebar, keeps the state in localStorage and shows the version 2.3.0 when collapsed', async () => {
    signIn('user')
    mockApi({ 'GET /company/products': { product_groups: [] } })
    const first = renderApp('/apps')
    await screen.findByText("Explore different apps for your organization's needs")
    expect(screen.queryByTestId('version-label')).toBeNull()
    fireEvent.click(screen.getByRole('button', { name: 'Collapse sidebar' }))
    expect(screen.getByTestId('version-label').textContent).toBe('2.3.0')
    expect(localStorage.getItem('sidebarCollapsed')).toBe('true')
    first.unmount()
    renderApp('/apps')
    await screen.findByText("Explore different apps for your organization's needs")
    expect(screen.getByTestId('version-label').textContent).toBe('2.3.0')
    expect(screen.getByRole('button', { name: 'Expand sidebar' })).toBeTruthy()
  })

  it('shows breadcrumbs in the top header', async () => {
    signIn('citrus')
    mockApi({ 'GET /company/products': { product_groups: ['NOVA'] } })
    renderApp('/nova-search')
    const crumbs = await screen.findByRole('navigation', { name: 'Breadcrumb' })
    expect(within(crumbs).getByRole('link', { name: 'Apps' }).getAttribute('href')).toBe('/apps')
    expect(within(crumbs).getByText('Nova Search')).toBeTruthy()
  })

  it('has an avatar menu with the e-mail, Profile and Logout; Logout clears the token', async () => {
    signIn('member')
    mockApi({ 'GET /company/products': { product_groups: [] } })
    const { router } = renderApp('/user-settings')
    await screen.findByRole('heading', { name: 'Profile' }, { timeout: 5000 })
    fireEvent.click(screen.getByRole('button', { name: 'User menu' }))
    const menu = await screen.findByRole('menu', {}, { timeout: 2000 })
    expect(within(menu).getByText('ada@example.com')).toBeTruthy()
    expect(await within(menu).findByRole('menuitem', { name: 'Profile' })).toBeTruthy()
    fireEvent.click(within(menu).getByRole('menuitem', { name: 'Logout' }))
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/sign-in'))
    expect(localStorage.getItem(TOKEN_STORAGE_KEY)).toBeNull()
  })

  it('shows Login and Sign-Up to guests on public shell pages', async () => {
    mockApi({ 'GET /data-dictionary': { tab_sets: [] } })
    renderApp('/data-dictionary')
    await screen.findByRole('heading', { name: 'Data Dictionary' })
    expect(within(nav()).getByRole('link', { name: 'Login' }).getAttribute('href')).toBe('/sign-in')
    expect(within(nav()).getByRole('link', { name: 'Sign-Up' }).getAttribute('href')).toBe('/sign-up')
    expect(screen.queryByRole('button', { name: 'Feedback' })).toBeNull()
  })

  it('puts the Feedback button in the top bar on a phone and keeps no room for it at the bottom', async () => {
    const matchMedia = window.matchMedia
    window.matchMedia = vi.fn((query: string) => ({ ...matchMedia(query), matches: query === PHONE_QUERY }))
    try {
      signIn('admin')
      mockApi({ 'GET /company/products': { product_groups: ['ATLAS'] } })
      renderApp('/apps')
      await screen.findByRole('button', { name: 'Open Atlas' }, { timeout: 5000 })
      expect(within(screen.getByRole('banner')).getByRole('button', { name: 'Feedback' })).toBeTruthy()
      expect(screen.getAllByRole('button', { name: 'Feedback' })).toHaveLength(1)
      expect(document.querySelector<HTMLElement>('.mantine-AppShell-root')!.style.getPropertyValue('--citrus-floating-clearance')).toBe(
        '0px',
      )
    } finally {
      window.matchMedia = matchMedia
    }
  })

  it('floats the Feedback button at the bottom elsewhere, with room kept for it', async () => {
    signIn('admin')
    mockApi({ 'GET /company/products': { product_groups: ['ATLAS'] } })
    renderApp('/apps')
    await screen.findByRole('button', { name: 'Open Atlas' }, { timeout: 5000 })
    expect(within(screen.getByRole('banner')).queryByRole('button', { name: 'Feedback' })).toBeNull()
    expect(screen.getByRole('button', { name: 'Feedback' }).textContent).toBe('Feedback')
    expect(document.querySelector<HTMLElement>('.mantine-AppShell-root')!.style.getPropertyValue('--citrus-floating-clearance')).toBe(
      '80px',
    )
  })
})
