import type { ProcedureCostResponse, ProductGroup, ShareProviderCostResponse, procedureCostQuerySchema } from '@citrus/contracts'
import type pg from 'pg'
import type { z } from 'zod'
import type { UserPrincipal } from '../../auth/principal.js'
import type { PrismaClient } from '../../db/database.js'
import { holdsProduct, type PolicyReader } from '../../domain/administration.js'
import type { Charge } from '../../domain/credits.js'
import { PriceCheck, type ProviderPageQuery } from './price-check.js'
import { shareProviderPage } from './share.js'

export interface CostTransparencyDependencies {
  pool: pg.Pool
  prisma: PrismaClient
  /** signs the link tokens of shared pages */
  secret: string
  publicUrl: string
}

/** The metering of one call, as the request knows it: the caller's company, its policies, and the meter. */
export interface MeterCall {
  /** the caller's company (a link guest: the link owner's); null when anonymous */
  company_id: number | null
  readPolicy: PolicyReader
  /** takes one credit of the product (402 when the cycle's are spent) */
  meter(product: ProductGroup): Promise<Charge>
}

/**
 * Price Check and provider cost transparency (spec 3 §2.6, §2.7, §7; spec 4 §5), what routes/cost-transparency calls:
 * the searches and pages of PriceCheck (price-check.ts, cached per data version, docs/decisions/0028, 0029, 0075), their
 * answers as JSON text (docs/decisions/0051), the metering, and a member's shared cost page (share.ts).
 */
export class CostTransparencyService {
  private readonly priceCheck: PriceCheck

  constructor(private readonly deps: CostTransparencyDependencies) {
    this.priceCheck = new PriceCheck(deps.pool)
  }

  /**
   * Not product-gated (spec 1): metered against the company's SEARCH policy when it has one, else free. The policy was
   * read with the login principal (plugins/auth.ts), so a company without one costs no query (docs/decisions/0051).
   * The charge taken, or null when none was.
   */
  async meter(call: MeterCall): Promise<Charge | null> {
    if (call.company_id === null) return null
    if (!(await holdsProduct(call.readPolicy, call.company_id, 'SEARCH'))) return null
    return call.meter('SEARCH')
  }

  /**
   * A Price Check search's answer as JSON text: the cached part was serialised once, when it was computed, and the
   * request's own fields (payment_perspective, procedure_codes, cached) are spliced after it. The shape is the
   * contract's by construction (typed) and the integration tests parse every answer with the contract's schema.
   */
  async procedureJson(query: z.output<typeof procedureCostQuerySchema>, version: string): Promise<string> {
    const input = {
      zip_code: query.zip_code,
      procedure_codes: query.procedure_codes_csv,
      radius_in_m: query.radius_in_m,
      payment_perspective: query.payment_perspective,
    }
    const { entry, cached } = await this.priceCheck.search(input, version, query._bypass_cache)
    const tail: Pick<ProcedureCostResponse, 'payment_perspective' | 'procedure_codes' | 'cached'> = {
      payment_perspective: input.payment_perspective ?? null,
      procedure_codes: input.procedure_codes,
      cached,
    }
    return `${entry.json.slice(0, -1)},${JSON.stringify(tail).slice(1)}`
  }

  /**
   * A provider's cost page as JSON text; with procedure codes, the listed price of a Price Check procedure (the same
   * functions, reference and cached search as Price Check's). Typed by construction; the integration tests parse the
   * answers with the contract's schema (as for the search). `version`: the request's data version, read when needed.
   */
  async providerJson(npi: string, query: ProviderPageQuery, version: () => Promise<string>): Promise<string> {
    return JSON.stringify(await this.priceCheck.providerPage(npi, query, version))
  }

  /** A member shares a provider cost page: the server fixes the scope (this page, this endpoint, public, 30 days). */
  shareProvider(user: UserPrincipal, npi: string): Promise<ShareProviderCostResponse> {
    const { prisma, secret, publicUrl } = this.deps
    return shareProviderPage({ prisma, secret, publicUrl }, user, npi)
  }
}
