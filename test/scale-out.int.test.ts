import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { ACCESS_MESSAGES, CREDIT_MESSAGES, USER_MESSAGES } from '../packages/contracts/src/index.ts'
import { RATE_LIMITS } from '../apps/server/src/auth/rate-limits.ts'
import { createDatabase, type Database } from '../apps/server/src/db/database.ts'
import { applyMigrations } from '../apps/server/src/db/migrate.ts'
import { currentCycle, isoDay } from '../apps/server/src/domain/credits.ts'
import { MIGRATIONS_DIR } from '../apps/server/src/runtime.ts'
import { createTenant, eventually, loginTokenFor, startSmtpCapture, TEST_PASSWORD, uniqueEmail } from './helpers.ts'
import { createScratchDatabase } from './postgres.ts'
import { freePort, waitForReady } from './server-process.ts'

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
/**
 * The server compiled as the Docker image compiles it (scripts/build-server.mjs, esbuild: under a second), into a
 * folder of this run beside apps/server/dist, so a stale build can never stand in for the sources under test.
 */
const BUILT = path.join(REPO_ROOT, 'apps/server', `dist-test-scale-${process.pid}`)
const JWT_SECRET = 'scale-out-test-secret-with-more-than-32-chars'

/**
 * Issue 34 item 1 (docs/decisions/0076): independent server processes (no shared parent), each started as
 * `node apps/server/dist/main.js`, on one PostgreSQL behave as one server. The embedded database serves one process
 * by design, so this runs in PostgreSQL mode only.
 */
describe.skipIf(inject('databaseMode') !== 'postgres')('three independent `node dist/main.js` server processes on one PostgreSQL', () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>
  let smtp: Awaited<ReturnType<typeof startSmtpCapture>>
  let db: Database
  const children: ChildProcess[] = []
  const urls: string[] = []

  beforeAll(async () => {
    scratch = await createScratchDatabase()
    await applyMigrations(scratch.url, MIGRATIONS_DIR)
    db = createDatabase(scratch.url, { maxConnections: 4 })
    smtp = await startSmtpCapture()
    execFileSync(process.execPath, ['scripts/build-server.mjs', '--outdir', BUILT], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    })
    const ports = await Promise.all([0, 1, 2].map(() => freePort()))
    for (const port of ports) {
      const child = spawn(process.execPath, [path.join(BUILT, 'main.js')], {
        env: {
          PATH: process.env.PATH,
          DATABASE_URL: scratch.url,
          PORT: String(port),
          HOST: '127.0.0.1',
          JWT_SECRET,
          DATA_DIR: mkdtempSync(path.join(tmpdir(), 'citrus-scale-')),
          LOG_LEVEL: 'warn',
          TRUST_PROXY: 'true',
          OUTBOX_POLL_INTERVAL_MS: '100',
          PUBLIC_URL: 'https://citrus.example.com',
          ...smtp.env,
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      })
      children.push(child)
      urls.push(`http://127.0.0.1:${port}`)
    }
    await Promise.all(urls.map((url) => waitForReady(url, 120_000)))
  }, 180_000)

  afterAll(async () => {
    await Promise.all(
      children.map((child) => {
        if (child.exitCode !== null) return undefined
        const exited = new Promise((resolve) => child.once('exit', resolve))
        child.kill('SIGTERM')
        return exited
      }),
    )
    await db?.close()
    await smtp?.close()
    await scratch?.drop()
    rmSync(BUILT, { recursive: true, force: true })
  }, 30_000)

  const server = (i: number) => urls[i % urls.length]!
  const post = (i: number, url: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server(i)}${url}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
  const login = async (i: number, email: string, password: string, address: string) => {
    const started = Date.now()
    const response = await post(i, '/api/users/login', { email, password }, { 'x-forwarded-for': address })
    return { status: response.status, ms: Date.now() - started }
  }

  it('counts failed sign-ins on an account across processes: a line of 5 and the throttle after 10 failures', async () => {
    const { users } = await createTenant(db, { roles: ['user'] })
    const email = users[0]!.email
    // 12 parallel guesses spread over the three processes: one line, 5 tried, 7 refused
    const burst = await Promise.all(Array.from({ length: 12 }, (_, i) => login(i, email, 'Wrong#Pass1', `10.20.0.${i + 1}`)))
    expect(burst.map((r) => r.status).sort()).toEqual([...Array(5).fill(401), ...Array(7).fill(429)])
    // five more failures, one on each process in turn: ten in all, though no process saw more than four
    for (let i = 0; i < 5; i++) expect((await login(i, email, 'Wrong#Pass1', `10.20.1.${i + 1}`)).status).toBe(401)
    const throttled = await login(2, email, TEST_PASSWORD, '10.20.2.1')
    expect(throttled.status).toBe(200)
    expect(throttled.ms).toBeGreaterThanOrEqual(RATE_LIMITS.login.perAccount.delayMs - 20)
  }, 60_000)

  it('counts failures from one address across processes: after 30, each try waits and an attacked account is refused', async () => {
    const address = '10.21.0.1'
    const attacked = uniqueEmail('attacked')
    for (let i = 0; i < 3; i++) expect((await login(i, attacked, 'Wrong#Pass1', address)).status).toBe(401)
    await Promise.all(
      [0, 1, 2].map(async (p) => {
        for (let i = 0; i < 9; i++) expect((await login(p, uniqueEmail('spray'), 'Wrong#Pass1', address)).status).toBe(401)
      }),
    )
    const quiet = await login(1, uniqueEmail('quiet'), 'Wrong#Pass1', address)
    expect(quiet.status).toBe(401)
    expect(quiet.ms).toBeGreaterThanOrEqual(RATE_LIMITS.login.perAddress.overLimit.delayMs - 20)
    expect((await login(2, attacked, 'Wrong#Pass1', address)).status).toBe(429)
  }, 60_000)

  it('counts per-route request limits across processes: 300 analytics calls a minute per address, not 300 each', async () => {
    const address = '10.22.0.1'
    const statuses: number[] = []
    for (let i = 0; i < 301; i++) {
      const response = await post(
        i,
        '/api/analytics/events',
        { events: [{ name: 'error_occurred', properties: { n: i } }] },
        { 'x-forwarded-for': address },
      )
      statuses.push(response.status)
    }
    expect(statuses.slice(0, 300).every((status) => status === 202)).toBe(true)
    expect(statuses[300]).toBe(429)
    // another address is counted on its own
    expect(
      (await post(1, '/api/analytics/events', { events: [{ name: 'error_occurred' }] }, { 'x-forwarded-for': '10.22.0.2' })).status,
    ).not.toBe(429)
  }, 120_000)

  it('confirms a verification code once, and counts its attempts, across processes', async () => {
    const tenant = await createTenant(db, { roles: ['user'], products: [{ product_group: 'CARE_SELECT' }] })
    const staff = await loginTokenFor(tenant.users[0]!, tenant.company.company_name, JWT_SECRET)
    const created = await post(
      0,
      '/api/shareable-url',
      {
        url_type: 'private',
        client_routes: ['/member-recommendations'],
        api_endpoints: ['GET /care-select/rankings', 'GET /shareable-url/validate-shareable-link'],
        incoming_url: '/member-recommendations',
        initial_query_params: { zip_code: '10001', omni_code: '207Q00000X', radius_in_m: '30000' },
        invite_email: 'member@example.com',
        invite_phone: null,
        requires_email_verification: true,
        requires_phone_verification: false,
        role: 'member',
      },
      { authorization: `Bearer ${staff}` },
    )
    const createdBody = (await created.json()) as { url: string }
    expect(created.status, JSON.stringify(createdBody)).toBe(200)
    const token = new URL(createdBody.url).searchParams.get('token')!
    const sendCode = async (i: number) => {
      const response = await post(i, `/api/users/verification-code?token=${token}`, { channel: 'email', email: 'member@example.com' })
      expect(response.status).toBe(200)
      const body = (await response.json()) as { verification_id: string; message_id: string }
      const message = await db.prisma.messageOutbox.findUniqueOrThrow({ where: { id: body.message_id } })
      return { id: body.verification_id, code: /\b(\d{6})\b/.exec(message.body)![1]! }
    }
    const confirm = (i: number, verification_id: string, code: string) =>
      post(i, `/api/users/verification-code/confirm?token=${token}`, { verification_id, code })
    const wrong = (code: string, k: number) => String((Number(code) + k) % 1_000_000).padStart(6, '0')

    // five wrong guesses in parallel on the three processes use up the code's 5 attempts: the right code is refused
    const guessed = await sendCode(1)
    const guesses = await Promise.all(Array.from({ length: 5 }, (_, k) => confirm(k, guessed.id, wrong(guessed.code, k + 1))))
    expect(guesses.map((r) => r.status)).toEqual(Array(5).fill(400))
    const locked = await confirm(2, guessed.id, guessed.code)
    expect(locked.status).toBe(400)
    expect(((await locked.json()) as { message: string }).message).toBe(ACCESS_MESSAGES.codeLocked)

    // the right code sent to the three processes at once is accepted once
    const fresh = await sendCode(2)
    const confirmations = await Promise.all([0, 1, 2].map((i) => confirm(i, fresh.id, fresh.code)))
    expect(confirmations.map((r) => r.status).sort()).toEqual([200, 400, 400])
  }, 60_000)

  it('gives a company with 7 credits exactly 7 answered calls of 21 sent at once to three processes, 402 to the rest', async () => {
    const limit = 7
    const bearer = async (tenant: Awaited<ReturnType<typeof createTenant>>) => ({
      authorization: `Bearer ${await loginTokenFor(tenant.users[0]!, tenant.company.company_name, JWT_SECRET)}`,
    })
    const call = (i: number, headers: Record<string, string>) => fetch(`${server(i)}/api/nova/v1/metadata/`, { headers })
    // a first call builds what the answer reads in each process: made by another company (unlimited), so that the
    // burst below meets warm processes and its calls overlap
    const other = await bearer(await createTenant(db, { roles: ['citrus'], products: [{ product_group: 'NOVA' }] }))
    expect((await Promise.all([0, 1, 2].map((i) => call(i, other)))).map((r) => r.status)).toEqual([200, 200, 200])

    const tenant = await createTenant(db, { roles: ['citrus'], products: [{ product_group: 'NOVA', limit }] })
    const staff = await bearer(tenant)
    const renewsOn = isoDay(currentCycle(tenant.company.created_at, tenant.company.renewal_cycle_days).end)
    const exhausted = { message: CREDIT_MESSAGES.exhausted('NOVA', renewsOn), code: 'CREDITS_EXHAUSTED', status: 402 }
    const burst = await Promise.all(Array.from({ length: 21 }, (_, i) => call(i, staff)))
    const answered = burst.filter((r) => r.status === 200)
    const refused = burst.filter((r) => r.status === 402)
    expect(answered).toHaveLength(limit)
    expect(refused).toHaveLength(21 - limit)
    // each answer took a credit of its own: remaining 6, 5, ... 0 across the three processes
    const remaining = answered.map((r) => Number(r.headers.get('x-credits-remaining'))).sort((a, b) => a - b)
    expect(remaining).toEqual([0, 1, 2, 3, 4, 5, 6])
    for (const response of refused) expect(await response.json()).toEqual(exhausted)
    // later calls, on every process, are refused as well
    for (const i of [0, 1, 2]) {
      const late = await call(i, staff)
      expect(late.status).toBe(402)
      expect(await late.json()).toEqual(exhausted)
    }
    // the count kept in PostgreSQL: every credit taken once, none lost, none beyond the limit
    const { rows } = await db.pool.query<{ used: number }>(
      `SELECT used FROM credit_usage WHERE company_id = $1 AND product_group = 'NOVA'`,
      [tenant.company.id],
    )
    expect(rows).toEqual([{ used: limit }])
  }, 60_000)

  it('uses a password-reset link once when it is submitted to three processes at once', async () => {
    const { users } = await createTenant(db, { roles: ['user'] })
    const user = users[0]!
    const requested = await post(0, '/api/users/password-reset-email', { email: user.email }, { 'x-forwarded-for': '10.23.0.1' })
    expect(requested.status).toBe(200)
    const { message_id } = (await requested.json()) as { message_id: string }
    // the e-mail is prepared after the answer, in the same outbox row
    const token = await eventually(
      async () => {
        const message = await db.prisma.messageOutbox.findUniqueOrThrow({ where: { id: message_id } })
        const match = /\/password-reset\?token=([A-Za-z0-9._-]+)/.exec(message.body)
        if (!match) throw new Error('the reset e-mail is not prepared yet')
        return match[1]!
      },
      15_000,
      100,
    )
    const passwords = ['First#Reset1', 'Second#Reset2', 'Third#Reset3']
    const resets = await Promise.all(
      passwords.map((new_password, i) =>
        post(i, '/api/users/password-reset', { new_password, temp_jwt_token: token }, { 'x-forwarded-for': `10.23.1.${i + 1}` }),
      ),
    )
    expect(resets.map((r) => r.status).sort()).toEqual([200, 400, 400])
    for (const response of resets.filter((r) => r.status === 400)) {
      expect(await response.json()).toEqual({ message: USER_MESSAGES.resetTokenInvalid, code: 'BAD_REQUEST', status: 400 })
    }
    // the password of the one that got through is the account's; the others' are not
    const winner = passwords[resets.findIndex((r) => r.status === 200)]!
    for (const [i, password] of passwords.entries()) {
      expect((await login(i, user.email, password, `10.23.2.${i + 1}`)).status).toBe(password === winner ? 200 : 401)
    }
    const changed = await db.prisma.messageOutbox.count({ where: { recipient: user.email, subject: 'Your Citrus password was changed' } })
    expect(changed).toBe(1)
  }, 60_000)

  it('accepts an invitation once when the sign-up is submitted to three processes at once', async () => {
    const tenant = await createTenant(db, { roles: ['admin'] })
    const admin = { authorization: `Bearer ${await loginTokenFor(tenant.users[0]!, tenant.company.company_name, JWT_SECRET)}` }
    const email = uniqueEmail('invited')
    const sent = await post(
      1,
      '/api/admin/email/onboarding',
      { email, company_activation_key: tenant.company.activation_key, role: 'admin', is_trial: false },
      admin,
    )
    expect(sent.status).toBe(200)
    const message = await db.prisma.messageOutbox.findUniqueOrThrow({
      where: { id: ((await sent.json()) as { message_id: string }).message_id },
    })
    const invitation_token = /&invitation=([A-Za-z0-9_-]{43})/.exec(message.body)![1]!
    const signups = await Promise.all(
      ['First#Sign1', 'Second#Sign2', 'Third#Sign3'].map((password, i) =>
        post(
          i,
          '/api/users/user-signup',
          { email, password, activation_key: tenant.company.activation_key, invitation_token },
          { 'x-forwarded-for': `10.24.0.${i + 1}` },
        ),
      ),
    )
    expect(signups.map((r) => r.status).sort()).toEqual([200, 400, 400])
    for (const response of signups.filter((r) => r.status === 400)) {
      expect(await response.json()).toEqual({
        message: USER_MESSAGES.invitationInvalid,
        code: 'BAD_REQUEST',
        status: 400,
        errors: [{ path: 'body.invitation_token', message: USER_MESSAGES.invitationInvalid }],
      })
    }
    const accounts = await db.prisma.user.findMany({ where: { email }, select: { role: true, company_id: true } })
    expect(accounts).toEqual([{ role: 'admin', company_id: tenant.company.id }])
    const invitation = await db.prisma.onboardingInvitation.findFirstOrThrow({ where: { email } })
    expect(invitation.accepted_at).not.toBeNull()
  }, 60_000)

  it('sends each outbox message exactly once with three senders', async () => {
    const subjects = Array.from({ length: 30 }, (_, i) => `scale-out ${i}`)
    await db.pool.query(
      `INSERT INTO message_outbox (id, channel, recipient, subject, body)
       SELECT gen_random_uuid(), 'email', 'outbox@example.com', s, 'one of thirty' FROM unnest($1::text[]) AS s`,
      [subjects],
    )
    const delivered = () => smtp.messages.filter((m) => m.to.includes('outbox@example.com'))
    await eventually(() => expect(delivered().length).toBeGreaterThanOrEqual(30), 20_000, 100)
    // every sender polls every 100 ms: a second copy would arrive within this pause
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    const got = delivered().map((m) => /^Subject: (.*)$/m.exec(m.raw)?.[1]?.trim())
    expect(got.sort()).toEqual([...subjects].sort())
    const { rows } = await db.pool.query<{ status: string; n: number }>(
      `SELECT status::text, count(*)::int AS n FROM message_outbox WHERE recipient = 'outbox@example.com' GROUP BY 1`,
    )
    expect(rows).toEqual([{ status: 'sent', n: 30 }])
  }, 60_000)

  it('shows a data load finished elsewhere on every process within 5 s', async () => {
    type Dictionary = { tab_sets: { tabs: { table: string; row_count: number }[] }[] }
    const dictionary = async (i: number) => (await (await fetch(`${server(i)}/api/data-dictionary`)).json()) as Dictionary
    const table = (await dictionary(0)).tab_sets[0]!.tabs[0]!.table
    const rowCount = (d: Dictionary) => d.tab_sets.flatMap((set) => set.tabs).find((tab) => tab.table === table)!.row_count
    // every process has answered (and kept its answer for the current data version)
    for (const i of [0, 1, 2]) expect(rowCount(await dictionary(i))).not.toBe(424_242)
    // a load finishing in another process (here: the journal and the counts it keeps, written directly)
    const started = Date.now()
    await db.pool.query(
      `WITH load AS (
         INSERT INTO data_loads (kind, scale, status, finished_at) VALUES ('import', 'scale-out-test', 'done', now()) RETURNING id)
       INSERT INTO table_row_counts (table_name, row_count, is_estimate, data_load_id) SELECT $1, 424242, false, id FROM load
       ON CONFLICT (table_name) DO UPDATE SET row_count = EXCLUDED.row_count, data_load_id = EXCLUDED.data_load_id`,
      [table],
    )
    await Promise.all([0, 1, 2].map((i) => eventually(async () => expect(rowCount(await dictionary(i))).toBe(424_242), 5_000, 100)))
    expect(Date.now() - started).toBeLessThan(5_000)
  }, 30_000)
})
