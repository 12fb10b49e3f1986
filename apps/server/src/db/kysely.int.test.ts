import { describe, expect, it } from 'vitest'
import { useTestDatabase } from '../../../../test/helpers.ts'
import { kyselyOf, type Row } from './kysely.ts'

describe('the typed query builder (db/kysely.ts)', () => {
  const ctx = useTestDatabase({ dataset: true })

  it('reads rows typed from the schema, the same rows a raw statement reads', async () => {
    const typed: Pick<Row<'providers'>, 'npi' | 'primary_taxonomy_code'>[] = await kyselyOf(ctx.db.pool)
      .selectFrom('providers')
      .select(['npi', 'primary_taxonomy_code'])
      .orderBy('npi')
      .limit(5)
      .execute()
    const { rows } = await ctx.db.pool.query<{ npi: string; primary_taxonomy_code: string }>(
      'SELECT npi, primary_taxonomy_code FROM providers ORDER BY npi LIMIT 5',
    )
    expect(typed).toHaveLength(5)
    expect(typed).toEqual(rows)
  })

  it('keeps one builder per pool', () => {
    expect(kyselyOf(ctx.db.pool)).toBe(kyselyOf(ctx.db.pool))
  })
})
