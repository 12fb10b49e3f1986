import { dataDictionaryEndpoints, type DataDictionaryResponse } from '@citrus/contracts'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import type pg from 'pg'
import { route } from '../../lib/endpoint.js'
import { DATA_DICTIONARY } from './catalogue.js'

/** Above this many rows (by the planner's statistics) the estimate is shown instead of counting. */
const EXACT_COUNT_LIMIT = 1_000_000
const CACHE_MS = 60_000

interface RowCount {
  count: number | null
  estimate: boolean
}

/** Live row count of a table, or null when it does not exist yet; never fails the page. */
export async function rowCountOf(pool: pg.Pool, table: string): Promise<RowCount> {
  try {
    const found = await pool.query<{ oid: string | null; estimate: number | null }>(
      `SELECT to_regclass($1)::oid::text AS oid,
              (SELECT reltuples FROM pg_class WHERE oid = to_regclass($1))::float8 AS estimate`,
      [`public.${table}`],
    )
    const info = found.rows[0]
    if (!info?.oid) return { count: null, estimate: false }
    if (info.estimate !== null && info.estimate > EXACT_COUNT_LIMIT) return { count: Math.round(info.estimate), estimate: true }
    // the name comes from the catalogue, never from the request; quote it anyway
    const counted = await pool.query<{ count: string }>(`SELECT count(*)::text AS count FROM public."${table.replace(/"/g, '""')}"`)
    return { count: Number(counted.rows[0]?.count ?? 0), estimate: false }
  } catch {
    return { count: null, estimate: false }
  }
}

export const dataDictionaryRoutes: FastifyPluginAsyncZod = async (app) => {
  let cached: { at: number; value: DataDictionaryResponse } | null = null

  route(app, dataDictionaryEndpoints.get, {}, async () => {
    if (cached && Date.now() - cached.at < CACHE_MS) return cached.value
    const tab_sets = await Promise.all(
      DATA_DICTIONARY.map(async (set) => ({
        key: set.key,
        title: set.title,
        tabs: await Promise.all(
          set.tabs.map(async (tab) => {
            const rows = await rowCountOf(app.db.pool, tab.table)
            return {
              key: tab.key,
              label: tab.label,
              table: tab.table,
              row_count: rows.count,
              row_count_is_estimate: rows.estimate,
              rows: tab.rows,
            }
          }),
        ),
      })),
    )
    cached = { at: Date.now(), value: { tab_sets } }
    return cached.value
  })
}
