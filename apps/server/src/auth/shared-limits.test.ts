import { EventEmitter } from 'node:events'
import { describe, expect, it } from 'vitest'
import { AppError } from '../lib/errors.ts'
import { CredentialLimiter, RateLimitedError, type CredentialLimiters } from './rate-limits.ts'
import { remoteCredentialLimiters, serveCredentialLimits, type LimitChannel, type LimitMessage } from './shared-limits.ts'

/**
 * Two ends of an IPC channel as node:cluster gives them (worker.send / process.on('message')): messages arrive
 * later and as copies (IPC serialises them), never as the sender's objects.
 */
function channelPair(): { primary: LimitChannel; worker: LimitChannel; sent: LimitMessage[] } {
  const toPrimary = new EventEmitter()
  const toWorker = new EventEmitter()
  const sent: LimitMessage[] = []
  const deliver = (target: EventEmitter) => (message: LimitMessage) => {
    sent.push(message)
    const copy: unknown = JSON.parse(JSON.stringify(message))
    setImmediate(() => target.emit('message', copy))
  }
  return {
    primary: { send: deliver(toWorker), on: (event, listener) => toPrimary.on(event, listener) },
    worker: { send: deliver(toPrimary), on: (event, listener) => toWorker.on(event, listener) },
    sent,
  }
}

/** The primary's limiters: small limits so that a test reaches them. */
function primaryLimiters(delayMs = 0): CredentialLimiters {
  const limiter = () =>
    new CredentialLimiter({
      perAddress: { max: 4, windowMs: 60_000 },
      perAccount: { max: 3, windowMs: 60_000, delayMs, queue: 2 },
    })
  return { login: limiter(), signup: limiter(), passwordResetEmail: limiter(), passwordReset: limiter(), verify: limiter() }
}

/** Workers whose limits are the primary's `limiters`, each over its own channel. */
function workersOf(limiters: CredentialLimiters, count: number): CredentialLimiters[] {
  return Array.from({ length: count }, () => {
    const pair = channelPair()
    serveCredentialLimits(pair.primary, limiters)
    return remoteCredentialLimiters(pair.worker)
  })
}

const failed = async () => ({ failed: true, result: 'wrong password' })
const succeeded = async () => ({ failed: false, result: { token: 'signed' } })

describe('credential limits shared by the processes of a cluster', () => {
  it('adds up the failures of every worker: the limit is one process’s, whatever the number of workers', async () => {
    const limiters = primaryLimiters()
    const [workerA, workerB] = workersOf(limiters, 2) as [CredentialLimiters, CredentialLimiters]
    // four failures from one address, two through each worker, on different accounts
    expect(await workerA.login.attempt('10.0.0.1', 'one@x.test', failed)).toBe('wrong password')
    expect(await workerB.login.attempt('10.0.0.1', 'two@x.test', failed)).toBe('wrong password')
    expect(await workerA.login.attempt('10.0.0.1', 'three@x.test', failed)).toBe('wrong password')
    expect(await workerB.login.attempt('10.0.0.1', 'four@x.test', failed)).toBe('wrong password')
    // the fifth is refused on either worker, without running the check
    let ran = false
    const attempt = workerB.login.attempt('10.0.0.1', 'five@x.test', async () => {
      ran = true
      return { failed: false, result: 'ok' }
    })
    await expect(attempt).rejects.toBeInstanceOf(RateLimitedError)
    await expect(attempt).rejects.toThrow(/^Too many attempts\. Please try again in (\d+ seconds?|\d+ minutes?)\.$/)
    await expect(workerA.login.attempt('10.0.0.1', 'one@x.test', succeeded)).rejects.toBeInstanceOf(RateLimitedError)
    expect(ran).toBe(false)
    // another address and another endpoint keep their own counters
    expect(await workerA.login.attempt('10.0.0.2', 'one@x.test', succeeded)).toEqual({ token: 'signed' })
    expect(await workerA.signup.attempt('10.0.0.1', 'one@x.test', succeeded)).toEqual({ token: 'signed' })
  })

  it('runs the check in the worker: its result stays there, only whether it failed crosses the channel', async () => {
    const limiters = primaryLimiters()
    const pair = channelPair()
    serveCredentialLimits(pair.primary, limiters)
    const worker = remoteCredentialLimiters(pair.worker)
    expect(await worker.verify.attempt('10.0.0.9', 'me@x.test', succeeded)).toEqual({ token: 'signed' })
    expect(JSON.stringify(pair.sent)).not.toContain('signed')
    expect(pair.sent.map((m) => m.citrusLimit)).toEqual(['attempt', 'check', 'checked', 'done'])
  })

  it('rethrows a 4xx the check threw, counted as a failure; a success clears the account', async () => {
    const limiters = primaryLimiters()
    const [worker] = workersOf(limiters, 1) as [CredentialLimiters]
    const unauthorized = () => Promise.reject(new AppError(401, 'UNAUTHORIZED', 'Invalid email or password'))
    await expect(worker.login.attempt('10.0.0.3', 'acc@x.test', unauthorized)).rejects.toThrow('Invalid email or password')
    await expect(worker.login.attempt('10.0.0.3', 'acc@x.test', unauthorized)).rejects.toBeInstanceOf(AppError)
    // a success clears the account's failures: three more may fail before it is throttled
    expect(await worker.login.attempt('10.0.0.4', 'acc@x.test', succeeded)).toEqual({ token: 'signed' })
    for (let i = 0; i < 3; i++) await worker.login.attempt('10.0.0.5', 'acc@x.test', failed)
    await expect(worker.login.attempt('10.0.0.6', 'acc@x.test', failed)).rejects.toBeInstanceOf(RateLimitedError)
    // a 5xx is not the client's failure: not counted, rethrown as it is
    await expect(worker.login.attempt('10.0.0.7', 'other@x.test', () => Promise.reject(new Error('database down')))).rejects.toThrow(
      'database down',
    )
    for (let i = 0; i < 3; i++) await worker.login.attempt('10.0.0.7', `x${i}@x.test`, failed)
    await expect(worker.login.attempt('10.0.0.7', 'y@x.test', failed)).resolves.toBe('wrong password')
    await expect(worker.login.attempt('10.0.0.7', 'z@x.test', failed)).rejects.toBeInstanceOf(RateLimitedError)
  })

  it('throttles an account one attempt at a time across workers, after the delay', async () => {
    const limiters = primaryLimiters(150)
    const [workerA, workerB] = workersOf(limiters, 2) as [CredentialLimiters, CredentialLimiters]
    for (let i = 0; i < 3; i++) await (i % 2 ? workerA : workerB).login.attempt(`10.1.0.${i}`, 'slow@x.test', failed)
    let running = 0
    let overlapped = false
    const check = async () => {
      running++
      if (running > 1) overlapped = true
      await new Promise((resolve) => setTimeout(resolve, 20))
      running--
      return { failed: false, result: 'in' }
    }
    const started = performance.now()
    const results = await Promise.allSettled([
      workerA.login.attempt('10.1.1.1', 'slow@x.test', check),
      workerB.login.attempt('10.1.1.2', 'slow@x.test', check),
      workerA.login.attempt('10.1.1.3', 'slow@x.test', check),
    ])
    // two wait in line (queue 2), the third is refused at once; the line runs one at a time, each after the delay
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected'])
    expect((results[2] as PromiseRejectedResult).reason).toBeInstanceOf(RateLimitedError)
    expect(overlapped).toBe(false)
    expect(performance.now() - started).toBeGreaterThanOrEqual(140)
  })

  it('lets the line move on when a worker exits during its check', async () => {
    const limiters = primaryLimiters(10)
    const dead = channelPair()
    const alive = channelPair()
    const released = serveCredentialLimits(dead.primary, limiters)
    serveCredentialLimits(alive.primary, limiters)
    const deadWorker = remoteCredentialLimiters(dead.worker)
    const aliveWorker = remoteCredentialLimiters(alive.worker)
    for (let i = 0; i < 3; i++) await aliveWorker.login.attempt(`10.2.0.${i}`, 'line@x.test', failed)
    // the dead worker's check never answers
    deadWorker.login.attempt('10.2.1.1', 'line@x.test', () => new Promise(() => undefined)).catch(() => undefined)
    const next = aliveWorker.login.attempt('10.2.1.2', 'line@x.test', succeeded)
    await new Promise((resolve) => setTimeout(resolve, 50))
    released()
    expect(await next).toEqual({ token: 'signed' })
  })
})
