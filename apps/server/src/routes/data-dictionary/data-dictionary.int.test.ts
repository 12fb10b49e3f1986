import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../../../test/helpers.ts'
import { rowCountOf } from './index.ts'

describe('GET /api/data-dictionary', () => {
  const ctx = useTestApp()

  it('is public and lists the two tab sets of spec 1 §2 with rows and row counts', async () => {
    const response = await request(ctx.app.server).get('/api/data-dictionary')
    expect(response.status).toBe(200)
    const sets = response.body.tab_sets as { tabs: { label: string; row_count: number | null; rows: { column: string; type: string; description: string }[] }[] }[]
    expect(sets.map((set) => set.tabs.map((tab) => tab.label))).toEqual([
      ['MEDX CLAIMS', 'HCP DATA', 'HCO DATA', 'PHARMX CLAIMS', 'HCP PRESCRIBER DATA', 'INSURANCE VARIABLES DATA'],
      ['ENCOUNTER HEADER', 'ORDER', 'RESULT', 'PROBLEM', 'MEDICATION DATA'],
    ])
    for (const tab of sets.flatMap((set) => set.tabs)) {
      expect(tab.rows.length, tab.label).toBeGreaterThan(0)
      for (const row of tab.rows) expect(Object.keys(row).sort()).toEqual(expect.arrayContaining(['column', 'description', 'type']))
      // a number once the data platform has created the table, null before
      expect(tab.row_count === null || Number.isInteger(tab.row_count)).toBe(true)
    }
  })

  it('counts rows of an existing table and answers null for a missing one', async () => {
    const users = await ctx.db.pool.query<{ n: string }>('SELECT count(*)::text AS n FROM users')
    expect(await rowCountOf(ctx.db.pool, 'users')).toEqual({ count: Number(users.rows[0]!.n), estimate: false })
    expect(await rowCountOf(ctx.db.pool, 'table_that_does_not_exist')).toEqual({ count: null, estimate: false })
    expect(await rowCountOf(ctx.db.pool, 'bad"name; drop table users')).toEqual({ count: null, estimate: false })
  })
})
