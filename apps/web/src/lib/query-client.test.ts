import { describe, expect, it } from 'vitest'
import { ApiError, INVALID_RESPONSE } from './api-client'
import { STALE_TIME_MS, createQueryClient, shouldRetry } from './query-client'

const error = (status: number, code: string | number = status) => new ApiError({ message: 'x', code, status })

describe('query retries', () => {
  it('tries a network failure or a 5xx once more', () => {
    expect(shouldRetry(0, error(0, 0))).toBe(true)
    expect(shouldRetry(0, error(500))).toBe(true)
    expect(shouldRetry(0, error(503))).toBe(true)
    expect(shouldRetry(1, error(503))).toBe(false)
  })

  it('never retries a 4xx, a token failure, a contract break or a non-API error', () => {
    for (const status of [400, 401, 403, 404, 409, 429]) expect(shouldRetry(0, error(status))).toBe(false)
    expect(shouldRetry(0, error(0, 'TOKEN_ERROR'))).toBe(false)
    expect(shouldRetry(0, error(0, INVALID_RESPONSE))).toBe(false)
    expect(shouldRetry(0, new Error('Missing required path parameters for /x/{id}: id'))).toBe(false)
  })
})

describe('query client', () => {
  it('keeps answers fresh for 30 s; the test client never retries', () => {
    expect(STALE_TIME_MS).toBe(30_000)
    const app = createQueryClient().getDefaultOptions()
    expect(app.queries?.staleTime).toBe(30_000)
    expect(app.queries?.retry).toBe(shouldRetry)
    expect(app.mutations?.retry).toBe(false)
    expect(createQueryClient({ test: true }).getDefaultOptions().queries?.retry).toBe(false)
  })
})
