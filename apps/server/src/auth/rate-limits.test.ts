import { describe, expect, it } from 'vitest'
import { RateLimitedError, describeWait } from './rate-limits.ts'

describe('credential limits (429 message)', () => {
  it('words the wait of the 429 message', () => {
    expect(new RateLimitedError(1).message).toBe('Too many attempts. Please try again in 1 second.')
    expect(new RateLimitedError(59).message).toBe('Too many attempts. Please try again in 59 seconds.')
    expect(new RateLimitedError(60).message).toBe('Too many attempts. Please try again in 1 minute.')
    expect(new RateLimitedError(899).message).toBe('Too many attempts. Please try again in 15 minutes.')
    expect(describeWait(61)).toBe('2 minutes')
    expect(new RateLimitedError(5).toEnvelope()).toEqual({
      message: 'Too many attempts. Please try again in 5 seconds.',
      code: 'RATE_LIMITED',
      status: 429,
    })
  })
})
