import type pg from 'pg'
import type { Row } from '../db/kysely.js'

/** The insurer names searches filter by (spec 3 §7), sorted byte-wise as the clients expect. */
export async function insurerNames(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<Pick<Row<'insurers'>, 'name'>>('SELECT name FROM insurers ORDER BY name COLLATE "C"')
  return rows.map((r) => r.name)
}
