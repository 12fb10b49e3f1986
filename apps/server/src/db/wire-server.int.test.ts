import { createHash } from 'node:crypto'
import net from 'node:net'
import pg from 'pg'
import { from as copyFrom, to as copyTo } from 'pg-copy-streams'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded.js'
import { BACKGROUND_APPLICATION_NAME } from './wire-server.js'
import { createPGlite, stackPointer } from './pglite.js'

describe('PGlite with stack recovery (db/pglite.ts)', () => {
  it('leaves the wasm stack where it was after 3,000 failed statements, and keeps answering', async () => {
    const db = await createPGlite({})
    try {
      const before = stackPointer(db)
      for (let i = 0; i < 3_000; i++) {
        await expect(db.query(i % 2 ? 'SELECT 1/0' : 'SELEC 1')).rejects.toThrow(i % 2 ? 'division by zero' : 'syntax error')
      }
      expect(stackPointer(db)).toBe(before)
      expect((await db.query('SELECT 1 AS ok')).rows).toEqual([{ ok: 1 }])
    } finally {
      await db.close()
    }
  })
})

/** Many clients on the single PGlite session: exchanges and transactions must never interleave. */
describe('embedded PostgreSQL wire server', () => {
  let embedded: EmbeddedPostgres
  beforeAll(async () => {
    embedded = await startEmbeddedPostgres({ extensions: false })
    const client = new pg.Client({ connectionString: embedded.url })
    await client.connect()
    await client.query('CREATE TABLE ledger (id serial PRIMARY KEY, account int NOT NULL, amount int NOT NULL)')
    await client.end()
  })
  afterAll(async () => {
    await embedded?.stop()
  })

  it('keeps parameterised queries of concurrent connections apart', async () => {
    const pool = new pg.Pool({ connectionString: embedded.url, max: 12 })
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => pool.query<{ n: number; s: string }>('SELECT $1::int AS n, $2::text AS s', [i, `v${i}`])),
    )
    results.forEach((result, i) => expect(result.rows[0]).toEqual({ n: i, s: `v${i}` }))
    await pool.end()
  })

  it('isolates concurrent transactions: each sees only its own uncommitted rows, rollbacks leave nothing', async () => {
    const pool = new pg.Pool({ connectionString: embedded.url, max: 8 })
    const work = Array.from({ length: 16 }, async (_, account) => {
      const client = await pool.connect()
      try {
        await client.query('BEGIN')
        for (let k = 0; k < 5; k++) await client.query('INSERT INTO ledger (account, amount) VALUES ($1, $2)', [account, k + 1])
        // yield to the event loop so other connections try to run in between
        await new Promise((resolve) => setTimeout(resolve, 5))
        const seen = await client.query<{ total: string; rows: string }>(
          'SELECT COALESCE(SUM(amount), 0) AS total, COUNT(*) AS rows FROM ledger WHERE account = $1',
          [account],
        )
        expect(seen.rows[0]).toEqual({ total: '15', rows: '5' })
        await client.query(account % 2 === 0 ? 'COMMIT' : 'ROLLBACK')
      } finally {
        client.release()
      }
    })
    await Promise.all(work)
    const { rows } = await pool.query<{ accounts: string; total: string }>(
      'SELECT COUNT(DISTINCT account) AS accounts, SUM(amount) AS total FROM ledger',
    )
    expect(rows[0]).toEqual({ accounts: '8', total: String(8 * 15) })
    await pool.end()
  })

  it('rolls back the transaction of a client that disconnects inside it', async () => {
    const quitter = new pg.Client({ connectionString: embedded.url })
    quitter.on('error', () => undefined) // the client sees its own connection die
    await quitter.connect()
    await quitter.query('BEGIN')
    await quitter.query('INSERT INTO ledger (account, amount) VALUES (999, 1)')
    quitter.connection.stream.destroy()
    const other = new pg.Client({ connectionString: embedded.url })
    await other.connect()
    const { rows } = await other.query('SELECT COUNT(*)::int AS n FROM ledger WHERE account = 999')
    expect(rows[0]).toEqual({ n: 0 })
    await other.end()
  })
  it('carries COPY FROM STDIN and COPY TO STDOUT, inside and outside a transaction, and a failed COPY', async () => {
    const client = new pg.Client({ connectionString: embedded.url })
    await client.connect()
    const copyIn = async (rows: string) => {
      const stream = client.query(copyFrom('COPY ledger (account, amount) FROM STDIN'))
      const done = new Promise<void>((resolve, reject) => {
        stream.on('finish', resolve)
        stream.on('error', reject)
      })
      stream.end(rows)
      await done
    }
    await copyIn(Array.from({ length: 1_000 }, (_, i) => `5000\t${i}\n`).join(''))
    await client.query('BEGIN')
    await copyIn('5001\t7\n5001\t8\n')
    await client.query('ROLLBACK')
    await expect(copyIn('5002\tnot a number\n')).rejects.toThrow('invalid input syntax for type integer')
    const { rows } = await client.query(
      'SELECT account, count(*)::int AS n, sum(amount)::int AS total FROM ledger WHERE account >= 5000 GROUP BY account',
    )
    expect(rows).toEqual([{ account: 5000, n: 1_000, total: 499_500 }])
    const out = client.query(copyTo('COPY (SELECT amount FROM ledger WHERE account = 5000 ORDER BY amount LIMIT 3) TO STDOUT'))
    const chunks: Buffer[] = []
    out.on('data', (chunk: Buffer) => chunks.push(chunk))
    await new Promise((resolve, reject) => {
      out.on('end', resolve)
      out.on('error', reject)
    })
    expect(Buffer.concat(chunks).toString()).toBe('0\n1\n2\n')
    await client.end()
  })

  it('delivers large answers intact to clients that read slowly, simple and extended protocol alike', async () => {
    // PGlite hands each output chunk over as a view of its WebAssembly memory, which its next chunk overwrites;
    // a socket that cannot take a chunk at once keeps a reference to it. A client that does not read for a
    // while lets the answer pile up in the socket, so every row must still arrive as it was sent.
    const pool = new pg.Pool({ connectionString: embedded.url, max: 4 })
    const sql = 'SELECT i, repeat(md5(i::text), 16) AS s FROM generate_series(1, $1::int) AS i'
    const expected = (i: number) => createHash('md5').update(String(i)).digest('hex').repeat(16)
    const slowReader = async (rows: number, extended: boolean) => {
      const client = await pool.connect()
      try {
        const stream = (client as unknown as { connection: { stream: NodeJS.ReadableStream } }).connection.stream
        const answer = extended
          ? client.query<{ i: number; s: string }>(sql, [rows])
          : client.query<{ i: number; s: string }>(sql.replace('$1::int', String(rows)))
        stream.pause()
        await new Promise((resolve) => setTimeout(resolve, 150))
        stream.resume()
        const result = await answer
        expect(result.rows).toHaveLength(rows)
        for (const row of result.rows) if (row.s !== expected(row.i)) throw new Error(`row ${row.i} arrived corrupted`)
      } finally {
        client.release()
      }
    }
    await Promise.all([slowReader(30_000, false), slowReader(30_000, true), slowReader(20_000, true), slowReader(5_000, false)])
    await pool.end()
  })

  it('refuses a wrong password or user name with 28P01 and closes the connection; the right one connects', async () => {
    const url = new URL(embedded.url)
    expect(url.password).toMatch(/^[\w-]{32}$/)
    for (const [user, password] of [
      ['postgres', 'postgres'],
      ['postgres', `${url.password}x`],
      ['someone', url.password],
    ] as const) {
      const client = new pg.Client({ host: url.hostname, port: Number(url.port), database: 'postgres', user, password })
      client.on('error', () => undefined)
      const error = await client.connect().then(
        () => null,
        (e: unknown) => e as { code?: string; message: string },
      )
      expect(error?.code).toBe('28P01')
      expect(error?.message).toBe(`password authentication failed for user "${user}"`)
      await client.end().catch(() => undefined)
    }
    const client = new pg.Client({ connectionString: embedded.url })
    await client.connect()
    expect((await client.query('SELECT current_user AS who')).rows).toEqual([{ who: 'postgres' }])
    await client.end()
  })

  it('answers a client that skips authentication (a query, a cleartext password) with 28P01, runs nothing and closes', async () => {
    const port = Number(new URL(embedded.url).port)
    for (const attempt of [rawMessage('Q', 'CREATE TABLE unauthenticated (n int)\0'), rawMessage('p', 'postgres\0')]) {
      const answer = await rawExchange(port, Buffer.concat([startupPacket({ user: 'postgres', database: 'postgres' }), attempt]))
      // AuthenticationSASL offering SCRAM-SHA-256 only, then the FATAL error, then the end of the connection
      expect(answer.subarray(0, 9).toString('latin1')).toBe('R\0\0\0\x17\0\0\0\x0a')
      expect(answer.toString('latin1')).toContain('SCRAM-SHA-256\0\0')
      expect(answer.toString('latin1')).toContain('SFATAL\0')
      expect(answer.toString('latin1')).toContain('C28P01\0')
    }
    const client = new pg.Client({ connectionString: embedded.url })
    await client.connect()
    expect((await client.query(`SELECT to_regclass('unauthenticated') AS t`)).rows).toEqual([{ t: null }])
    await client.end()
  })

  it('rolls back and closes a connection idle in a transaction past the configured timeout', async () => {
    const strict = await startEmbeddedPostgres({ extensions: false, idleInTransactionTimeoutMs: 300 })
    try {
      // a client may not ask for more time than the server allows
      const idle = new pg.Client({ connectionString: strict.url, idle_in_transaction_session_timeout: 3_600_000 })
      const ended = new Promise<Error>((resolve) => idle.on('error', resolve))
      await idle.connect()
      await idle.query('CREATE TABLE t (n int)')
      await idle.query('BEGIN')
      await idle.query('INSERT INTO t VALUES (1)')
      // the other connection waits for the session (its start-up included) until the timeout frees it
      const started = Date.now()
      const other = new pg.Client({ connectionString: strict.url })
      await other.connect()
      expect((await other.query('SELECT count(*)::int AS n FROM t')).rows).toEqual([{ n: 0 }])
      expect(Date.now() - started).toBeGreaterThanOrEqual(200)
      expect((await ended).message).toBe('terminating connection due to idle-in-transaction timeout')
      await other.end()
    } finally {
      await strict.stop()
    }
  })

  it("serves a request's statement before a background connection's queued ones, and background work still goes on", async () => {
    const background = new pg.Pool({ connectionString: embedded.url, max: 4, application_name: BACKGROUND_APPLICATION_NAME })
    const requests = new pg.Pool({ connectionString: embedded.url, max: 4 })
    try {
      // connections made first: the start-up exchanges are turns of their own
      await Promise.all([...Array.from({ length: 4 }, () => background.query('SELECT 1')), requests.query('SELECT 1')])
      const done: string[] = []
      // eight slow background statements, four always waiting (a load's lanes, an engine build's chunks in flight)
      const slow = Array.from({ length: 8 }, (_, k) => background.query('SELECT pg_sleep(0.1)').then(() => done.push(`background ${k}`)))
      await new Promise((resolve) => setTimeout(resolve, 30))
      await requests.query('SELECT 1').then(() => done.push('request'))
      await Promise.all(slow)
      // FIFO would put it behind the four that waited before it; it waits at most for the statements running or
      // already granted when it arrived
      expect(done.indexOf('request')).toBeLessThanOrEqual(2)

      // a steady stream of requests' statements does not starve the background: it gets every BACKGROUND_TURN_EVERY-th turn
      let streaming = true
      let served = 0
      const stream = Array.from({ length: 4 }, async () => {
        while (streaming) {
          await requests.query('SELECT pg_sleep(0.005)')
          served++
        }
      })
      const started = Date.now()
      await Promise.all(Array.from({ length: 3 }, () => background.query('SELECT 1')))
      const waited = Date.now() - started
      streaming = false
      await Promise.all(stream)
      expect(waited).toBeLessThan(5_000)
      expect(served).toBeGreaterThan(0)
    } finally {
      await Promise.all([background.end(), requests.end()])
    }
  })
})

function rawMessage(type: string, body: string): Buffer {
  const bytes = Buffer.from(body, 'latin1')
  const header = Buffer.alloc(5)
  header.write(type, 0, 'latin1')
  header.writeInt32BE(4 + bytes.length, 1)
  return Buffer.concat([header, bytes])
}

function startupPacket(parameters: Record<string, string>): Buffer {
  const body = Buffer.from(
    Object.entries(parameters)
      .map(([k, v]) => `${k}\0${v}\0`)
      .join('') + '\0',
  )
  const packet = Buffer.alloc(8 + body.length)
  packet.writeInt32BE(packet.length, 0)
  packet.writeInt32BE(196608, 4)
  body.copy(packet, 8)
  return packet
}

/** Sends bytes on a new connection and collects everything the server answers until it closes the connection. */
function rawExchange(port: number, bytes: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes))
    socket.on('data', (chunk) => chunks.push(chunk))
    socket.on('error', reject)
    socket.on('close', () => resolve(Buffer.concat(chunks)))
    socket.setTimeout(10_000, () => reject(new Error('the server did not close the connection')))
  })
}
