import { TOKEN_STORAGE_KEY, endpoints } from '@citrus/contracts'
import { QueryClientProvider } from '@tanstack/react-query'
import { act, renderHook, waitFor } from '@testing-library/react'
import type { ReactNode } from 'react'
import { describe, expect, it } from 'vitest'
import { isInvalidResponse } from '../lib/api-client'
import { createQueryClient } from '../lib/query-client'
import { malformed, mockApi, reply } from '../test/mock-api'
import { loginToken } from '../test/tokens'
import { endpointKey, useApiMutation, useApiQuery } from './use-api'

const token = (id: string) => ({
  id,
  name: `Key ${id}`,
  masked_token: 'AbCd',
  created_at: '2024-03-05T12:00:00.000Z',
  last_used_at: null,
  user_id: 42,
  user_email: 'ada@example.com',
  company_id: 7,
})

function wrapper() {
  const queryClient = createQueryClient({ test: true })
  const Wrapper = ({ children }: { children: ReactNode }) => <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
  return { queryClient, wrapper: Wrapper }
}

describe('endpointKey', () => {
  it('is [method, path, input], and [method, path] for every call of the endpoint', () => {
    expect(endpointKey(endpoints.superAdmin.companyUsers, { params: { id: 3 } })).toEqual([
      'GET',
      '/super-admin/company/{id}/users',
      { params: { id: 3 } },
    ])
    expect(endpointKey(endpoints.superAdmin.companyUsers)).toEqual(['GET', '/super-admin/company/{id}/users'])
  })
})

describe('useApiQuery', () => {
  it('calls the endpoint with its input and returns the parsed response', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'citrus' }))
    const api = mockApi({ 'GET /super-admin/company/3/users': { users: [] } })
    const { wrapper: Wrapper } = wrapper()
    const { result } = renderHook(() => useApiQuery(endpoints.superAdmin.companyUsers, { params: { id: 3 } }), { wrapper: Wrapper })
    await waitFor(() => expect(result.current.isSuccess).toBe(true))
    expect(result.current.data).toEqual({ users: [] })
    expect(api.callsTo('GET /super-admin/company/3/users')[0]?.headers.get('authorization')).toMatch(/^Bearer /)
  })

  it('makes one request for components that ask for the same data at once', async () => {
    const api = mockApi({ 'GET /admin/api-token': [token('a')] })
    const { wrapper: Wrapper } = wrapper()
    const { result } = renderHook(
      () => [
        useApiQuery(endpoints.admin.listApiTokens, { query: { company_id: 7 } }),
        useApiQuery(endpoints.admin.listApiTokens, { query: { company_id: 7 } }),
      ],
      { wrapper: Wrapper },
    )
    await waitFor(() => expect(result.current.every((query) => query.isSuccess)).toBe(true))
    expect(api.callsTo('GET /admin/api-token')).toHaveLength(1)
  })

  it('reports an answer that breaks the contract as an INVALID_RESPONSE error, without retrying', async () => {
    const api = mockApi({ 'GET /company/products': malformed({ groups: ['ATLAS'] }) })
    const { wrapper: Wrapper } = wrapper()
    const { result } = renderHook(() => useApiQuery(endpoints.company.products, {}), { wrapper: Wrapper })
    await waitFor(() => expect(result.current.isError).toBe(true))
    expect(isInvalidResponse(result.current.error)).toBe(true)
    expect(api.callsTo('GET /company/products')).toHaveLength(1)
  })
})

describe('useApiMutation', () => {
  it('sends the input and refetches the endpoints it invalidates before it settles', async () => {
    let listed = [token('a'), token('b')]
    const api = mockApi({
      'GET /admin/api-token': () => listed,
      'DELETE /admin/api-token': () => {
        listed = [token('a')]
        return { message: 'Token Deleted' }
      },
    })
    const { wrapper: Wrapper } = wrapper()
    const { result } = renderHook(
      () => ({
        list: useApiQuery(endpoints.admin.listApiTokens, { query: { company_id: 7 } }),
        remove: useApiMutation(endpoints.admin.deleteApiToken, { invalidates: [endpoints.admin.listApiTokens] }),
      }),
      { wrapper: Wrapper },
    )
    await waitFor(() => expect(result.current.list.data).toHaveLength(2))
    let answer: unknown
    await act(async () => {
      answer = await result.current.remove.mutateAsync({ body: { id: 'b' } })
    })
    expect(answer).toEqual({ message: 'Token Deleted' })
    expect(api.callsTo('DELETE /admin/api-token')[0]?.body).toEqual({ id: 'b' })
    // refetched before mutateAsync resolved
    expect(api.callsTo('GET /admin/api-token')).toHaveLength(2)
    expect(result.current.list.data?.map((row) => row.id)).toEqual(['a'])
  })

  it('leaves cached answers alone when the change fails', async () => {
    const api = mockApi({
      'GET /admin/api-token': [token('a')],
      'DELETE /admin/api-token': reply(404, { message: 'API token not found', code: 'NOT_FOUND', status: 404 }),
    })
    const { wrapper: Wrapper } = wrapper()
    const { result } = renderHook(
      () => ({
        list: useApiQuery(endpoints.admin.listApiTokens, { query: { company_id: 7 } }),
        remove: useApiMutation(endpoints.admin.deleteApiToken, { invalidates: [endpoints.admin.listApiTokens] }),
      }),
      { wrapper: Wrapper },
    )
    await waitFor(() => expect(result.current.list.isSuccess).toBe(true))
    await act(async () => {
      await expect(result.current.remove.mutateAsync({ body: { id: 'x' } })).rejects.toThrow('API token not found')
    })
    expect(api.callsTo('GET /admin/api-token')).toHaveLength(1)
  })
})
