import { TOKEN_STORAGE_KEY, endpoints } from '@citrus/contracts'
import { act, render, screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { endpointKey } from '../hooks/use-api'
import { useProducts } from '../lib/products'
import { createQueryClient } from '../lib/query-client'
import { login, logout } from '../lib/session'
import { mockApi, type MockCall } from '../test/mock-api'
import { loginToken } from '../test/tokens'
import { AppProvider } from './provider'

function Products() {
  const products = useProducts()
  return <p data-testid="products">{products.status === 'loading' ? 'loading' : products.groups.join(',') || 'none'}</p>
}

describe('server state is scoped to the identity', () => {
  it("drops one account's cached answers when another signs in, and all of them on sign out", async () => {
    const first = loginToken({ sub: '1', company_id: 1 })
    const second = loginToken({ sub: '2', company_id: 2 })
    const groupsFor: Record<string, string[]> = { [first]: ['ATLAS', 'NOVA'], [second]: ['CARE_SELECT'] }
    const api = mockApi({
      'GET /company/products': ({ headers }: MockCall) => ({
        product_groups: groupsFor[headers.get('authorization')?.replace('Bearer ', '') ?? ''] ?? [],
      }),
    })
    localStorage.setItem(TOKEN_STORAGE_KEY, first)
    const queryClient = createQueryClient({ test: true })
    render(
      <AppProvider env="test" queryClient={queryClient}>
        <Products />
      </AppProvider>,
    )
    expect((await screen.findByText('ATLAS,NOVA')).dataset.testid).toBe('products')

    act(() => void login(second))
    expect(await screen.findByText('CARE_SELECT')).toBeTruthy()
    expect(screen.queryByText('ATLAS,NOVA')).toBeNull()
    expect(api.callsTo('GET /company/products')).toHaveLength(2)

    act(() => logout())
    expect(await screen.findByText('none')).toBeTruthy()
    expect(queryClient.getQueryData(endpointKey(endpoints.company.products, {}))).toBeUndefined()
    // nothing is fetched for nobody
    expect(api.callsTo('GET /company/products')).toHaveLength(2)
  })
})
