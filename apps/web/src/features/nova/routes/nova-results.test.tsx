import { TOKEN_STORAGE_KEY, type NovaInsight } from '@citrus/contracts'
import { fireEvent, screen, waitFor } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { mockApi, type MockCall } from '../../../test/mock-api'
import { renderWithRouter } from '../../../test/render'
import { loginToken } from '../../../test/tokens'
import { novaMetadata } from '../test/nova-fixtures'
import { NovaResultsRoute } from './nova-results'

const metadata = novaMetadata({
  regionLevels: [{ code: 'COUNTRY', name: 'United States' }],
  granularityOptions: [{ code: 'STATE', name: 'State' }],
})

function insight(entityType: 'HEALTH_SYSTEM' | 'FACILITY', id: string, name: string): NovaInsight {
  return {
    entity_type: entityType,
    account_type: entityType,
    citrus_id: id,
    display_name: name,
    parent_citrus_id: null,
    territoryLevel: null,
    entity: { id, citrus_id: id, name },
    badges: [],
    additional_metadata: [],
    summary_md: '',
    metrics: {},
    payer_mix: [],
  }
}

const page = (results: NovaInsight[]) => ({
  page_results: { results, page: 0, page_size: 6, total_results: results.length, total_pages: 1 },
})

/** Systems for the scope; a system's hospitals when the request filters on health_system_id. */
function accounts(call: MockCall) {
  const body = call.body as { filter_inputs?: { code: string; filter_value: string }[]; account_query_type?: string }
  const system = body.filter_inputs?.find((f) => f.code === 'health_system_id')?.filter_value
  if (system && body.account_query_type === 'FACILITY') return page([insight('FACILITY', '1234567893', 'Mercy General Hospital')])
  if (system) return page([insight('HEALTH_SYSTEM', system, 'Mercy Health')])
  return page([insight('HEALTH_SYSTEM', 'HS00001', 'Mercy Health'), insight('HEALTH_SYSTEM', 'HS00002', 'Desert Care')])
}

function signInWithAccounts() {
  localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'citrus' }))
  mockApi({
    'GET /company/products': { product_groups: ['NOVA'] },
    'GET /nova/v1/metadata/': metadata,
    'GET /nova/v1/territories/names': { territory_names: [] },
    'POST /nova/v1/insights/accounts': accounts,
  })
}

const BASE = '/nova-results?region_level=COUNTRY&granularity=STATE&map_type=serb_crofab_opportunity_score&nova_use_case=serb_crofab'

describe('/nova-results Strategy Hub tab', () => {
  it("lists the health systems, then a picked system's hospitals, instead of loading forever (issue 33)", async () => {
    signInWithAccounts()
    const { router } = renderWithRouter(<NovaResultsRoute />, { path: `${BASE}&tab=strategy` })
    const system = await waitFor(
      () => {
        const found = document.querySelector('[data-insight="HS00001"]')
        expect(found).not.toBeNull()
        return found as HTMLElement
      },
      { timeout: 10_000 },
    )
    fireEvent.click(system)
    await waitFor(() => expect(new URLSearchParams(router.state.location.search).get('system_id')).toBe('HS00001'))
    expect(new URLSearchParams(router.state.location.search).get('tab')).toBe('strategy')
    await waitFor(() => expect(document.querySelector('[data-insight="1234567893"]')).not.toBeNull(), { timeout: 10_000 })
    expect(screen.queryByText('Loading...')).toBeNull()
    expect(screen.getByText('Mercy General Hospital')).toBeTruthy()
  })

  it('shows the hospital list of a system picked before opening the tab', async () => {
    signInWithAccounts()
    renderWithRouter(<NovaResultsRoute />, { path: `${BASE}&tab=strategy&system_id=HS00001&account_query_type=FACILITY` })
    await waitFor(() => expect(document.querySelector('[data-insight="1234567893"]')).not.toBeNull(), { timeout: 10_000 })
    expect(screen.queryByText('Loading...')).toBeNull()
  })
})
