import { AppError } from '../lib/errors.js'
import { RateLimitedError, type CredentialGate, type CredentialLimiters } from './rate-limits.js'

/**
 * The credential limits of a server that runs as several processes (docs/decisions/0068): the counters and the
 * per-account lines live in the primary process; each worker process asks it over the cluster's IPC channel. The
 * primary runs the real CredentialLimiter, whose check is a message back to the worker that runs the credential
 * check itself (the password comparison, the database look-up) and answers only whether it failed. So the limits
 * are those of one process, whatever the number of workers, and no credential crosses the channel.
 */

/** The IPC end of a cluster worker or of the primary's handle on one (node:cluster Worker, or process). */
export interface LimitChannel {
  send(message: LimitMessage): unknown
  on(event: 'message', listener: (message: unknown) => void): unknown
}

type Endpoint = keyof CredentialLimiters
export type LimitMessage =
  | { citrusLimit: 'attempt'; id: number; endpoint: Endpoint; address: string; account: string | null; countAll: boolean }
  | { citrusLimit: 'check'; id: number }
  /** `thrown`: the check threw, a 4xx (counted as a failure) or another error (not counted); rethrown in the worker */
  | { citrusLimit: 'checked'; id: number; failed: boolean; thrown: 'client' | 'server' | null }
  | { citrusLimit: 'done'; id: number; retryAfterSeconds: number | null }

const isLimitMessage = (message: unknown): message is LimitMessage =>
  typeof message === 'object' && message !== null && 'citrusLimit' in message && 'id' in message

/** An error the primary's limiter counts as a failed attempt: the worker's check threw a 4xx. */
class ClientErrorInWorker extends AppError {
  constructor() {
    super(400, 'CLIENT_ERROR', 'client error in a worker')
  }
}

/**
 * Primary side: answers one worker's attempts with `limiters` (shared by every worker). Returns a function to
 * call when the worker exits: its pending checks count as failed, so the lines it was in move on.
 */
export function serveCredentialLimits(channel: LimitChannel, limiters: CredentialLimiters): () => void {
  const checks = new Map<number, (outcome: { failed: boolean; thrown: 'client' | 'server' | null }) => void>()
  channel.on('message', (message) => {
    if (!isLimitMessage(message)) return
    if (message.citrusLimit === 'checked') {
      checks.get(message.id)?.(message)
      checks.delete(message.id)
      return
    }
    if (message.citrusLimit !== 'attempt') return
    const { id, endpoint, address, account, countAll } = message
    const limiter = limiters[endpoint]
    if (!limiter) return
    const check = () =>
      new Promise<{ failed: boolean; thrown: 'client' | 'server' | null }>((resolve) => {
        checks.set(id, resolve)
        channel.send({ citrusLimit: 'check', id })
      }).then((outcome) => {
        if (outcome.thrown === 'client') throw new ClientErrorInWorker()
        if (outcome.thrown === 'server') throw new Error('the credential check failed in a worker')
        return { failed: outcome.failed, result: null }
      })
    limiter.attempt(address, account, check, { countAll }).then(
      () => channel.send({ citrusLimit: 'done', id, retryAfterSeconds: null }),
      (error: unknown) =>
        channel.send({ citrusLimit: 'done', id, retryAfterSeconds: error instanceof RateLimitedError ? error.retryAfterSeconds : null }),
    )
  })
  return () => {
    for (const resolve of checks.values()) resolve({ failed: true, thrown: null })
    checks.clear()
  }
}

/** Worker side: limiters with the CredentialLimiter interface whose counters are the primary's. */
export function remoteCredentialLimiters(channel: LimitChannel): CredentialLimiters {
  interface PendingAttempt {
    check: () => Promise<{ failed: boolean; result: unknown }>
    outcome?: { ok: true; result: unknown } | { ok: false; error: unknown }
    settle: (done: { retryAfterSeconds: number | null }) => void
  }
  let next = 0
  const attempts = new Map<number, PendingAttempt>()
  channel.on('message', (message) => {
    if (!isLimitMessage(message)) return
    const attempt = attempts.get(message.id)
    if (!attempt) return
    if (message.citrusLimit === 'check') {
      attempt.check().then(
        (outcome) => {
          attempt.outcome = { ok: true, result: outcome.result }
          channel.send({ citrusLimit: 'checked', id: message.id, failed: outcome.failed, thrown: null })
        },
        (error: unknown) => {
          attempt.outcome = { ok: false, error }
          const client = error instanceof AppError && error.status >= 400 && error.status < 500
          channel.send({ citrusLimit: 'checked', id: message.id, failed: client, thrown: client ? 'client' : 'server' })
        },
      )
    } else if (message.citrusLimit === 'done') {
      attempts.delete(message.id)
      attempt.settle(message)
    }
  })
  const gate = (endpoint: Endpoint): CredentialGate => ({
    attempt<T>(
      address: string,
      account: string | null,
      check: () => Promise<{ failed: boolean; result: T }>,
      options: { countAll?: boolean } = {},
    ): Promise<T> {
      const id = next++
      return new Promise<T>((resolve, reject) => {
        const entry: PendingAttempt = {
          check,
          settle: ({ retryAfterSeconds }) => {
            if (retryAfterSeconds !== null) reject(new RateLimitedError(retryAfterSeconds))
            else if (!entry.outcome) reject(new Error('the credential limiter answered without a check'))
            else if (entry.outcome.ok) resolve(entry.outcome.result as T)
            else reject(entry.outcome.error)
          },
        }
        attempts.set(id, entry)
        channel.send({ citrusLimit: 'attempt', id, endpoint, address, account, countAll: options.countAll ?? false })
      })
    },
  })
  return {
    login: gate('login'),
    signup: gate('signup'),
    passwordResetEmail: gate('passwordResetEmail'),
    passwordReset: gate('passwordReset'),
    verify: gate('verify'),
  }
}
