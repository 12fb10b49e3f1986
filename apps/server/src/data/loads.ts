import type pg from 'pg'
import type { Row } from '../db/kysely.js'
import { refreshTableCounts } from './table-counts.js'

/** The data_loads journal: what was loaded (seed scale and seed, or import kind and file), counts, timing. */
export async function startLoad(client: pg.ClientBase, load: { kind: 'seed' | 'import'; scale: string; seed?: number | null; source_file?: string | null }): Promise<number> {
  const { rows } = await client.query<Pick<Row<'data_loads'>, 'id'>>(
    `INSERT INTO data_loads (kind, scale, seed, source_file, status) VALUES ($1, $2, $3, $4, 'running') RETURNING id`,
    [load.kind, load.scale, load.seed ?? null, load.source_file ?? null],
  )
  return rows[0]!.id
}

export async function finishLoad(client: pg.ClientBase, id: number, counts: object): Promise<void> {
  await refreshTableCounts(client, id)
  await client.query(`UPDATE data_loads SET status = 'done', counts = $2::jsonb, finished_at = now() WHERE id = $1`, [id, JSON.stringify(counts)])
}

export async function failLoad(client: pg.ClientBase, id: number, counts: object, error: unknown): Promise<void> {
  const message = error instanceof Error ? error.message : String(error)
  await client.query(`UPDATE data_loads SET status = 'failed', counts = $2::jsonb, error = $3, finished_at = now() WHERE id = $1`, [id, JSON.stringify(counts), message.slice(0, 2000)])
}

/** A row of data_loads; `counts` is a JSON object (rows per table, or what an import read and wrote). */
export type DataLoadRow = Omit<Row<'data_loads'>, 'counts'> & { counts: Record<string, unknown> }

/** The latest completed seed, or null when the synthetic dataset was never loaded. */
export async function latestSeed(pool: pg.Pool | pg.ClientBase): Promise<DataLoadRow | null> {
  const { rows } = await pool.query<DataLoadRow>(
    `SELECT * FROM data_loads WHERE kind = 'seed' AND status = 'done' ORDER BY finished_at DESC, id DESC LIMIT 1`,
  )
  return rows[0] ?? null
}

export async function listLoads(pool: pg.Pool | pg.ClientBase, limit = 20): Promise<DataLoadRow[]> {
  const { rows } = await pool.query<DataLoadRow>(`SELECT * FROM data_loads ORDER BY id DESC LIMIT $1`, [limit])
  return rows
}
