import type { FastifyInstance } from 'fastify'
import type pg from 'pg'
import { kyselyOf } from '../../db/kysely.js'
import { readPool } from '../../db/replicas.js'
import { engineBudgetStats, engineMemoryBudget } from '../../lib/engine-budget.js'
import { warmEachVersion } from '../../engines/warm.js'
import { dataVersion } from '../../lib/versioned-cache.js'
import {
  candidateIndexMaxProviders,
  careSelectCandidates,
  heldProviders,
  heldSpecialtyIndex,
} from '../../engines/care-select/candidate-index.js'

/** What one warm-up of a data version did. */
export interface CareWarmResult {
  version: string
  /** specialties indexed by this warm-up, in order */
  built: string[]
  /** specialties left alone, and why */
  skipped: { taxonomy: string; reason: 'no providers' | 'held' | 'provider bound' | 'memory budget' | 'new data version' }[]
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * Prepares Care Select for `version` before anyone searches (issue 33 item 14): the facilities' points, then the
 * candidate index of each of `taxonomies` in their order, one at a time, yielding to the event loop between builds
 * (requests are served meanwhile, and a search of a specialty being built shares its build). A specialty without
 * providers or already held is skipped; the warm-up stops before a build that would take the held providers over
 * CANDIDATE_INDEX_MAX_PROVIDERS or the held bytes over ENGINE_MEMORY_BUDGET_MB (estimated from the indexes held, so
 * that warming never drops an index a search built), and when a newer data version has finished meanwhile (the next
 * warm-up takes it).
 */
export async function warmCareSelect(pool: pg.Pool, version: string, taxonomies: readonly string[]): Promise<CareWarmResult> {
  const result: CareWarmResult = { version, built: [], skipped: [] }
  await careSelectCandidates.build(pool, version, true)
  if (taxonomies.length === 0) return result
  const counted = await kyselyOf(await readPool(pool))
    .selectFrom('providers')
    .select(['primary_taxonomy_code', (eb) => eb.fn.countAll<string>().as('n')])
    .where('primary_taxonomy_code', 'in', [...taxonomies])
    .groupBy('primary_taxonomy_code')
    .execute()
  const sizes = new Map(counted.map((row) => [row.primary_taxonomy_code, Number(row.n)]))
  for (const [k, taxonomy] of taxonomies.entries()) {
    const size = sizes.get(taxonomy) ?? 0
    if (size === 0) {
      result.skipped.push({ taxonomy, reason: 'no providers' })
      continue
    }
    if (heldSpecialtyIndex(pool, version, taxonomy)) {
      result.skipped.push({ taxonomy, reason: 'held' })
      continue
    }
    const stop = (reason: CareWarmResult['skipped'][number]['reason']) =>
      result.skipped.push(...taxonomies.slice(k).map((t) => ({ taxonomy: t, reason })))
    if ((await dataVersion(pool)) !== version) {
      stop('new data version')
      break
    }
    const providers = heldProviders(pool, version)
    if (providers + size > candidateIndexMaxProviders()) {
      stop('provider bound')
      break
    }
    const budget = engineMemoryBudget()
    if (Number.isFinite(budget)) {
      // bytes a provider takes in the indexes held (none held yet: the first is built if anything is left)
      const perProvider = providers > 0 ? careSelectCandidates.memory(pool) / providers : 0
      if (engineBudgetStats().heldBytes + perProvider * size > budget) {
        stop('memory budget')
        break
      }
    }
    await careSelectCandidates.rows(pool, version, { taxonomy })
    result.built.push(taxonomy)
    await nextTurn()
  }
  return result
}

/**
 * Warms Care Select for each data version as soon as it exists (warmCareSelect with CARE_SELECT_WARM_SPECIALTIES),
 * as the Atlas indexes are warmed (engines/warm.ts).
 */
export function warmCareSelectIndexes(app: FastifyInstance): void {
  const taxonomies = app.config.env.CARE_SELECT_WARM_SPECIALTIES
  // none configured: nothing is warmed, every specialty (and the facilities' points) is built on its first search
  if (taxonomies.length === 0) return
  warmEachVersion(app, {
    done: 'Care Select indexes built',
    failed: 'warming Care Select failed; searches build their specialty on first use until the next data version',
    warm: async (pool, version) => {
      const { built, skipped } = await warmCareSelect(pool, version, taxonomies)
      return { built, skipped }
    },
  })
}
