import { createHash } from 'node:crypto'
import { AUTH_MESSAGES, ERROR_CODES } from '@citrus/contracts'
import type pg from 'pg'
import type { Row } from '../db/kysely.js'
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
 * The counters and the lines live in PostgreSQL (credential_failures, credential_lines), so every server process
 * on one database enforces the same limits (docs/decisions/0076).
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** What the limit tables keep of a client address or an account key: its SHA-256, hex. */
export const keyDigest = (key: string): string => createHash('sha256').update(key).digest('hex')

/** What the credential endpoints use: runs a credential check under an endpoint's limits. */
export interface CredentialGate {
  attempt<T>(
    address: string,
    account: string | null,
    check: () => Promise<{ failed: boolean; result: T }>,
    options?: { countAll?: boolean },
  ): Promise<T>
}

type Kind = 'address' | 'account'

/** How long the attempt being served holds the line before the next may go (its process died); renewed while it runs. */
const TURN_LEASE_MS = 30_000
/** How often an attempt in line looks whether its turn has come (a turn ending in this process wakes it at once). */
const POLL_MS = { first: 10, most: 100 }

export interface CredentialLimiterOptions {
  /** rows of other scopes are not seen: '' = the deployment; each test app has its own */
  scope?: string
  /** the clock of the windows and turns (tests); default the database's */
  now?: () => number
}

/**
 * The two counters of one endpoint, kept in PostgreSQL; `attempt` runs a credential check under them. Every
 * statement is a single atomic one, and no connection is held while an attempt waits, sleeps or is checked.
 */
export class CredentialLimiter implements CredentialGate {
  private readonly scope: string
  private readonly now: (() => number) | undefined
  /** attempts of this process waiting in a line, woken when a turn of this process ends */
  private readonly waiters = new Map<string, Set<() => void>>()

  constructor(
    readonly endpoint: string,
    readonly limits: EndpointLimits,
    private readonly db: Pick<pg.Pool, 'query'>,
    options: CredentialLimiterOptions = {},
  ) {
    this.scope = options.scope ?? ''
    this.now = options.now
  }

  /** the time parameter of a statement: null = the database's clock (`COALESCE($n, now())`) */
  private time(): Date | null {
    return this.now ? new Date(this.now()) : null
  }

  /**
   * Runs `check` for a client address and an account key (normalised e-mail, or null). `check`
   * answers whether the attempt failed (counted) and its result; an AppError of status 4xx thrown by
   * it is counted as a failure too. Every attempt counts when `countAll` is set.
   */
  async attempt<T>(
    clientAddress: string,
    accountKey: string | null,
    check: () => Promise<{ failed: boolean; result: T }>,
    options: { countAll?: boolean } = {},
  ): Promise<T> {
    // the tables hold digests, not addresses or typed e-mails (a password typed into the e-mail field included)
    const address = keyDigest(clientAddress)
    const account = accountKey === null ? null : keyDigest(accountKey)
    const perAccount = this.limits.perAccount
    if (!perAccount || account === null) {
      const delayMs = (await this.admit(address, null)).addressDelay
      if (delayMs > 0) await sleep(delayMs)
      return this.run(address, null, check, options)
    }
    if (perAccount.queue === 0) {
      const { addressDelay, accountWait } = await this.admit(address, account)
      if (accountWait > 0) throw new RateLimitedError(accountWait)
      if (addressDelay > 0) await sleep(addressDelay)
      return this.run(address, account, check, options)
    }

    // One attempt at a time per account, throttled or not, so that parallel guesses cannot all be tried before
    // their failures count (issue 32 §7); a full line is refused. Refused at once when the address may not try
    // this account (no place in the line is taken).
    const admitted = await this.admit(address, account)
    const ticket = await this.join(account, perAccount)
    // The check above still holds at the turn when the line was empty then and this attempt got the ticket served
    // at that moment: no attempt on the account ran in between (each runs inside its turn). This saves a sign-in
    // two statements, each of which waits its turn on the embedded database.
    const fresh = admitted.idleTicket === ticket.toString()
    let succeeded = false
    if (!fresh) await this.waitTurn(account, ticket)
    const renew = setInterval(() => void this.renewTurn(account, ticket).catch(() => undefined), TURN_LEASE_MS / 3)
    renew.unref()
    try {
      // decided at its turn: the attempts ahead of it may have failed
      const { addressDelay, accountWait } = fresh ? admitted : await this.admit(address, account)
      if (accountWait > 0 && perAccount.delayMs === 0) throw new RateLimitedError(accountWait)
      const delayMs = Math.max(addressDelay, accountWait > 0 ? perAccount.delayMs : 0)
      if (delayMs > 0) await sleep(delayMs)
      return await this.run(address, account, check, options, () => (succeeded = true))
    } finally {
      clearInterval(renew)
      await this.endTurn(account, ticket, succeeded)
    }
  }

  /**
   * Whether the address may try now (addressDelay 0 = yes, > 0 = yes after that many ms: over the limit, on an
   * account not under attack, where the endpoint allows it; throws 429 otherwise), and how long the account is
   * blocked for (seconds, 0 = not), from one statement; `idleTicket` as failures gives it.
   */
  private async admit(
    address: string,
    account: string | null,
  ): Promise<{ addressDelay: number; accountWait: number; idleTicket: string | null }> {
    const overLimit = this.limits.perAddress.overLimit
    const failures = await this.failures(address, account)
    const accountWait = failures.account.blockedFor
    const idleTicket = failures.idleTicket
    if (failures.address.blockedFor === 0) return { addressDelay: 0, accountWait, idleTicket }
    if (overLimit && account !== null && this.limits.perAccount && failures.account.count < overLimit.tryAccountsBelow) {
      return { addressDelay: overLimit.delayMs, accountWait, idleTicket }
    }
    throw new RateLimitedError(failures.address.blockedFor)
  }

  /**
   * The counts in the current windows, seconds until each key may try again (0: under its limit), and the ticket
   * the account's line serves when nobody is in it (`idleTicket`, '0' for no line; null while someone is), in one
   * statement.
   */
  private async failures(address: string | null, account: string | null) {
    const result = { address: { count: 0, blockedFor: 0 }, account: { count: 0, blockedFor: 0 }, idleTicket: null as string | null }
    if (address === null && account === null) return result
    const { rows } = await this.db.query<{
      // credential_failures.key_kind (text) narrowed: the statement matches these two kinds only; NULL: no window
      key_kind: Kind | null
      count: Row<'credential_failures'>['count']
      wait: number
      idle_ticket: string | null
    }>(
      `SELECT f.key_kind, f.count, GREATEST(1, ceil(extract(epoch FROM f.reset_at - COALESCE($3::timestamptz, now()))))::int AS wait,
              (SELECT CASE WHEN l.next_ticket = l.serving THEN l.serving::text END FROM credential_lines l
                WHERE l.scope = $1 AND l.endpoint = $2 AND l.account = $5
               UNION ALL SELECT '0' WHERE $5::text IS NOT NULL LIMIT 1) AS idle_ticket
         FROM (SELECT 1) AS one
         LEFT JOIN credential_failures f
           ON f.scope = $1 AND f.endpoint = $2 AND f.reset_at > COALESCE($3::timestamptz, now())
          AND ((f.key_kind = 'address' AND f.key = $4) OR (f.key_kind = 'account' AND f.key = $5))`,
      [this.scope, this.endpoint, this.time(), address, account],
    )
    for (const row of rows) {
      result.idleTicket = row.idle_ticket
      if (row.key_kind === null) continue
      const limit = row.key_kind === 'address' ? this.limits.perAddress : this.limits.perAccount
      if (!limit) continue
      result[row.key_kind] = { count: row.count, blockedFor: row.count >= limit.max ? row.wait : 0 }
    }
    return result
  }

  private async run<T>(
    address: string,
    account: string | null,
    check: () => Promise<{ failed: boolean; result: T }>,
    options: { countAll?: boolean },
    /** a success leaves the account's failures for endTurn to clear (in its statement) instead of clearing them */
    onSuccess?: () => void,
  ): Promise<T> {
    let outcome: { failed: boolean; result: T }
    try {
      outcome = await check()
    } catch (error) {
      if (error instanceof AppError && error.status >= 400 && error.status < 500) await this.fail(address, account)
      throw error
    }
    if (outcome.failed || options.countAll) await this.fail(address, account)
    else if (onSuccess) onSuccess()
    else if (account !== null && this.limits.perAccount) {
      await this.db.query(`DELETE FROM credential_failures WHERE scope = $1 AND endpoint = $2 AND key_kind = 'account' AND key = $3`, [
        this.scope,
        this.endpoint,
        account,
      ])
    }
    return outcome.result
  }

  /** One failure more for the address and the account, in one statement (a window that ended starts again). */
  private async fail(address: string, account: string | null) {
    const keys: [Kind, string, number][] = [['address', address, this.limits.perAddress.windowMs]]
    if (account !== null && this.limits.perAccount) keys.push(['account', account, this.limits.perAccount.windowMs])
    const values = keys.map(
      (_, i) => `($1, $2, $${4 + i * 3}, $${5 + i * 3}, 1, COALESCE($3::timestamptz, now()) + $${6 + i * 3} * interval '1 millisecond')`,
    )
    await this.db.query(
      `INSERT INTO credential_failures AS f (scope, endpoint, key_kind, key, count, reset_at) VALUES ${values.join(', ')}
       ON CONFLICT (scope, endpoint, key_kind, key) DO UPDATE SET
         count = CASE WHEN f.reset_at <= COALESCE($3::timestamptz, now()) THEN 1 ELSE f.count + 1 END,
         reset_at = CASE WHEN f.reset_at <= COALESCE($3::timestamptz, now()) THEN EXCLUDED.reset_at ELSE f.reset_at END`,
      [this.scope, this.endpoint, this.time(), ...keys.flat()],
    )
    if (Math.random() < 0.01) void this.prune().catch(() => undefined)
  }

  /** Drops ended windows and idle lines (now and then, from any process). */
  private async prune() {
    await this.db.query(`DELETE FROM credential_failures WHERE reset_at <= COALESCE($1::timestamptz, now())`, [this.time()])
    await this.db.query(
      `DELETE FROM credential_lines WHERE next_ticket = serving AND turn_until < COALESCE($1::timestamptz, now()) - interval '1 hour'`,
      [this.time()],
    )
  }

  /** Takes a place in the account's line (its ticket), or refuses with 429 when the line is full. */
  private async join(account: string, perAccount: NonNullable<EndpointLimits['perAccount']>): Promise<bigint> {
    for (let tries = 0; ; tries++) {
      const { rows } = await this.db.query<{ ticket: string }>(
        `INSERT INTO credential_lines AS l (scope, endpoint, account, next_ticket, serving, turn_until)
         VALUES ($1, $2, $3, 1, 0, COALESCE($4::timestamptz, now()) + $5 * interval '1 millisecond')
         ON CONFLICT (scope, endpoint, account) DO UPDATE SET
           next_ticket = l.next_ticket + 1,
           turn_until = CASE WHEN l.next_ticket = l.serving THEN EXCLUDED.turn_until ELSE l.turn_until END
         WHERE l.next_ticket - l.serving < $6
         RETURNING (next_ticket - 1)::text AS ticket`,
        [this.scope, this.endpoint, account, this.time(), TURN_LEASE_MS, perAccount.queue],
      )
      if (rows[0]) return BigInt(rows[0].ticket)
      // full: unless the turn being served has lapsed (its process died), which moves the line on once
      if (tries === 0 && (await this.skipLapsedTurn(account, null))) continue
      const line = await this.db.query<{ waiting: number }>(
        `SELECT (next_ticket - serving)::int AS waiting FROM credential_lines WHERE scope = $1 AND endpoint = $2 AND account = $3`,
        [this.scope, this.endpoint, account],
      )
      const waiting = line.rows[0]?.waiting ?? perAccount.queue
      throw new RateLimitedError(Math.max(1, Math.ceil((perAccount.delayMs * (waiting + 1)) / 1000)))
    }
  }

  private async waitTurn(account: string, ticket: bigint): Promise<void> {
    const key = account
    let pollMs = POLL_MS.first
    for (;;) {
      const { rows } = await this.db.query<{ serving: string; lapsed: boolean }>(
        `SELECT serving::text, turn_until < COALESCE($4::timestamptz, now()) AS lapsed
           FROM credential_lines WHERE scope = $1 AND endpoint = $2 AND account = $3`,
        [this.scope, this.endpoint, account, this.time()],
      )
      const row = rows[0]
      const serving = row ? BigInt(row.serving) : ticket + 1n
      if (serving === ticket) return
      // passed over (this turn lapsed while the process stalled): not tried, as if the line were full
      if (serving > ticket) throw new RateLimitedError(1)
      if (row?.lapsed && (await this.skipLapsedTurn(account, serving))) continue
      await new Promise<void>((resolve) => {
        const waiters = this.waiters.get(key) ?? new Set()
        this.waiters.set(key, waiters)
        const wake = () => {
          clearTimeout(timer)
          waiters.delete(wake)
          if (waiters.size === 0 && this.waiters.get(key) === waiters) this.waiters.delete(key)
          resolve()
        }
        const timer = setTimeout(wake, pollMs)
        waiters.add(wake)
      })
      pollMs = Math.min(POLL_MS.most, pollMs * 2)
    }
  }

  /** Passes over a turn that lapsed (`serving`, or whichever is served when null); true when it did. */
  private async skipLapsedTurn(account: string, serving: bigint | null): Promise<boolean> {
    const { rowCount } = await this.db.query(
      `UPDATE credential_lines SET serving = serving + 1, turn_until = COALESCE($4::timestamptz, now()) + $5 * interval '1 millisecond'
        WHERE scope = $1 AND endpoint = $2 AND account = $3 AND next_ticket > serving
          AND turn_until < COALESCE($4::timestamptz, now()) AND ($6::bigint IS NULL OR serving = $6::bigint)`,
      [this.scope, this.endpoint, account, this.time(), TURN_LEASE_MS, serving?.toString() ?? null],
    )
    return (rowCount ?? 0) > 0
  }

  private async renewTurn(account: string, ticket: bigint) {
    await this.db.query(
      `UPDATE credential_lines SET turn_until = COALESCE($4::timestamptz, now()) + $5 * interval '1 millisecond'
        WHERE scope = $1 AND endpoint = $2 AND account = $3 AND serving = $6::bigint`,
      [this.scope, this.endpoint, account, this.time(), TURN_LEASE_MS, ticket.toString()],
    )
  }

  /**
   * Hands the turn to the next in line (unless it was passed over already) and wakes this process's waiters; after a
   * success, in the same statement, the account's failures are cleared.
   */
  private async endTurn(account: string, ticket: bigint, succeeded = false) {
    try {
      await this.db.query(
        `WITH cleared AS (
           DELETE FROM credential_failures WHERE $7::boolean AND scope = $1 AND endpoint = $2 AND key_kind = 'account' AND key = $3)
         UPDATE credential_lines SET serving = serving + 1, turn_until = COALESCE($4::timestamptz, now()) + $5 * interval '1 millisecond'
          WHERE scope = $1 AND endpoint = $2 AND account = $3 AND serving = $6::bigint`,
        [this.scope, this.endpoint, account, this.time(), TURN_LEASE_MS, ticket.toString(), succeeded],
      )
    } finally {
      for (const wake of [...(this.waiters.get(account) ?? [])]) wake()
    }
  }
}

/** One limiter per credential endpoint, on the database's pool; an app holds one set. */
export function createCredentialLimiters(db: Pick<pg.Pool, 'query'>, options: CredentialLimiterOptions = {}) {
  return {
    login: new CredentialLimiter('login', RATE_LIMITS.login, db, options),
    signup: new CredentialLimiter('signup', RATE_LIMITS.signup, db, options),
    passwordResetEmail: new CredentialLimiter('passwordResetEmail', RATE_LIMITS.passwordResetEmail, db, options),
    passwordReset: new CredentialLimiter('passwordReset', RATE_LIMITS.passwordReset, db, options),
    verify: new CredentialLimiter('verify', RATE_LIMITS.verify, db, options),
  }
}
export type CredentialLimiters = Record<keyof typeof RATE_LIMITS, CredentialGate>
