import { TOKEN_STORAGE_KEY } from '@citrus/contracts'
import { fireEvent, screen, waitFor } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { mockApi } from '../../../test/mock-api'
import { renderApp } from '../../../test/render'
import { loginToken } from '../../../test/tokens'
import { novaMetadata } from '../test/nova-fixtures'

const metadata = novaMetadata({
  regionLevels: [
    { code: 'COUNTRY', name: 'United States' },
    { code: 'SALES_TERRITORY', name: 'Sales Territory' },
    { code: 'STATE', name: 'State' },
  ],
  granularityOptions: [
    { code: 'SALES_TERRITORY', name: 'Sales Territory' },
    { code: 'STATE', name: 'State' },
  ],
})

describe('/nova-search', () => {
  it('starts on the CroFab opportunity map, hides STATE and searches with the documented parameters', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'citrus', email: 'ada@example.com' }))
    const api = mockApi({ 'GET /company/products': { product_groups: ['NOVA'] }, 'GET /nova/v1/metadata/': metadata })
    const { router } = renderApp('/nova-search')
    const search = await screen.findByRole('button', { name: 'Search' }, { timeout: 10_000 })
    await waitFor(() => expect((search as HTMLButtonElement).disabled).toBe(false))
    expect((screen.getByRole('combobox', { name: 'Map type' }) as HTMLInputElement).value).toBe('SERB CroFab Opportunity Score')
    fireEvent.click(screen.getByRole('combobox', { name: 'Region level' }))
    expect(await screen.findByRole('option', { name: 'Sales Territory' })).toBeTruthy()
    expect(screen.queryByRole('option', { name: 'State' })).toBeNull()
    fireEvent.click(search)
    await waitFor(() => expect(router.state.location.pathname).toBe('/nova-results'))
    expect(Object.fromEntries(new URLSearchParams(router.state.location.search))).toEqual({
      region_level: 'COUNTRY',
      granularity: 'STATE',
      map_type: 'serb_crofab_opportunity_score',
      nova_use_case: 'serb_crofab',
      point_type: 'ALL',
      tab: 'atlas',
      account_query_type: 'FACILITY',
    })
    expect(api.calls.some((c) => c.path === '/nova/v1/metadata/' && c.query.get('nova_use_case') === 'serb_crofab')).toBe(true)
  })
})
