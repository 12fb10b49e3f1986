import {
  costTransparencyEndpoints,
  PRICE_CHECK_DEFAULT_RADIUS_M,
  PRICE_CHECK_MESSAGES,
  PROVIDER_SHARE_DAYS,
  ROLES,
  type ProcedureCostResponse,
  type ProviderCostResponse,
} from '@citrus/contracts'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import type pg from 'pg'
import { policyOf, userOf } from '../../plugins/auth.js'
import { notFound } from '../../lib/errors.js'
import { route, sendJsonText } from '../../lib/endpoint.js'
import { signShareToken } from '../../auth/tokens.js'
import { CREDITS_REMAINING_HEADER } from '../../plugins/credits.js'
import { requestDataVersion, VersionedLruCache } from '../../lib/versioned-cache.js'
import { reportCacheLookups } from '../../lib/engine-stats.js'
import { loadPricingReference, priceProcedure, type PricingReference, type ProcedureCostInput } from '../../services/pricing/pricing.js'
import { providerCosts, type ListedPriceRequest } from '../../services/pricing/provider.js'

/** Bounds of the Price Check cache (docs/decisions/0028): entries, and how long one lives at most. */
export const PRICE_CACHE_MAX_ENTRIES = 1_000
export const PRICE_CACHE_TTL_MS = 10 * 60 * 1000

/** A cached answer: the figures, and their JSON (serialised once) without the request's own fields. */
export interface PriceCacheEntry {
  value: Omit<ProcedureCostResponse, 'cached' | 'payment_perspective' | 'procedure_codes'>
  json: string
}

declare module 'fastify' {
  interface FastifyInstance {
    priceCache: VersionedLruCache<PriceCacheEntry>
  }
}

/** The Price Check cache of each database's app, for GET /metrics (lib/engine-stats.ts). */
const priceCaches = new WeakMap<pg.Pool, VersionedLruCache<PriceCacheEntry>>()
reportCacheLookups('price_check', (pool) => priceCaches.get(pool)?.stats ?? { hits: 0, misses: 0 })

/**
 * Price Check and provider cost transparency (spec 3 §2.6, §2.7, §7; spec 4 §5). Every signed-in role
 * (members land on /price-check; staff may use it too) and link guests whose link lists the endpoint.
 * Not product-gated (spec 1); metered against the company's SEARCH policy when it has one.
 */
export const costTransparencyRoutes: FastifyPluginAsyncZod = async (app) => {
  const guard = app.requireAccess({ roles: [...ROLES, 'guest'] })

  // Metered against the SEARCH policy when the company has one; the policy was read with the login principal
  // (plugins/auth.ts), so a company without one costs no query here (docs/decisions/0051).
  async function meterSearch(request: FastifyRequest, reply: FastifyReply) {
    const principal = request.auth
    if (!principal) return
    if (!(await policyOf(request, principal.company_id, 'SEARCH'))) return
    const charge = await app.meter(request, 'SEARCH')
    if (charge.remaining !== null) reply.header(CREDITS_REMAINING_HEADER, String(charge.remaining))
  }

  const cache = new VersionedLruCache<PriceCacheEntry>(PRICE_CACHE_MAX_ENTRIES, PRICE_CACHE_TTL_MS)
  app.decorate('priceCache', cache)
  priceCaches.set(app.db.pool, cache)
  // cost sharing and insurer kinds, per data version
  let reference: { version: string; value: Promise<PricingReference> } | null = null
  const referenceFor = (version: string) => {
    if (reference?.version !== version) {
      const value = loadPricingReference(app.db.pool)
      value.catch(() => (reference = null))
      reference = { version, value }
    }
    return reference.value
  }

  const keyOf = (input: ProcedureCostInput) =>
    JSON.stringify([input.zip_code, [...input.procedure_codes].sort(), input.radius_in_m, input.payment_perspective?.toLowerCase() ?? null])
  /** A Price Check search's answer (from the cache, else computed and kept): the one source of its figures. */
  async function searchEntry(
    input: ProcedureCostInput,
    version: string,
    bypass: boolean,
  ): Promise<{ entry: PriceCacheEntry; cached: boolean }> {
    const key = keyOf(input)
    if (!bypass) {
      const hit = cache.get(key, version)
      if (hit) return { entry: hit, cached: true }
    }
    // the input check and the prices are one statement (docs/decisions/0062); a 400 wins over the figures
    const priced = await priceProcedure(app.db.pool, await referenceFor(version), input)
    const { payment_perspective: _payer, procedure_codes: _codes, ...result } = priced
    const entry = { value: result, json: JSON.stringify(result) }
    cache.set(key, version, entry)
    return { entry, cached: false }
  }

  // a repeat with the answer's ETag gets 304 after metering, before any pricing (docs/decisions/0077)
  const metered = { onRequest: guard, preHandler: [meterSearch, app.conditional()] }

  route(app, costTransparencyEndpoints.procedure, metered, async (request, reply) => {
    const query = request.query
    const input = {
      zip_code: query.zip_code,
      procedure_codes: query.procedure_codes_csv,
      radius_in_m: query.radius_in_m,
      payment_perspective: query.payment_perspective,
    }
    const version = await requestDataVersion(request)
    // The answer is written as a string (docs/decisions/0051): the cached part is serialised once, when it is
    // computed, and the request's own fields are spliced around it. The shape is the contract's by construction
    // (typed) and the integration tests parse every answer with the contract's schema.
    const send = (entry: PriceCacheEntry, cached: boolean) => {
      const tail: Pick<ProcedureCostResponse, 'payment_perspective' | 'procedure_codes' | 'cached'> = {
        payment_perspective: input.payment_perspective ?? null,
        procedure_codes: input.procedure_codes,
        cached,
      }
      return sendJsonText(reply, `${entry.json.slice(0, -1)},${JSON.stringify(tail).slice(1)}`)
    }
    const { entry, cached } = await searchEntry(input, version, query._bypass_cache)
    return send(entry, cached)
  })

  route(app, costTransparencyEndpoints.provider, metered, async (request, reply) => {
    const query = request.query
    // the listed price of a Price Check procedure: the same functions, reference and cached search as Price Check's
    let listed: ListedPriceRequest | null = null
    if (query.procedure_codes_csv) {
      const version = await requestDataVersion(request)
      const codes = query.procedure_codes_csv
      const zip = query.zip_code
      const radius = query.radius_in_m ?? PRICE_CHECK_DEFAULT_RADIUS_M
      listed = {
        codes,
        reference: await referenceFor(version),
        search: zip
          ? {
              zip_code: zip,
              radius_in_m: radius,
              facilities: async () => {
                const input = { zip_code: zip, procedure_codes: codes, radius_in_m: radius, payment_perspective: query.payment_perspective }
                return (await searchEntry(input, version, false)).entry.value.cost_by_hco
              },
            }
          : null,
      }
    }
    const body: ProviderCostResponse = await providerCosts(app.db.pool, request.params.npi, query.payment_perspective, listed)
    // typed by construction; the integration tests parse the answers with the contract's schema (as for /procedure)
    return sendJsonText(reply, JSON.stringify(body))
  })

  // A member may share a provider cost page: the server fixes the scope (this page, this endpoint, public, 30 days).
  route(app, costTransparencyEndpoints.shareProvider, { onRequest: app.requireAccess({ roles: [...ROLES] }) }, async (request) => {
    const user = userOf(request)
    const { npi } = request.params
    // the cost page is a clinician's or a facility's (kind: facility), as GET /cost-transparency/provider/{npi} reads it
    const [provider, facility] = await Promise.all([
      app.db.prisma.provider.findUnique({ where: { npi }, select: { id: true } }),
      app.db.prisma.facility.findUnique({ where: { npi }, select: { id: true } }),
    ])
    if (!provider && !facility) throw notFound(PRICE_CHECK_MESSAGES.providerNotFound(npi))
    const page = `/provider-cost-transparency/${npi}`
    const expires = new Date(Date.now() + PROVIDER_SHARE_DAYS * 24 * 60 * 60 * 1000)
    const link = await app.db.prisma.shareableLink.create({
      data: {
        company_id: user.company_id,
        created_by_user_id: user.user_id,
        url: page,
        url_type: 'public',
        expiration_days: PROVIDER_SHARE_DAYS,
        expires_at: expires,
        client_routes: [page],
        api_endpoints: [`GET /cost-transparency/provider/${npi}`],
        incoming_url: page,
        authorized_user_ids: [],
        role: 'member',
      },
    })
    const token = await signShareToken(app.config.jwtSecret, link)
    return { id: link.id, url: `${app.services.publicUrl}${page}?token=${encodeURIComponent(token)}`, expires_at: expires.toISOString() }
  })
}
