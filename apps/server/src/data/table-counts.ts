import type pg from 'pg'
import type { Row } from '../db/kysely.js'
import { FILLED_AGGREGATE_SOURCES } from './refresh.js'

/** Above this many rows (by the planner's statistics) the estimate is kept instead of counting. */
const EXACT_COUNT_LIMIT = 1_000_000

export interface RowCount {
  count: number | null
  estimate: boolean
}

type Queryable = pg.Pool | pg.ClientBase

/** Live row count of a relation, or null when it does not exist yet; never throws. */
export async function rowCountOf(db: Queryable, table: string): Promise<RowCount> {
  try {
    const found = await db.query<{ oid: string | null; estimate: number | null }>(
      `SELECT to_regclass($1)::oid::text AS oid,
              (SELECT reltuples FROM pg_class WHERE oid = to_regclass($1))::float8 AS estimate`,
      [`public.${table}`],
    )
    const info = found.rows[0]
    if (!info?.oid) return { count: null, estimate: false }
    if (info.estimate !== null && info.estimate > EXACT_COUNT_LIMIT) return { count: Math.round(info.estimate), estimate: true }
    // the name comes from the catalogue or pg_class, never from a request; quote it anyway
    const counted = await db.query<{ count: string }>(`SELECT count(*)::text AS count FROM public."${table.replace(/"/g, '""')}"`)
    return { count: Number(counted.rows[0]?.count ?? 0), estimate: false }
  } catch {
    return { count: null, estimate: false }
  }
}

/**
 * Counts every table, view and materialised view of the public schema as a data load leaves it and keeps the
 * counts in table_row_counts, so that the data dictionary reads them instead of counting on a request (a
 * million-row count takes seconds on the embedded database). Runs on the load's own connection before the load
 * is marked done: a process that sees the new data version also sees its counts.
 */
export async function refreshTableCounts(client: pg.ClientBase, loadId: number): Promise<void> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm') AND c.relname NOT IN ('_prisma_migrations', 'table_row_counts')
       AND NOT c.relispartition
       -- not the views that define the filled aggregates (data/refresh.ts): counting one runs the whole aggregate
       AND c.relname <> ALL($1::text[])
     ORDER BY c.relname`,
    [FILLED_AGGREGATE_SOURCES],
  )
  const names: string[] = []
  const counts: number[] = []
  const estimates: boolean[] = []
  for (const { name } of rows) {
    const counted = await rowCountOf(client, name)
    if (counted.count === null) continue
    names.push(name)
    counts.push(counted.count)
    estimates.push(counted.estimate)
  }
  await client.query(
    `INSERT INTO table_row_counts (table_name, row_count, is_estimate, data_load_id, counted_at)
     SELECT t.name, t.n, t.e, $4, now() FROM unnest($1::text[], $2::bigint[], $3::boolean[]) AS t(name, n, e)
     ON CONFLICT (table_name) DO UPDATE SET row_count = EXCLUDED.row_count, is_estimate = EXCLUDED.is_estimate,
       data_load_id = EXCLUDED.data_load_id, counted_at = EXCLUDED.counted_at`,
    [names, counts, estimates, loadId],
  )
}

/** The counts the last data loads kept, by relation name. */
export async function storedTableCounts(db: Queryable): Promise<Map<string, RowCount>> {
  const { rows } = await db.query<Pick<Row<'table_row_counts'>, 'table_name' | 'row_count' | 'is_estimate'>>(
    `SELECT table_name, row_count::text, is_estimate FROM table_row_counts`,
  )
  return new Map(rows.map((row) => [row.table_name, { count: Number(row.row_count), estimate: row.is_estimate }]))
}
