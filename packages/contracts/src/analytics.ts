import { z } from 'zod'
import { defineEndpoint } from './endpoint.js'

/** Events the shell records (spec 1 §7); other areas add their own names. */
export const ANALYTICS_EVENT_NAMES = [
  'product_app_clicked',
  'data_dictionary_tab_changed',
  'user_logged_in',
  'user_logged_out',
  'error_occurred',
  'legacy_uppercase_role_detected',
] as const
export const ANALYTICS_EVENT_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/
export const ANALYTICS_MAX_EVENTS_PER_REQUEST = 50

const propertyValue = z.union([z.string().max(2000), z.number(), z.boolean(), z.null()])

export const analyticsEventSchema = z.object({
  name: z.string().regex(ANALYTICS_EVENT_NAME_PATTERN, 'Event names are snake_case, at most 64 characters'),
  properties: z
    .record(z.string().max(100), propertyValue)
    .refine((value) => Object.keys(value).length <= 50, 'At most 50 properties')
    .optional(),
  occurred_at: z.iso.datetime({ offset: true }).optional(),
})
export const analyticsEventsRequestSchema = z
  .object({ events: z.array(analyticsEventSchema).min(1).max(ANALYTICS_MAX_EVENTS_PER_REQUEST) })
  .meta({ id: 'AnalyticsEventsRequest' })
export const analyticsEventsResponseSchema = z.object({ accepted: z.number().int() }).meta({ id: 'AnalyticsEventsResponse' })

export const analyticsEndpoints = {
  events: defineEndpoint({
    method: 'POST',
    path: '/analytics/events',
    summary: 'Record product analytics events; identity comes from the credential (anonymous and guest callers allowed)',
    tags: ['analytics'],
    body: analyticsEventsRequestSchema,
    response: analyticsEventsResponseSchema,
    status: 202,
    errors: [400, 429],
  }),
} as const
