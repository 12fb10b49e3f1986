import { z } from 'zod'
import { defineEndpoint } from './endpoint.js'

/** Issue options of the feedback form (spec 1 §9); free text is allowed as well. */
export const FEEDBACK_ISSUE_OPTIONS = [
  'search not relevant',
  'difficulty navigating',
  'slow performance',
  'inaccurate results',
  'missing features',
  'crashes or bugs',
  'other',
] as const
export const FEEDBACK_DEFAULT_RATING = '3'
export const FEEDBACK_MESSAGES = {
  success: 'Feedback submitted successfully!',
  failedKey: 'feedback_submission_failed',
  ratingRange: 'Rating must be a whole number from 1 to 5',
} as const

export const feedbackRequestSchema = z
  .object({
    // the form holds the rating as a string ('3' by default)
    rating: z.coerce
      .number({ error: FEEDBACK_MESSAGES.ratingRange })
      .int(FEEDBACK_MESSAGES.ratingRange)
      .min(1, FEEDBACK_MESSAGES.ratingRange)
      .max(5, FEEDBACK_MESSAGES.ratingRange),
    issues: z.array(z.string().trim().min(1).max(200)).max(20).default([]),
    feedback: z.string().max(5000).default(''),
  })
  .meta({ id: 'FeedbackRequest' })
export const feedbackResponseSchema = z
  .object({
    id: z.number().int(),
    message: z.string(),
    message_id: z.string().nullable().describe('outbox message forwarding it to the chat webhook; null when none is configured'),
  })
  .meta({ id: 'FeedbackResponse' })

export const feedbackEndpoints = {
  submit: defineEndpoint({
    method: 'POST',
    path: '/feedback',
    summary: 'Store feedback and forward it to the chat webhook through the outbox (when FEEDBACK_WEBHOOK_URL is set)',
    tags: ['feedback'],
    security: ['bearer'],
    body: feedbackRequestSchema,
    response: feedbackResponseSchema,
    errors: [400, 401, 403],
  }),
} as const
