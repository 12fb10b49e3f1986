import type { UserPrincipal } from '../../auth/principal.js'
import type { PrismaClient } from '../../generated/prisma/client.js'
import type { Outbox } from '../outbox.js'

/** The one chat text of spec 1 §7: e-mail, rating, issues and additional feedback. */
export function feedbackText(input: { email: string; rating: number; issues: string[]; feedback: string }): string {
  return [
    `New feedback from ${input.email}`,
    `Rating: ${input.rating}/5`,
    `Issues: ${input.issues.length > 0 ? input.issues.join(', ') : 'none'}`,
    `Additional feedback: ${input.feedback.trim() || 'none'}`,
  ].join('\n')
}

/**
 * Feedback (spec 1 §7): stored with the user's identity and, when a webhook is configured, its chat text queued
 * in the outbox in the same transaction.
 */
export class FeedbackService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly outbox: Outbox,
    /** FEEDBACK_WEBHOOK_URL; none: the feedback is only stored */
    private readonly webhook: () => string | null | undefined,
  ) {}

  async submit(user: UserPrincipal, input: { rating: number; issues: string[]; feedback: string }) {
    const { rating, issues, feedback } = input
    const webhook = this.webhook()
    return this.prisma.$transaction(async (tx) => {
      const message = webhook
        ? await this.outbox.enqueue(
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
  }
}
