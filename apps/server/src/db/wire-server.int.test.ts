import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded.js'

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
    const { rows } = await pool.query<{ accounts: string; total: string }>('SELECT COUNT(DISTINCT account) AS accounts, SUM(amount) AS total FROM ledger')
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
})
