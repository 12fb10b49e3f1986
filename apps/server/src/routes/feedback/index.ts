import { FEEDBACK_MESSAGES, errorEnvelopeSchema, feedbackRequestSchema, feedbackResponseSchema } from '@citrus/contracts'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { userOf } from '../../plugins/auth.js'

const tags = ['feedback']

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
  app.post(
    '/',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        summary: 'Store feedback and forward it to the chat webhook through the outbox (when FEEDBACK_WEBHOOK_URL is set)',
        security: [{ bearer: [] }],
        body: feedbackRequestSchema,
        response: { 200: feedbackResponseSchema, 400: errorEnvelopeSchema, 401: errorEnvelopeSchema, 403: errorEnvelopeSchema },
      },
    },
    async (request) => {
      const user = userOf(request)
      const { rating, issues, feedback } = request.body
      const webhook = app.services.feedbackWebhookUrl
      const saved = await app.db.prisma.$transaction(async (tx) => {
        const message = webhook
          ? await app.services.outbox.enqueue(
              { channel: 'webhook', recipient: webhook, subject: 'feedback', body: feedbackText({ email: user.email, rating, issues, feedback }) },
              tx,
            )
          : null
        return tx.feedbackSubmission.create({
          data: { user_id: user.user_id, company_id: user.company_id, email: user.email, rating, issues, feedback, message_id: message?.id ?? null },
        })
      })
      return { id: saved.id, message: FEEDBACK_MESSAGES.success, message_id: saved.message_id }
    },
  )
}
