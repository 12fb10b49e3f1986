import { PRICE_CHECK_DEFAULT_RADIUS_M, type ProcedureCostResponse, type ProviderCostResponse } from '@citrus/contracts'
import type pg from 'pg'
import { readPoolForRequest, readPoolForVersion } from '../../db/replicas.js'
import { reportCacheLookups } from '../../lib/engine-stats.js'
import { VersionedLruCache } from '../../lib/versioned-cache.js'
import { loadPricingReference, priceProcedure, type PricingReference, type ProcedureCostInput } from './pricing.js'
import { providerCosts, type ListedPriceRequest } from './provider.js'

/** Bounds of the Price Check cache (docs/decisions/0028): entries, and how long one lives at most. */
export const PRICE_CACHE_MAX_ENTRIES = 1_000
export const PRICE_CACHE_TTL_MS = 10 * 60 * 1000

/** A cached answer: the figures, and their JSON (serialised once) without the request's own fields. */
export interface PriceCacheEntry {
  value: Omit<ProcedureCostResponse, 'cached' | 'payment_perspective' | 'procedure_codes'>
  json: string
}

/** The Price Check service of each database, for GET /metrics (lib/engine-stats.ts). */
const services = new WeakMap<pg.Pool, PriceCheck>()
reportCacheLookups('price_check', (pool) => services.get(pool)?.cache.stats ?? { hits: 0, misses: 0 })

/** What the cost page is asked besides the NPI (the contract's query). */
export interface ProviderPageQuery {
  procedure_codes_csv?: string[] | undefined
  zip_code?: string | undefined
  radius_in_m?: number | undefined
  payment_perspective?: string | undefined
}

/**
 * Price Check and the provider cost page (docs/decisions/0028, 0029, 0075): the answers of Price Check searches kept
 * per data version, and the pricing reference (cost sharing, insurer kinds) loaded once per data version. The cost
 * page's listed price uses the same functions, reference and cached search as Price Check's. Their reads are
 * read-only and run on a read replica that holds the request's data version, else on the primary (`pool`;
 * docs/decisions/0078).
 */
export class PriceCheck {
  readonly cache = new VersionedLruCache<PriceCacheEntry>(PRICE_CACHE_MAX_ENTRIES, PRICE_CACHE_TTL_MS)
  private reference: { version: string; value: Promise<PricingReference> } | null = null

  constructor(private readonly pool: pg.Pool) {
    services.set(pool, this)
  }

  /** cost sharing and insurer kinds, per data version, read on `reader` (a pool at that version or newer) */
  referenceFor(version: string, reader: pg.Pool): Promise<PricingReference> {
    if (this.reference?.version !== version) {
      const value = loadPricingReference(reader)
      value.catch(() => (this.reference = null))
      this.reference = { version, value }
    }
    return this.reference.value
  }

  /** A Price Check search's answer (from the cache, else computed and kept): the one source of its figures. */
  async search(input: ProcedureCostInput, version: string, bypass: boolean): Promise<{ entry: PriceCacheEntry; cached: boolean }> {
    const key = JSON.stringify([
      input.zip_code,
      [...input.procedure_codes].sort(),
      input.radius_in_m,
      input.payment_perspective?.toLowerCase() ?? null,
    ])
    if (!bypass) {
      const hit = this.cache.get(key, version)
      if (hit) return { entry: hit, cached: true }
    }
    const reader = await readPoolForVersion(this.pool, version)
    // the input check and the prices are one statement (docs/decisions/0062); a 400 wins over the figures
    const priced = await priceProcedure(reader, await this.referenceFor(version, reader), input)
    const { payment_perspective: _payer, procedure_codes: _codes, ...result } = priced
    const entry = { value: result, json: JSON.stringify(result) }
    this.cache.set(key, version, entry)
    return { entry, cached: false }
  }

  /**
   * The cost page of an NPI; with procedure codes, the listed price of a Price Check procedure (and, with a ZIP, its
   * affordability among that search's facilities: the cached search). `version`: the request's data version.
   */
  async providerPage(npi: string, query: ProviderPageQuery, version: () => Promise<string>): Promise<ProviderCostResponse> {
    const reader = await readPoolForRequest(this.pool, version)
    let listed: ListedPriceRequest | null = null
    if (query.procedure_codes_csv) {
      const at = await version()
      const codes = query.procedure_codes_csv
      const zip = query.zip_code
      const radius = query.radius_in_m ?? PRICE_CHECK_DEFAULT_RADIUS_M
      listed = {
        codes,
        reference: await this.referenceFor(at, reader),
        search: zip
          ? {
              zip_code: zip,
              radius_in_m: radius,
              facilities: async () => {
                const input = { zip_code: zip, procedure_codes: codes, radius_in_m: radius, payment_perspective: query.payment_perspective }
                return (await this.search(input, at, false)).entry.value.cost_by_hco
              },
            }
          : null,
      }
    }
    return providerCosts(reader, npi, query.payment_perspective, listed)
  }
}
