import { dataDictionaryEndpoints, type DataDictionaryResponse } from '@citrus/contracts'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { rowCountOf, storedTableCounts } from '../../data/table-counts.js'
import { route } from '../../lib/endpoint.js'
import { requestDataVersion } from '../../lib/versioned-cache.js'
import { DATA_DICTIONARY } from './catalogue.js'

/**
 * The data dictionary: the catalogue with each relation's row count as the last data load kept it
 * (data/table-counts.ts), counted live only for a relation no load has counted yet. The answer changes only with
 * the data version, so it is kept per version.
 */
export const dataDictionaryRoutes: FastifyPluginAsyncZod = async (app) => {
  let kept: { version: string; value: Promise<DataDictionaryResponse> } | null = null

  const build = async (): Promise<DataDictionaryResponse> => {
    const stored = await storedTableCounts(app.db.pool)
    const tab_sets = await Promise.all(
      DATA_DICTIONARY.map(async (set) => ({
        key: set.key,
        title: set.title,
        tabs: await Promise.all(
          set.tabs.map(async (tab) => {
            const rows = stored.get(tab.table) ?? (await rowCountOf(app.db.pool, tab.table))
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
    return { tab_sets }
  }

  // an ETag of the data version: a repeat gets 304 (docs/decisions/0077)
  route(app, dataDictionaryEndpoints.get, { preHandler: app.conditional() }, async (request) => {
    const version = await requestDataVersion(request)
    if (kept?.version !== version) {
      const value = build()
      kept = { version, value }
      // a failed build is not kept
      value.catch(() => {
        if (kept?.value === value) kept = null
      })
    }
    return kept.value
  })
}
