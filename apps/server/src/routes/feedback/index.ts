import { FEEDBACK_MESSAGES, feedbackEndpoints } from '@citrus/contracts'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { route } from '../../lib/endpoint.js'
import { userOf } from '../../plugins/auth.js'

/** The one chat text of spec 1 §7: e-mail, rating, issues and additional feedback. */
export function feedbackText(input: { email: string; rating: number; issues: string[]; feedback: string }): string {
  return [
    `New feedback from ${input.email}`,
    `Rating: ${input.rating}/5`,
    `Issues: ${input.issues.length > 0 ? input.issues.join(', ') : 'none'}`,
    `Additional feedback: ${input.feedback.trim() || 'none'}`,
  ].join('\n')
}

export const feedbackRoutes: FastifyPluginAsyncZod = async (app) => {
  route(app, feedbackEndpoints.submit, { onRequest: app.authenticate }, async (request) => {
    const user = userOf(request)
    const { rating, issues, feedback } = request.body
    const webhook = app.services.feedbackWebhookUrl
    const saved = await app.db.prisma.$transaction(async (tx) => {
      const message = webhook
        ? await app.services.outbox.enqueue(
            {
              channel: 'webhook',
              recipient: webhook,
              subject: 'feedback',
              body: feedbackText({ email: user.email, rating, issues, feedback }),
            },
            tx,
          )
        : null
      return tx.feedbackSubmission.create({
        data: {
          user_id: user.user_id,
          company_id: user.company_id,
          email: user.email,
          rating,
          issues,
          feedback,
          message_id: message?.id ?? null,
        },
      })
    })
    return { id: saved.id, message: FEEDBACK_MESSAGES.success, message_id: saved.message_id }
  })
}
