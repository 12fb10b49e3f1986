import { analyticsEndpoints } from '@citrus/contracts'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { route } from '../../lib/endpoint.js'
import { AnalyticsService } from '../../services/analytics/events.js'

/** per client address, counted in PostgreSQL (auth/request-rate-store.ts): all server processes together allow this many */
const ANALYTICS_EVENTS_PER_MINUTE = 300

export const analyticsRoutes: FastifyPluginAsyncZod = async (app) => {
  const analytics = new AnalyticsService(app.db.prisma)
  route(
    app,
    analyticsEndpoints.events,
    { config: { rateLimit: { max: ANALYTICS_EVENTS_PER_MINUTE, timeWindow: 60_000 } } },
    // An invalid or expired credential does not block analytics: the events are stored anonymously.
    async (request, reply) => reply.status(202).send({ accepted: await analytics.record(request.auth, request.body.events) }),
  )
}
