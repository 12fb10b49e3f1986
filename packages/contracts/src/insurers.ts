import { z } from 'zod'
import { defineEndpoint } from './endpoint.js'

/** GET /insurers/: the insurance carriers a search can filter by (spec 3 §3, §7). */
export const insurersResponseSchema = z.object({ insurers: z.array(z.string()).describe('insurer names, sorted') }).meta({ id: 'Insurers' })
export type InsurersResponse = z.infer<typeof insurersResponseSchema>

/** Client messages when the list fails to load (spec 3 §8). */
export const INSURER_MESSAGES = {
  careSearchFailed: 'Failed to fetch insurers',
  priceCheckFailed: 'Failed to load insurers',
} as const

export const insurersEndpoints = {
  list: defineEndpoint({
    method: 'GET',
    path: '/insurers/',
    summary: 'Insurer names, sorted',
    tags: ['insurers'],
    security: ['bearer', 'shareToken'],
    response: insurersResponseSchema,
    errors: [401, 403],
  }),
} as const
