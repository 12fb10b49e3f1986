import { QueryClient } from '@tanstack/react-query'
import { isApiError, isInvalidResponse } from './api-client'

/** How long fetched server state counts as fresh: screens opened again within it do not refetch. */
export const STALE_TIME_MS = 30_000

/**
 * A failed query is tried again once when the failure may pass (network, 5xx); never for a 4xx answer,
 * a token the client could not read or a body that broke the contract: those fail the same way again.
 */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (failureCount >= 1) return false
  if (!isApiError(error)) return false
  if (isInvalidResponse(error) || error.code === 'TOKEN_ERROR') return false
  return error.status === 0 || error.status >= 500
}

/**
 * The app's server-state cache. `test` gives each test its own cache without retries or garbage
 * collection timers, so a failure shows at once and nothing is shared between tests.
 */
export function createQueryClient(options: { test?: boolean } = {}): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: STALE_TIME_MS,
        retry: options.test ? false : shouldRetry,
        gcTime: options.test ? Number.POSITIVE_INFINITY : 5 * 60_000,
      },
      mutations: { retry: false },
    },
  })
}
