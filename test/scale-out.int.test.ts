import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { ACCESS_MESSAGES } from '../packages/contracts/src/index.ts'
import { RATE_LIMITS } from '../apps/server/src/auth/rate-limits.ts'
import { createDatabase, type Database } from '../apps/server/src/db/database.ts'
import { applyMigrations } from '../apps/server/src/db/migrate.ts'
import { MIGRATIONS_DIR } from '../apps/server/src/runtime.ts'
import { createTenant, eventually, loginTokenFor, startSmtpCapture, TEST_PASSWORD, uniqueEmail } from './helpers.ts'
import { createScratchDatabase } from './postgres.ts'
import { freePort, typeScriptArgs, waitForReady } from './server-process.ts'

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const main = path.join(REPO_ROOT, 'apps/server/src/main.ts')
const JWT_SECRET = 'scale-out-test-secret-with-more-than-32-chars'

/**
 * Issue 34 item 1 (docs/decisions/0076): independent server processes (no shared parent) on one PostgreSQL behave as
 * one server. The embedded database serves one process by design, so this runs in PostgreSQL mode only.
 */
describe.skipIf(inject('databaseMode') !== 'postgres')('three independent server processes on one PostgreSQL', () => {
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
    const ports = await Promise.all([0, 1, 2].map(() => freePort()))
    for (const port of ports) {
      const child = spawn(process.execPath, typeScriptArgs(main), {
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
