import { FEEDBACK_MESSAGES, feedbackEndpoints } from '@citrus/contracts'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { route } from '../../lib/endpoint.js'
import { userOf } from '../../plugins/auth.js'
import { FeedbackService } from '../../services/feedback/service.js'

export const feedbackRoutes: FastifyPluginAsyncZod = async (app) => {
  const feedback = new FeedbackService(app.db.prisma, app.services.outbox, () => app.services.feedbackWebhookUrl)
  route(app, feedbackEndpoints.submit, { onRequest: app.authenticate }, async (request) => {
    const saved = await feedback.submit(userOf(request), request.body)
    return { id: saved.id, message: FEEDBACK_MESSAGES.success, message_id: saved.message_id }
  })
}
