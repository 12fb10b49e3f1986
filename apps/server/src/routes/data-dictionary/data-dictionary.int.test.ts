import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../../../test/helpers.ts'
import { DATA_DICTIONARY } from '../../services/data-dictionary/catalogue.ts'
import { finishLoad, startLoad } from '../../data/loads.ts'
import { rowCountOf } from '../../data/table-counts.ts'

describe('GET /api/data-dictionary', () => {
  const ctx = useTestApp()

  it('is public and lists the claims and provider tabs of spec 1 §2, each with rows and a row count', async () => {
    const response = await request(ctx.app.server).get('/api/data-dictionary')
    expect(response.status).toBe(200)
    const sets = response.body.tab_sets as {
      tabs: { label: string; row_count: number | null; rows: { column: string; type: string; description: string }[] }[]
    }[]
    // the clinical (EHR) tab set of spec 1 §2 is left out until the platform holds those tables
    expect(sets.map((set) => set.tabs.map((tab) => tab.label))).toEqual([
      ['MEDX CLAIMS', 'HCP DATA', 'HCO DATA', 'PHARMX CLAIMS', 'HCP PRESCRIBER DATA', 'INSURANCE VARIABLES DATA'],
      ['FACILITY PRICES', 'PLAN COST SHARING'],
    ])
    for (const tab of sets.flatMap((set) => set.tabs)) {
      expect(tab.rows.length, tab.label).toBeGreaterThan(0)
      for (const row of tab.rows) expect(Object.keys(row).sort()).toEqual(expect.arrayContaining(['column', 'description', 'type']))
      // every listed table exists, so every count is a number
      expect(Number.isInteger(tab.row_count), tab.label).toBe(true)
    }
  })

  it('lists only tables and columns that exist in the database', async () => {
    const tables = DATA_DICTIONARY.flatMap((set) => set.tabs.map((tab) => tab.table))
    // tables and views (information_schema), and materialised views (pg_matviews, which information_schema omits)
    const { rows: relations } = await ctx.db.pool.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_name = ANY($1)
       UNION SELECT matviewname FROM pg_matviews WHERE schemaname = 'public' AND matviewname = ANY($1)`,
      [tables],
    )
    expect(relations.map((r) => r.name).sort()).toEqual([...new Set(tables)].sort())
    const { rows: columns } = await ctx.db.pool.query<{ relation: string; column: string }>(
      `SELECT c.relname AS relation, a.attname AS column FROM pg_attribute a
         JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'public' AND c.relname = ANY($1) AND a.attnum > 0 AND NOT a.attisdropped`,
      [tables],
    )
    const existing = new Set(columns.map((c) => `${c.relation}.${c.column}`))
    // a row may describe several columns ('latitude, longitude, geog') or those of a joined table
    // ('patients.age, gender'): each named column must exist where the row says
    const named = (table: string, column: string) => {
      const [first = '', ...rest] = column.split(', ')
      const [relation, firstColumn] = first.includes('.') ? (first.split('.') as [string, string]) : [table, first]
      return [firstColumn, ...rest].map((name) => `${relation}.${name}`)
    }
    const listed = DATA_DICTIONARY.flatMap((set) => set.tabs.flatMap((tab) => tab.rows.flatMap((row) => named(tab.table, row.column))))
    const joined = [...new Set(listed.map((name) => name.split('.')[0]!))].filter((relation) => !tables.includes(relation))
    const { rows: joinedColumns } = await ctx.db.pool.query<{ relation: string; column: string }>(
      `SELECT table_name AS relation, column_name AS column FROM information_schema.columns WHERE table_schema = 'public' AND table_name = ANY($1)`,
      [joined],
    )
    for (const c of joinedColumns) existing.add(`${c.relation}.${c.column}`)
    expect(listed.length).toBeGreaterThan(40)
    const missing = listed.filter((name) => !existing.has(name))
    expect(missing).toEqual([])
  })

  it("keeps every relation's row count when a data load finishes, and the page answers the kept counts", async () => {
    const pool = ctx.db.pool
    const finishImport = async () => {
      const client = await pool.connect()
      try {
        await finishLoad(client, await startLoad(client, { kind: 'import', scale: 'dictionary-test' }), {})
      } finally {
        client.release()
      }
    }
    await pool.query('CREATE TABLE IF NOT EXISTS zz_dictionary_probe (n int)')
    try {
      await pool.query('INSERT INTO zz_dictionary_probe SELECT generate_series(1, 3)')
      await finishImport()
      const kept = await pool.query<{ row_count: string; is_estimate: boolean }>(
        `SELECT row_count::text, is_estimate FROM table_row_counts WHERE table_name = 'zz_dictionary_probe'`,
      )
      expect(kept.rows).toEqual([{ row_count: '3', is_estimate: false }])
    } finally {
      await pool.query('DROP TABLE zz_dictionary_probe')
      await pool.query(`DELETE FROM table_row_counts WHERE table_name = 'zz_dictionary_probe'`)
    }

    // the page reads what the load kept (a sentinel here) rather than counting, and reads it again for a new data version
    await pool.query(`UPDATE table_row_counts SET row_count = 123456789 WHERE table_name = 'plan_cost_sharing'`)
    await pool.query(`INSERT INTO data_loads (kind, scale, status, finished_at) VALUES ('import', 'dictionary-test', 'done', now())`)
    const tabOf = (body: { tab_sets: { tabs: { table: string; row_count: number | null }[] }[] }) =>
      body.tab_sets.flatMap((set) => set.tabs).find((tab) => tab.table === 'plan_cost_sharing')!
    const sentinel = await request(ctx.app.server).get('/api/data-dictionary')
    expect(tabOf(sentinel.body).row_count).toBe(123456789)
    await finishImport()
    const live = await pool.query<{ n: string }>('SELECT count(*)::text AS n FROM plan_cost_sharing')
    const recounted = await request(ctx.app.server).get('/api/data-dictionary')
    expect(tabOf(recounted.body).row_count).toBe(Number(live.rows[0]!.n))
  })

  it('counts rows of an existing table and answers null for a missing one', async () => {
    const users = await ctx.db.pool.query<{ n: string }>('SELECT count(*)::text AS n FROM users')
    expect(await rowCountOf(ctx.db.pool, 'users')).toEqual({ count: Number(users.rows[0]!.n), estimate: false })
    expect(await rowCountOf(ctx.db.pool, 'table_that_does_not_exist')).toEqual({ count: null, estimate: false })
    expect(await rowCountOf(ctx.db.pool, 'bad"name; drop table users')).toEqual({ count: null, estimate: false })
  })
})
