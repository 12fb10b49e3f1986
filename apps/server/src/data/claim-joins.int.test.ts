import { describe, expect, it } from 'vitest'
import { claimJoins } from '../../../../test/claim-joins.ts'
import { useTestDatabase } from '../../../../test/helpers.ts'
import { FILLED_AGGREGATE_SOURCES } from './refresh.ts'

describe('the views over claims on the migrated database', () => {
  const ctx = useTestDatabase()

  it('join claims with their lines on the patient too (co-located under Citus, docs/scaling.md)', async () => {
    const { rows } = await ctx.db.pool.query<{ name: string; definition: string }>(
      `SELECT viewname AS name, definition FROM pg_views WHERE schemaname = current_schema()
       UNION ALL SELECT matviewname, definition FROM pg_matviews WHERE schemaname = current_schema() ORDER BY 1`,
    )
    const joins = rows.flatMap((view) => claimJoins(view.definition).map((join) => ({ view: view.name, ...join })))
    // the views the claim aggregates are filled from join claims with their diagnoses and lines
    expect(new Set(joins.map((j) => j.view))).toEqual(new Set(FILLED_AGGREGATE_SOURCES))
    expect(joins).toHaveLength(4)
    expect(joins.filter((j) => !j.colocated)).toEqual([])
  })
})
