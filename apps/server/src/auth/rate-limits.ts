import { AUTH_MESSAGES, ERROR_CODES } from '@citrus/contracts'
import { AppError } from '../lib/errors.js'

/**
 * Limits of the credential endpoints (spec 4 §5, issue 9 §2, issue 32 §7; docs/decisions/0012). Fixed here rather
 * than in the environment: they are security properties, not deployment settings.
 *
 * Two counters guard each endpoint, and both count failures only (a wrong password, an unknown
 * activation key, an invalid reset token, a look-up that finds nobody), so a person who succeeds is
 * never slowed down:
 *  - per client address: too many failures from one address are refused with 429, whatever account
 *    they aim at, so one address cannot spray a password over many accounts. Sign-in softens this
 *    (`overLimit`): many people can share one address (a NAT, or every user behind a proxy when
 *    TRUST_PROXY is off), so over the limit an attempt on an account that is not itself under attack
 *    (fewer than `tryAccountsBelow` failures) is still tried, after a delay; the others are refused;
 *  - per account (the e-mail tried): attempts run one at a time, at most `queue` in line (more are
 *    refused with 429), so parallel guesses cannot outrun the count. After too many failures the
 *    account is not locked; instead every further attempt on it waits `delayMs`, so guessing slows
 *    to one try per delay while the owner's right password still gets through.
 * Password reset e-mails have no failure to count: every request counts there (each sends mail).
 */
export interface Limit {
  max: number
  windowMs: number
}
export interface EndpointLimits {
  perAddress: Limit & {
    /**
     * over the limit: an attempt on an account with fewer failures than `tryAccountsBelow` is still tried after
     * `delayMs` (absent: every attempt from the address is refused with 429)
     */
    overLimit?: { tryAccountsBelow: number; delayMs: number }
  }
  /** absent: no per-account counter */
  perAccount?: Limit & {
    /** after the limit: delay of each attempt; 0 = refuse with 429 instead */
    delayMs: number
    /** attempts on one account in line (the running one included) before more are refused; 0 = no line */
    queue: number
  }
}

const WINDOW = 15 * 60_000
export const RATE_LIMITS = {
  login: {
    perAddress: { max: 30, windowMs: WINDOW, overLimit: { tryAccountsBelow: 3, delayMs: 1_000 } },
    perAccount: { max: 10, windowMs: WINDOW, delayMs: 1_000, queue: 5 },
  },
  signup: { perAddress: { max: 20, windowMs: WINDOW }, perAccount: { max: 10, windowMs: WINDOW, delayMs: 1_000, queue: 5 } },
  passwordResetEmail: { perAddress: { max: 20, windowMs: WINDOW }, perAccount: { max: 5, windowMs: WINDOW, delayMs: 0, queue: 0 } },
  passwordReset: { perAddress: { max: 10, windowMs: WINDOW } },
  verify: { perAddress: { max: 20, windowMs: WINDOW }, perAccount: { max: 10, windowMs: WINDOW, delayMs: 0, queue: 0 } },
} as const satisfies Record<string, EndpointLimits>

/** 429 with the Retry-After the error handler sends. */
export class RateLimitedError extends AppError {
  constructor(readonly retryAfterSeconds: number) {
    super(429, ERROR_CODES.RATE_LIMITED, AUTH_MESSAGES.rateLimited(describeWait(retryAfterSeconds)))
  }
}

export function describeWait(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`
  const minutes = Math.ceil(seconds / 60)
  return `${minutes} minute${minutes === 1 ? '' : 's'}`
}

/** Failures per key in a fixed window (in memory, per process, as @fastify/rate-limit's default store). */
export class FailureCounter {
  private readonly entries = new Map<string, { count: number; resetAt: number }>()
  constructor(
    private readonly limit: Limit,
    private readonly now: () => number = Date.now,
  ) {}

  private entry(key: string) {
    const entry = this.entries.get(key)
    if (entry && entry.resetAt <= this.now()) {
      this.entries.delete(key)
      return undefined
    }
    return entry
  }

  /** Seconds until the key may try again, or 0 when it is under the limit. */
  blockedFor(key: string): number {
    const entry = this.entry(key)
    if (!entry || entry.count < this.limit.max) return 0
    return Math.max(1, Math.ceil((entry.resetAt - this.now()) / 1000))
  }

  count(key: string): number {
    return this.entry(key)?.count ?? 0
  }

  fail(key: string): void {
    const entry = this.entry(key)
    if (entry) entry.count += 1
    else {
      if (this.entries.size > 50_000) this.prune()
      this.entries.set(key, { count: 1, resetAt: this.now() + this.limit.windowMs })
    }
  }

  clear(key: string): void {
    this.entries.delete(key)
  }

  private prune() {
    const now = this.now()
    for (const [key, entry] of this.entries) if (entry.resetAt <= now) this.entries.delete(key)
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** What the credential endpoints use: runs a credential check under an endpoint's limits. */
export interface CredentialGate {
  attempt<T>(
    address: string,
    account: string | null,
    check: () => Promise<{ failed: boolean; result: T }>,
    options?: { countAll?: boolean },
  ): Promise<T>
}

/** The two counters of one endpoint; `attempt` runs a credential check under them. */
export class CredentialLimiter implements CredentialGate {
  private readonly addresses: FailureCounter
  private readonly accounts: FailureCounter | null
  /** per account with attempts in flight: the tail of its line and how many are in it (the running one included) */
  private readonly lines = new Map<string, { tail: Promise<unknown>; waiting: number }>()

  constructor(
    readonly limits: EndpointLimits,
    now: () => number = Date.now,
  ) {
    this.addresses = new FailureCounter(limits.perAddress, now)
    this.accounts = limits.perAccount ? new FailureCounter(limits.perAccount, now) : null
  }

  /**
   * Runs `check` for a client address and an account key (normalised e-mail, or null). `check`
   * answers whether the attempt failed (counted) and its result; an AppError of status 4xx thrown by
   * it is counted as a failure too. Every attempt counts when `countAll` is set.
   */
  async attempt<T>(
    address: string,
    account: string | null,
    check: () => Promise<{ failed: boolean; result: T }>,
    options: { countAll?: boolean } = {},
  ): Promise<T> {
    const perAccount = this.limits.perAccount
    if (!this.accounts || !perAccount || account === null) {
      const delayMs = this.admitAddress(address, null)
      if (delayMs > 0) await sleep(delayMs)
      return this.run(address, null, check, options)
    }
    if (perAccount.queue === 0) {
      const addressDelay = this.admitAddress(address, account)
      const accountWait = this.accounts.blockedFor(account)
      if (accountWait > 0) throw new RateLimitedError(accountWait)
      if (addressDelay > 0) await sleep(addressDelay)
      return this.run(address, account, check, options)
    }

    // One attempt at a time per account, throttled or not, so that parallel guesses cannot all be tried before
    // their failures count (issue 32 §7); a full line is refused.
    const accounts = this.accounts
    const line = this.lines.get(account) ?? { tail: Promise.resolve(), waiting: 0 }
    if (line.waiting >= perAccount.queue) {
      throw new RateLimitedError(Math.max(1, Math.ceil((perAccount.delayMs * (line.waiting + 1)) / 1000)))
    }
    // refused at once when the address may not try this account (no place in the line is taken)
    this.admitAddress(address, account)
    line.waiting += 1
    this.lines.set(account, line)
    const turn = line.tail.then(async () => {
      // decided at its turn: the attempts ahead of it may have failed
      const addressDelay = this.admitAddress(address, account)
      const throttled = accounts.blockedFor(account) > 0
      if (throttled && perAccount.delayMs === 0) throw new RateLimitedError(accounts.blockedFor(account))
      const delayMs = Math.max(addressDelay, throttled ? perAccount.delayMs : 0)
      if (delayMs > 0) await sleep(delayMs)
      return this.run(address, account, check, options)
    })
    line.tail = turn.catch(() => undefined)
    try {
      return await turn
    } finally {
      line.waiting -= 1
      if (line.waiting === 0) this.lines.delete(account)
    }
  }

  /**
   * Whether the address may try now: 0 = yes, > 0 = yes after that many ms (over the limit, on an account not
   * under attack, where the endpoint allows it); throws 429 otherwise.
   */
  private admitAddress(address: string, account: string | null): number {
    const wait = this.addresses.blockedFor(address)
    if (wait === 0) return 0
    const overLimit = this.limits.perAddress.overLimit
    if (overLimit && account !== null && this.accounts && this.accounts.count(account) < overLimit.tryAccountsBelow) {
      return overLimit.delayMs
    }
    throw new RateLimitedError(wait)
  }

  private async run<T>(
    address: string,
    account: string | null,
    check: () => Promise<{ failed: boolean; result: T }>,
    options: { countAll?: boolean },
  ): Promise<T> {
    let outcome: { failed: boolean; result: T }
    try {
      outcome = await check()
    } catch (error) {
      if (error instanceof AppError && error.status >= 400 && error.status < 500) this.fail(address, account)
      throw error
    }
    if (outcome.failed || options.countAll) this.fail(address, account)
    else if (account !== null) this.accounts?.clear(account)
    return outcome.result
  }

  private fail(address: string, account: string | null) {
    this.addresses.fail(address)
    if (account !== null) this.accounts?.fail(account)
  }
}

/** One limiter per credential endpoint; an app holds one set (tests get fresh counters per app). */
export function createCredentialLimiters(now: () => number = Date.now) {
  return {
    login: new CredentialLimiter(RATE_LIMITS.login, now),
    signup: new CredentialLimiter(RATE_LIMITS.signup, now),
    passwordResetEmail: new CredentialLimiter(RATE_LIMITS.passwordResetEmail, now),
    passwordReset: new CredentialLimiter(RATE_LIMITS.passwordReset, now),
    verify: new CredentialLimiter(RATE_LIMITS.verify, now),
  }
}
/** One gate per credential endpoint: local counters, or a cluster primary's (auth/shared-limits.ts). */
export type CredentialLimiters = Record<keyof typeof RATE_LIMITS, CredentialGate>
