import type { FastifyInstance } from 'fastify'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, testDatabase } from '../../../../../test/helpers.ts'
import type { Database } from '../../db/database.ts'
import { rowCountOf } from './index.ts'

describe('GET /api/data-dictionary', () => {
  let app: FastifyInstance
  let db: Database
  beforeAll(async () => {
    db = testDatabase()
    app = await createTestApp({}, { OUTBOX_POLL_INTERVAL_MS: '0' })
    await app.ready()
  })
  afterAll(async () => {
    await app.close()
    await db.close()
  })

  it('is public and lists the two tab sets of spec 1 §2 with rows and row counts', async () => {
    const response = await request(app.server).get('/api/data-dictionary')
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
    const users = await db.pool.query<{ n: string }>('SELECT count(*)::text AS n FROM users')
    expect(await rowCountOf(db.pool, 'users')).toEqual({ count: Number(users.rows[0]!.n), estimate: false })
    expect(await rowCountOf(db.pool, 'table_that_does_not_exist')).toEqual({ count: null, estimate: false })
    expect(await rowCountOf(db.pool, 'bad"name; drop table users')).toEqual({ count: null, estimate: false })
  })
})
