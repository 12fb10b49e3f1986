import { analyticsEndpoints } from '@citrus/contracts'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import type { Prisma } from '../../generated/prisma/client.js'
import type { Principal } from '../../auth/principal.js'
import { route } from '../../lib/endpoint.js'

/** Client clocks drift: occurred_at further than this from the server's clock is replaced by the receive time. */
const MAX_CLOCK_SKEW_MS = 24 * 60 * 60 * 1000
/** per client address; a cluster's processes each allow their share, so the whole server allows this many */
const ANALYTICS_EVENTS_PER_MINUTE = 300

/** The identifying fields of spec 1 §6 (user id, e-mail, company id, role, company name) from the credential. */
function identityOf(principal: Principal | null) {
  if (principal?.kind === 'user') {
    return {
      user_id: principal.user_id,
      email: principal.email,
      company_id: principal.company_id,
      role: principal.role,
      company_name: principal.company_name,
      share_id: null,
    }
  }
  if (principal?.kind === 'guest') {
    return { user_id: null, email: null, company_id: null, role: 'guest', company_name: null, share_id: principal.share_id }
  }
  return { user_id: null, email: null, company_id: null, role: null, company_name: null, share_id: null }
}

export const analyticsRoutes: FastifyPluginAsyncZod = async (app) => {
  route(
    app,
    analyticsEndpoints.events,
    { config: { rateLimit: { max: ANALYTICS_EVENTS_PER_MINUTE, timeWindow: 60_000 } } },
    async (request, reply) => {
      // An invalid or expired credential does not block analytics: the events are stored anonymously.
      const identity = identityOf(request.auth)
      const now = Date.now()
      const data = request.body.events.map((event) => {
        const stamped = event.occurred_at ? Date.parse(event.occurred_at) : now
        const occurred = Math.abs(stamped - now) <= MAX_CLOCK_SKEW_MS ? stamped : now
        return {
          name: event.name,
          ...(event.properties ? { properties: event.properties as Prisma.InputJsonValue } : {}),
          occurred_at: new Date(occurred),
          ...identity,
        }
      })
      const { count } = await app.db.prisma.analyticsEvent.createMany({ data })
      return reply.status(202).send({ accepted: count })
    },
  )
}
