import { TOKEN_STORAGE_KEY } from '@citrus/contracts'
import { fireEvent, screen, within } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { mockApi, reply } from '../../../test/mock-api'
import { renderApp } from '../../../test/render'
import { loginToken } from '../../../test/tokens'
import { LAUNCHER_APPS, productUnavailableMessage, visibleApps } from '../utils/apps'

describe('launcher rules', () => {
  it('shows only cards of held products the role may open', () => {
    expect(visibleApps(LAUNCHER_APPS, 'admin', ['ATLAS']).map((app) => app.title)).toEqual(['Atlas', 'Price Check'])
    expect(visibleApps(LAUNCHER_APPS, 'citrus', ['ATLAS', 'CARE_SELECT', 'NOVA']).map((app) => app.title)).toEqual([
      'Atlas',
      'Care Connect',
      'Nova',
      'Price Check',
    ])
    expect(visibleApps(LAUNCHER_APPS, 'member', ['ATLAS']).map((app) => app.title)).toEqual(['Price Check'])
  })

  it('marks Nova and Atlas New and Price Check Beta', () => {
    expect(LAUNCHER_APPS.filter((app) => app.status === 'New').map((app) => app.title)).toEqual(['Atlas', 'Nova'])
    expect(LAUNCHER_APPS.filter((app) => app.status === 'Beta').map((app) => app.title)).toEqual(['Price Check'])
  })

  it('offers Nova to citrus only, as its route does', () => {
    for (const role of ['admin', 'user', 'member'] as const) {
      expect(visibleApps(LAUNCHER_APPS, role, ['NOVA']).map((app) => app.title)).not.toContain('Nova')
    }
    expect(visibleApps(LAUNCHER_APPS, 'citrus', ['NOVA']).map((app) => app.title)).toContain('Nova')
    expect(LAUNCHER_APPS.find((app) => app.id === 'nova')).toMatchObject({ productGroup: 'NOVA', roles: ['citrus'] })
  })

  it('words Product Unavailable as documented', () => {
    expect(productUnavailableMessage('help@example.com')).toBe(
      "It looks like your organization doesn't have access to this product yet. Contact us at help@example.com for access.",
    )
  })
})

describe('launcher page', () => {
  it('shows the subtitle and one card per held product, and records product_app_clicked', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'admin' }))
    const api = mockApi({ 'GET /company/products': { product_groups: ['ATLAS', 'CARE_SELECT'] } })
    const { router } = renderApp('/apps')
    expect(await screen.findByText("Explore different apps for your organization's needs")).toBeTruthy()
    await screen.findByRole('button', { name: 'Open Atlas' })
    expect(screen.getByRole('button', { name: 'Open Care Connect' })).toBeTruthy()
    expect(screen.queryByRole('button', { name: 'Open Nova' })).toBeNull()
    expect(screen.getAllByText('New')).toHaveLength(1)
    expect(within(screen.getByRole('button', { name: 'Open Price Check' })).getByText('Beta')).toBeTruthy()
    fireEvent.click(screen.getByRole('button', { name: 'Open Atlas' }))
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/atlas-search'))
    const events = api.callsTo('POST /analytics/events').map((call) => call.body)
    expect(events).toContainEqual({ events: [{ name: 'product_app_clicked', properties: { app: 'atlas', product_group: 'ATLAS' } }] })
  })

  it('treats a failed products call as no products', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'user' }))
    mockApi({ 'GET /company/products': reply(500, { message: 'boom', code: 'INTERNAL_ERROR', status: 500 }) })
    renderApp('/apps')
    await screen.findByRole('button', { name: 'Open Price Check' })
    expect(screen.queryByRole('button', { name: 'Open Atlas' })).toBeNull()
  })
})
