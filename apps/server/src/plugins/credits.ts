import { AUTH_MESSAGES, type ProductGroup } from '@citrus/contracts'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { CreditService, type Charge } from '../domain/credits.js'
import { unauthorized } from '../lib/errors.js'
import { policyOf } from './auth.js'
import fp from 'fastify-plugin'

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>

declare module 'fastify' {
  interface FastifyInstance {
    credits: CreditService
    /**
     * Takes one credit of `product` from the caller's company (a guest spends the link owner's
     * company's credits); throws 402 CREDITS_EXHAUSTED when the cycle's credits are spent.
     */
    meter(request: FastifyRequest, product: ProductGroup): Promise<Charge>
    /** `preHandler: app.meterProduct('ATLAS')`: meters a route after its access guard and input validation. */
    meterProduct(product: ProductGroup): Hook
  }
  interface FastifyRequest {
    /** the credit this request took (given back when the request ends in a 5xx) */
    creditCharge: Charge | null
  }
}

export const CREDITS_REMAINING_HEADER = 'x-credits-remaining'

/** Product credits for the /api scope (docs/decisions/0007-credits.md). Register after auth, before routes. */
export function registerCredits(app: FastifyInstance) {
  const credits = new CreditService(app.db.prisma, app.db.pool)
  app.decorate('credits', credits)
  app.decorateRequest('creditCharge', null)

  async function meter(request: FastifyRequest, product: ProductGroup): Promise<Charge> {
    const principal = request.auth
    if (!principal) throw request.authError ?? unauthorized(AUTH_MESSAGES.authRequired)
    // the login check or the access guard already read the policy (plugins/auth.ts): no query for it here
    const charge = await credits.consume(principal.company_id, product, new Date(), await policyOf(request, principal.company_id, product))
    request.creditCharge = charge
    return charge
  }
  app.decorate('meter', meter)
  app.decorate('meterProduct', (product: ProductGroup): Hook => {
    return async function meterHook(request, reply) {
      const charge = await meter(request, product)
      if (charge.remaining !== null) reply.header(CREDITS_REMAINING_HEADER, String(charge.remaining))
    }
  })

  // A call that failed on the server's side does not cost a credit.
  app.addHook('onResponse', async (request, reply) => {
    const charge = request.creditCharge
    if (charge && reply.statusCode >= 500) {
      request.creditCharge = null
      await credits.refund(charge).catch((error: unknown) => request.log.warn({ err: error }, 'credit refund failed'))
    }
  })
}

/** Product credits as a plugin of the /api scope; meters the principal the auth plugin resolved. */
export const creditsPlugin = fp(async (app) => registerCredits(app), { name: 'credits', fastify: '5.x', dependencies: ['auth'] })
