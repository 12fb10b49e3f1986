import { randomUUID } from 'node:crypto'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { testConfig } from '../../../../test/helpers.ts'
import { buildApp } from '../app.ts'
import { createDatabase, POSTGIS_WARM_UP_SQL, warmConnections } from './database.ts'

/**
 * What the application relies on from its database, in both modes (the embedded one through the wire
 * server, docs/decisions/0011): failed statements leave nothing behind, and each connection keeps its own
 * session state (prepared statements, settings, transactions).
 */
describe('database sessions under failures and concurrency', () => {
  const url = inject('databaseUrl')
  const table = `wire_test_${randomUUID().replace(/-/g, '').slice(0, 12)}`
  let admin: pg.Client

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: url })
    await admin.connect()
    await admin.query(`CREATE TABLE ${table} (id int PRIMARY KEY, value text NOT NULL)`)
    await admin.query(`INSERT INTO ${table} VALUES (1, 'original')`)
  })
  afterAll(async () => {
    await admin?.query(`DROP TABLE IF EXISTS ${table}`)
    await admin?.end()
  })

  it('answers every good query after 10,000 failed statements of four kinds from 16 connections', async () => {
    const pool = new pg.Pool({ connectionString: url, max: 16 })
    const failures = new Map<string, number>()
    const fail = async (kind: string, expected: string, run: () => Promise<unknown>) => {
      const error = await run().then(
        () => null,
        (e: unknown) => e as { code?: string },
      )
      expect(error?.code, kind).toBe(expected)
      failures.set(kind, (failures.get(kind) ?? 0) + 1)
    }
    const kinds: ((client: pg.PoolClient) => Promise<void>)[] = [
      (client) => fail('division by zero', '22012', () => client.query('SELECT 1 / $1::int', [0])),
      (client) => fail('NUL byte parameter', '22021', () => client.query('SELECT $1::text', ['a\u0000b'])),
      (client) => fail('failed Parse', '42601', () => client.query('SELEC $1::int', [1])),
      async (client) => {
        await client.query('BEGIN')
        await fail('division by zero in a transaction', '22012', () => client.query('SELECT 1/0'))
        await fail('statement in an aborted transaction', '25P02', () => client.query('SELECT $1::int', [1]))
        await client.query('ROLLBACK')
      },
    ]
    const total = () => [...failures.values()].reduce((a, b) => a + b, 0)
    await Promise.all(
      Array.from({ length: 16 }, async (_, worker) => {
        const client = await pool.connect()
        try {
          for (let i = 0; total() < 10_000; i++) {
            await kinds[(i + worker) % kinds.length]!(client)
            if (i % 2 === 0) {
              const { rows } = await client.query<{ n: number }>('SELECT $1::int + 1 AS n', [i])
              expect(rows[0]!.n).toBe(i + 1)
            }
          }
        } finally {
          client.release()
        }
      }),
    )
    expect(total()).toBeGreaterThanOrEqual(10_000)
    expect(failures.size).toBe(5)
    // Every connection, fresh or pooled, still answers, with simple and extended queries and transactions.
    const answers = await Promise.all(
      Array.from({ length: 64 }, (_, i) => pool.query<{ n: number; s: string }>('SELECT $1::int AS n, $2::text AS s', [i, `v${i}`])),
    )
    answers.forEach((result, i) => expect(result.rows[0]).toEqual({ n: i, s: `v${i}` }))
    const client = await pool.connect()
    await client.query('BEGIN')
    await client.query(`UPDATE ${table} SET value = 'in transaction' WHERE id = 1`)
    await client.query('ROLLBACK')
    client.release()
    expect((await pool.query(`SELECT value FROM ${table} WHERE id = 1`)).rows).toEqual([{ value: 'original' }])
    expect((await pool.query('SELECT 1 AS ok')).rows).toEqual([{ ok: 1 }])
    await pool.end()
  })

  it('keeps named prepared statements of concurrent connections apart, and frees them with the connection', async () => {
    const run = async (round: number) => {
      const clients = await Promise.all(
        Array.from({ length: 16 }, async () => {
          const client = new pg.Client({ connectionString: url })
          await client.connect()
          return client
        }),
      )
      // The same name with a different text on each connection, each executed repeatedly and concurrently.
      await Promise.all(
        clients.map(async (client, k) => {
          for (let i = 0; i < 5; i++) {
            const { rows } = await client.query<{ n: number }>({
              name: 'wire_test_statement',
              text: `SELECT $1::int * ${k + round} AS n`,
              values: [i],
            })
            expect(rows[0]!.n).toBe(i * (k + round))
          }
        }),
      )
      await Promise.all(clients.map((client) => client.end()))
    }
    await run(1)
    // The connections are gone; new ones may prepare the same name again.
    await run(100)
  })

  it('keeps SET in one connection out of the others', async () => {
    const a = new pg.Client({ connectionString: url })
    const b = new pg.Client({ connectionString: url })
    await Promise.all([a.connect(), b.connect()])
    const show = async (client: pg.Client) => {
      const { rows } = await client.query<{ work_mem: string; marker: string | null; zone: string }>(
        "SELECT current_setting('work_mem') AS work_mem, NULLIF(current_setting('citrus.wire_test', true), '') AS marker, current_setting('TimeZone') AS zone",
      )
      return rows[0]!
    }
    const before = await show(b)
    await a.query("SET work_mem = '7331kB'")
    await a.query("SELECT set_config('citrus.wire_test', 'a', false)")
    await a.query("SET TIME ZONE 'Pacific/Chatham'")
    await a.query("BEGIN; SET LOCAL work_mem = '1234kB'; COMMIT")
    // interleave turns: b between a's statements, a's settings still its own afterwards
    expect(await show(b)).toEqual(before)
    expect(await show(a)).toEqual({ work_mem: '7331kB', marker: 'a', zone: 'Pacific/Chatham' })
    expect(await show(b)).toEqual(before)
    await a.query('RESET ALL')
    const reset = await show(a)
    expect(reset.work_mem).toBe(before.work_mem)
    expect(reset.zone).not.toBe('Pacific/Chatham')
    await Promise.all([a.end(), b.end()])
  })

  it("bounds the app's own idle transactions: PostgreSQL ends them after a minute, the embedded database after its 5 s", async () => {
    const db = createDatabase(url, { maxConnections: 1 })
    try {
      const { rows } = await db.pool.query<{ idle_in_transaction_session_timeout: string }>('SHOW idle_in_transaction_session_timeout')
      // the wire server enforces its own bound (a client may only ask it for less) and keeps the setting itself
      expect(rows[0]!.idle_in_transaction_session_timeout).toBe(inject('databaseMode') === 'postgres' ? '1min' : '0')
    } finally {
      await db.close()
    }
  })

  it('rolls back a transaction left idle past the timeout, closes its connection and releases its locks', async () => {
    const idle = new pg.Client({ connectionString: url, idle_in_transaction_session_timeout: 400 })
    const ended = new Promise<Error>((resolve) => idle.on('error', resolve))
    await idle.connect()
    await idle.query('BEGIN')
    await idle.query(`UPDATE ${table} SET value = 'left idle' WHERE id = 1`)
    const started = Date.now()
    // Another connection wants the same row (PostgreSQL: a row lock; embedded: the single session).
    const other = new pg.Client({ connectionString: url })
    await other.connect()
    await other.query(`UPDATE ${table} SET value = 'other' WHERE id = 1 AND value = 'original'`)
    const waited = Date.now() - started
    expect(waited).toBeGreaterThanOrEqual(300)
    expect(waited).toBeLessThan(10_000)
    expect((await other.query(`SELECT value FROM ${table} WHERE id = 1`)).rows).toEqual([{ value: 'other' }])
    expect((await ended).message).toMatch(/idle-in-transaction timeout|Connection terminated/)
    await expect(idle.query('SELECT 1')).rejects.toThrow()
    await other.query(`UPDATE ${table} SET value = 'original' WHERE id = 1`)
    await other.end()
  })
})

describe('warm connections (docs/decisions/0064)', () => {
  it('opens the connections asked for, runs the PostGIS warm-up on each, and keeps them idle in the pool', async () => {
    const db = createDatabase(inject('databaseUrl'), { maxConnections: 5 })
    try {
      expect(db.pool.totalCount).toBe(0)
      expect(await warmConnections(db.pool, 3)).toBe(3)
      expect([db.pool.totalCount, db.pool.idleCount]).toEqual([3, 3])
      // idle connections are not closed after pg's default 10 s
      expect(db.pool.options.idleTimeoutMillis).toBe(0)
      // the warm-up statement answers on any of them
      const { rows } = await db.pool.query<{ warm: boolean }>(POSTGIS_WARM_UP_SQL)
      expect(rows).toEqual([{ warm: false }])
      expect(db.pool.totalCount).toBe(3)
    } finally {
      await db.close()
    }
  })

  it('a server built with warmConnections opens every connection of its pool when it becomes ready; tests do not', async () => {
    const warm = createDatabase(inject('databaseUrl'), { maxConnections: 4 })
    const cold = createDatabase(inject('databaseUrl'), { maxConnections: 4 })
    const warmApp = await buildApp(testConfig(), { logger: false, database: warm, warmConnections: true })
    const coldApp = await buildApp(testConfig(), { logger: false, database: cold })
    try {
      await Promise.all([warmApp.ready(), coldApp.ready()])
      expect([warm.pool.totalCount, warm.pool.idleCount]).toEqual([4, 4])
      expect(cold.pool.totalCount).toBe(0)
    } finally {
      await Promise.all([warmApp.close(), coldApp.close()])
      await Promise.all([warm.close(), cold.close()])
    }
  })
})
