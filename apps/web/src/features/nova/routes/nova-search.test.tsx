import { NOVA_MAP_TYPES, TOKEN_STORAGE_KEY, type NovaMetadata } from '@citrus/contracts'
import { fireEvent, screen, waitFor } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { mockApi } from '../../../test/mock-api'
import { renderApp } from '../../../test/render'
import { loginToken } from '../../../test/tokens'

const metadata: NovaMetadata = {
  atlas_metadata: {
    map_metadata: {
      map_options: NOVA_MAP_TYPES.map((t) => ({ code: t.code, name: t.name, description: t.name, value_format: 'INTEGER' as const })),
      default_map_option: 'serb_crofab_opportunity_score',
      region_levels: [
        { code: 'COUNTRY', name: 'United States' },
        { code: 'SALES_TERRITORY', name: 'Sales Territory' },
        { code: 'STATE', name: 'State' },
      ],
      granularity_options: [
        { code: 'SALES_TERRITORY', name: 'Sales Territory' },
        { code: 'STATE', name: 'State' },
      ],
      point_options: [],
      data_years: { first_year: 2021, latest_year: 2025 },
    },
  },
  insights_metadata: {
    sort_options: [],
    default_sort: 'snake_envenominations',
    default_sort_direction: 'DESC',
    account_query_types: [],
    metric_groups: [],
    quick_filters: [],
  },
}

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
