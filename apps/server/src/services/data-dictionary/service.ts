import type { DataDictionaryResponse } from '@citrus/contracts'
import type pg from 'pg'
import { rowCountOf, storedTableCounts } from '../../data/table-counts.js'
import { DATA_DICTIONARY } from './catalogue.js'

/**
 * The data dictionary: the catalogue with each relation's row count as the last data load kept it
 * (data/table-counts.ts), counted live only for a relation no load has counted yet. The answer changes only with
 * the data version, so it is kept per version.
 */
export class DataDictionaryService {
  private kept: { version: string; value: Promise<DataDictionaryResponse> } | null = null

  constructor(private readonly pool: pg.Pool) {}

  /** The dictionary of a data version (the one kept when the version is the same). */
  get(version: string): Promise<DataDictionaryResponse> {
    if (this.kept?.version !== version) {
      const value = this.build()
      const kept = (this.kept = { version, value })
      // a failed build is not kept
      value.catch(() => {
        if (this.kept === kept) this.kept = null
      })
    }
    return this.kept.value
  }

  private async build(): Promise<DataDictionaryResponse> {
    const stored = await storedTableCounts(this.pool)
    const tab_sets = await Promise.all(
      DATA_DICTIONARY.map(async (set) => ({
        key: set.key,
        title: set.title,
        tabs: await Promise.all(
          set.tabs.map(async (tab) => {
            const rows = stored.get(tab.table) ?? (await rowCountOf(this.pool, tab.table))
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
}
