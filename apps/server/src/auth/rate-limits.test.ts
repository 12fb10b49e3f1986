import { describe, expect, it } from 'vitest'
import { AppError } from '../lib/errors.ts'
import { CredentialLimiter, FailureCounter, RateLimitedError, describeWait } from './rate-limits.ts'

describe('credential limits', () => {
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

  it('counts failures in a fixed window that ends', () => {
    let now = 0
    const counter = new FailureCounter({ max: 2, windowMs: 1000 }, () => now)
    counter.fail('a')
    expect(counter.blockedFor('a')).toBe(0)
    counter.fail('a')
    expect(counter.blockedFor('a')).toBe(1)
    expect(counter.blockedFor('b')).toBe(0)
    now = 1000
    expect(counter.blockedFor('a')).toBe(0)
    expect(counter.count('a')).toBe(0)
  })

  it('counts thrown 4xx errors and reported failures, not successes; a success clears the account', async () => {
    const limiter = new CredentialLimiter({
      perAddress: { max: 3, windowMs: 60_000 },
      perAccount: { max: 100, windowMs: 60_000, delayMs: 0, queue: 0 },
    })
    const ok = async () => ({ failed: false, result: 'ok' })
    for (let i = 0; i < 10; i++) expect(await limiter.attempt('ip', 'acc', ok)).toBe('ok')
    await expect(limiter.attempt('ip', 'acc', async () => ({ failed: true, result: 'no' }))).resolves.toBe('no')
    await expect(limiter.attempt('ip', 'acc', () => Promise.reject(new AppError(401, 'UNAUTHORIZED', 'x')))).rejects.toThrow('x')
    // a 5xx is not the caller's failure
    await expect(limiter.attempt('ip', 'acc', () => Promise.reject(new Error('db down')))).rejects.toThrow('db down')
    await expect(limiter.attempt('ip', 'acc', () => Promise.reject(new AppError(400, 'BAD_REQUEST', 'y')))).rejects.toThrow('y')
    await expect(limiter.attempt('ip', 'acc', ok)).rejects.toBeInstanceOf(RateLimitedError)
    expect(await limiter.attempt('other-ip', 'acc', ok)).toBe('ok')
  })

  it('over the address limit, still tries (after the delay) an account with few failures; refuses the others', async () => {
    const limiter = new CredentialLimiter({
      perAddress: { max: 2, windowMs: 60_000, overLimit: { tryAccountsBelow: 1, delayMs: 40 } },
      perAccount: { max: 100, windowMs: 60_000, delayMs: 0, queue: 5 },
    })
    const fail = async () => ({ failed: true, result: 'no' })
    const ok = async () => ({ failed: false, result: 'ok' })
    await limiter.attempt('ip', 'attacked', fail)
    await limiter.attempt('ip', 'attacked', fail)
    let started = performance.now()
    expect(await limiter.attempt('ip', 'quiet', ok)).toBe('ok')
    expect(performance.now() - started).toBeGreaterThanOrEqual(35)
    let ran = false
    const refused = limiter.attempt('ip', 'attacked', async () => {
      ran = true
      return { failed: false, result: 'ok' }
    })
    await expect(refused).rejects.toBeInstanceOf(RateLimitedError)
    expect(ran).toBe(false)
    // an endpoint without overLimit refuses every attempt of the address
    const strict = new CredentialLimiter({ perAddress: { max: 1, windowMs: 60_000 } })
    await strict.attempt('ip', null, fail)
    await expect(strict.attempt('ip', null, ok)).rejects.toBeInstanceOf(RateLimitedError)
    started = performance.now()
    expect(await limiter.attempt('other-ip', 'attacked', ok)).toBe('ok')
    expect(performance.now() - started).toBeLessThan(35)
  })

  it('runs the attempts on one account one at a time, at most `queue` in line, before any failure', async () => {
    const limiter = new CredentialLimiter({
      perAddress: { max: 100, windowMs: 60_000 },
      perAccount: { max: 100, windowMs: 60_000, delayMs: 1_000, queue: 5 },
    })
    let running = 0
    let most = 0
    let tried = 0
    const check = async () => {
      tried++
      running++
      most = Math.max(most, running)
      await new Promise((resolve) => setTimeout(resolve, 5))
      running--
      return { failed: true, result: 'no' }
    }
    const results = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => limiter.attempt(`ip${i}`, 'acc', check)))
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5)
    for (const r of results.filter((r) => r.status === 'rejected')) expect(r.reason).toBeInstanceOf(RateLimitedError)
    expect(tried).toBe(5)
    expect(most).toBe(1)
    // the line is gone once empty: another account or a later attempt is not held up
    expect(await limiter.attempt('ip', 'acc', async () => ({ failed: false, result: 'ok' }))).toBe('ok')
  })
})
