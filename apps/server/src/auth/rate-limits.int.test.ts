import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { useTestDatabase } from '../../../../test/helpers.ts'
import { AppError } from '../lib/errors.ts'
import { CredentialLimiter, keyDigest, RateLimitedError, type CredentialLimiterOptions, type EndpointLimits } from './rate-limits.ts'

describe('credential limits in PostgreSQL', () => {
  const ctx = useTestDatabase()
  const limiter = (limits: EndpointLimits, options: CredentialLimiterOptions = {}) =>
    new CredentialLimiter('test', limits, ctx.db.pool, { scope: `test-${randomUUID()}`, ...options })
  const fail = async () => ({ failed: true, result: 'no' })
  const ok = async () => ({ failed: false, result: 'ok' })

  it('counts failures in a fixed window that ends', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z')
    const gate = limiter({ perAddress: { max: 2, windowMs: 1000 } }, { now: () => now })
    await gate.attempt('a', null, fail)
    await gate.attempt('a', null, fail)
    await expect(gate.attempt('a', null, ok)).rejects.toMatchObject({ retryAfterSeconds: 1 })
    expect(await gate.attempt('b', null, ok)).toBe('ok')
    now += 1000
    expect(await gate.attempt('a', null, ok)).toBe('ok')
    // a new window: one failure is under the limit again
    await gate.attempt('a', null, fail)
    expect(await gate.attempt('a', null, ok)).toBe('ok')
  })

  it('shares the counts between limiters of one scope (two processes), not with another scope', async () => {
    const limits = { perAddress: { max: 2, windowMs: 60_000 } }
    const scope = `test-${randomUUID()}`
    const one = limiter(limits, { scope })
    const two = limiter(limits, { scope })
    await one.attempt('ip', null, fail)
    await two.attempt('ip', null, fail)
    await expect(one.attempt('ip', null, ok)).rejects.toBeInstanceOf(RateLimitedError)
    await expect(two.attempt('ip', null, ok)).rejects.toBeInstanceOf(RateLimitedError)
    expect(await limiter(limits).attempt('ip', null, ok)).toBe('ok')
  })

  it('counts thrown 4xx errors and reported failures, not successes; a success clears the account', async () => {
    const gate = limiter({
      perAddress: { max: 3, windowMs: 60_000 },
      perAccount: { max: 100, windowMs: 60_000, delayMs: 0, queue: 0 },
    })
    for (let i = 0; i < 10; i++) expect(await gate.attempt('ip', 'acc', ok)).toBe('ok')
    await expect(gate.attempt('ip', 'acc', fail)).resolves.toBe('no')
    await expect(gate.attempt('ip', 'acc', () => Promise.reject(new AppError(401, 'UNAUTHORIZED', 'x')))).rejects.toThrow('x')
    // a 5xx is not the caller's failure
    await expect(gate.attempt('ip', 'acc', () => Promise.reject(new Error('db down')))).rejects.toThrow('db down')
    await expect(gate.attempt('ip', 'acc', () => Promise.reject(new AppError(400, 'BAD_REQUEST', 'y')))).rejects.toThrow('y')
    await expect(gate.attempt('ip', 'acc', ok)).rejects.toBeInstanceOf(RateLimitedError)
    expect(await gate.attempt('other-ip', 'acc', ok)).toBe('ok')
  })

  it('over the address limit, still tries (after the delay) an account with few failures; refuses the others', async () => {
    const gate = limiter({
      perAddress: { max: 2, windowMs: 60_000, overLimit: { tryAccountsBelow: 1, delayMs: 300 } },
      perAccount: { max: 100, windowMs: 60_000, delayMs: 0, queue: 5 },
    })
    await gate.attempt('ip', 'attacked', fail)
    await gate.attempt('ip', 'attacked', fail)
    let started = performance.now()
    expect(await gate.attempt('ip', 'quiet', ok)).toBe('ok')
    expect(performance.now() - started).toBeGreaterThanOrEqual(295)
    let ran = false
    const refused = gate.attempt('ip', 'attacked', async () => {
      ran = true
      return { failed: false, result: 'ok' }
    })
    await expect(refused).rejects.toBeInstanceOf(RateLimitedError)
    expect(ran).toBe(false)
    // an endpoint without overLimit refuses every attempt of the address
    const strict = limiter({ perAddress: { max: 1, windowMs: 60_000 } })
    await strict.attempt('ip', null, fail)
    await expect(strict.attempt('ip', null, ok)).rejects.toBeInstanceOf(RateLimitedError)
    started = performance.now()
    expect(await gate.attempt('other-ip', 'attacked', ok)).toBe('ok')
    expect(performance.now() - started).toBeLessThan(250)
  })

  it('runs the attempts on one account one at a time, at most `queue` in line, across limiters of one scope', async () => {
    const limits = {
      perAddress: { max: 100, windowMs: 60_000 },
      perAccount: { max: 100, windowMs: 60_000, delayMs: 1_000, queue: 5 },
    }
    const scope = `test-${randomUUID()}`
    const gates = [limiter(limits, { scope }), limiter(limits, { scope }), limiter(limits, { scope })]
    let running = 0
    let most = 0
    let tried = 0
    let refused = 0
    // The first attempt holds its turn until all twelve have either joined the line or been refused, so the line
    // cannot drain while the others are still on their way to it (a loaded machine spreads them out).
    const everyoneArrived = async () => {
      for (const until = Date.now() + 20_000; Date.now() < until;) {
        const { rows } = await ctx.db.pool.query<{ inLine: number }>(
          `SELECT COALESCE(sum(next_ticket - serving), 0)::int AS "inLine" FROM credential_lines WHERE scope = $1`,
          [scope],
        )
        if ((rows[0]?.inLine ?? 0) + refused === 12) return
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      throw new Error('the attempts did not all reach the line')
    }
    const check = async () => {
      tried++
      running++
      most = Math.max(most, running)
      if (tried === 1) await everyoneArrived()
      await new Promise((resolve) => setTimeout(resolve, 5))
      running--
      return { failed: true, result: 'no' }
    }
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        gates[i % 3]!.attempt(`ip${i}`, 'acc', check).catch((error: unknown) => {
          refused++
          throw error
        }),
      ),
    )
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5)
    for (const r of results.filter((r) => r.status === 'rejected')) expect(r.reason).toBeInstanceOf(RateLimitedError)
    expect(tried).toBe(5)
    expect(most).toBe(1)
    // the line is empty again: a later attempt is not held up
    expect(await gates[0]!.attempt('ip', 'acc', ok)).toBe('ok')
  })

  it('moves on past a turn whose process died (its lease lapsed)', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z')
    const limits = {
      perAddress: { max: 100, windowMs: 60_000 },
      perAccount: { max: 100, windowMs: 60_000, delayMs: 0, queue: 1 },
    }
    const scope = `test-${randomUUID()}`
    // a process took the turn and died: its ticket is in line, served, never handed on
    await ctx.db.pool.query(
      `INSERT INTO credential_lines (scope, endpoint, account, next_ticket, serving, turn_until) VALUES ($1, 'test', $3, 1, 0, $2)`,
      [scope, new Date(now + 30_000), keyDigest('acc')],
    )
    const gate = limiter(limits, { scope, now: () => now })
    await expect(gate.attempt('ip', 'acc', ok)).rejects.toBeInstanceOf(RateLimitedError)
    now += 31_000
    expect(await gate.attempt('ip', 'acc', ok)).toBe('ok')
  })

  it('keeps digests of addresses and accounts, never the typed values', async () => {
    const scope = `test-${randomUUID()}`
    const gate = limiter(
      { perAddress: { max: 100, windowMs: 60_000 }, perAccount: { max: 100, windowMs: 60_000, delayMs: 0, queue: 5 } },
      { scope },
    )
    await gate.attempt('203.0.113.9', 'Typed-Password-By-Mistake', fail)
    const { rows } = await ctx.db.pool.query<{ key: string }>(`SELECT key FROM credential_failures WHERE scope = $1 ORDER BY key_kind`, [
      scope,
    ])
    expect(rows.map((row) => row.key)).toEqual([keyDigest('Typed-Password-By-Mistake'), keyDigest('203.0.113.9')])
    const lines = await ctx.db.pool.query<{ account: string }>(`SELECT account FROM credential_lines WHERE scope = $1`, [scope])
    expect(lines.rows.map((row) => row.account)).toEqual([keyDigest('Typed-Password-By-Mistake')])
  })
})
