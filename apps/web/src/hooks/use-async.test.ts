import { act, renderHook, waitFor } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { useAsync } from './use-async'

describe('useAsync', () => {
  it('loads on mount, again when the deps change, and on reload; stale results are dropped', async () => {
    const resolvers: ((value: string) => void)[] = []
    const load = vi.fn((id: number) => new Promise<string>((resolve) => resolvers.push((value) => resolve(`${id}:${value}`))))
    const { result, rerender } = renderHook(({ id }) => useAsync(() => load(id), [id]), { initialProps: { id: 1 } })
    expect(result.current.status).toBe('loading')
    await act(async () => resolvers[0]?.('a'))
    expect(result.current).toMatchObject({ status: 'success', data: '1:a' })

    rerender({ id: 2 })
    expect(result.current.status).toBe('loading')
    await waitFor(() => expect(load).toHaveBeenCalledTimes(2))
    await act(async () => resolvers[1]?.('b'))
    expect(result.current).toMatchObject({ status: 'success', data: '2:b' })

    act(() => result.current.reload())
    expect(result.current.status).toBe('loading')
    await waitFor(() => expect(load).toHaveBeenCalledTimes(3))
    rerender({ id: 3 })
    await waitFor(() => expect(load).toHaveBeenCalledTimes(4))
    // the reload's late answer does not replace the newer request's state
    await act(async () => resolvers[2]?.('late'))
    expect(result.current.status).toBe('loading')
    await act(async () => resolvers[3]?.('c'))
    expect(result.current).toMatchObject({ status: 'success', data: '3:c' })
  })

  it('reports errors', async () => {
    const { result } = renderHook(() => useAsync(() => Promise.reject(new Error('nope')), []))
    await waitFor(() => expect(result.current.status).toBe('error'))
    expect((result.current.error as Error).message).toBe('nope')
  })
})
