import { AUTH_MESSAGES, ERROR_CODES } from '@citrus/contracts'
import type { RateLimitOptions } from '@fastify/rate-limit'
import type { FastifyRequest } from 'fastify'
import { AppError } from '../lib/errors.js'
import { normalizeEmail } from '../domain/users.js'

/**
 * Limits of the credential endpoints (spec 4 §5). Fixed here rather than in the environment:
 * they are security properties, not deployment settings. Keys combine the client address with
 * the e-mail tried (when the body has one), so one address cannot spray many accounts quickly and
 * one account cannot be hammered, while people behind a shared NAT do not lock each other out.
 */
export const RATE_LIMITS = {
  login: { max: 10, timeWindow: 15 * 60_000 },
  passwordResetEmail: { max: 5, timeWindow: 15 * 60_000 },
  passwordReset: { max: 20, timeWindow: 15 * 60_000 },
  signup: { max: 20, timeWindow: 15 * 60_000 },
  verify: { max: 30, timeWindow: 15 * 60_000 },
} as const

function emailOf(request: FastifyRequest): string {
  const body = request.body
  if (body && typeof body === 'object' && 'email' in body && typeof body.email === 'string') {
    return normalizeEmail(body.email)
  }
  return ''
}

export function rateLimit(limit: { max: number; timeWindow: number }, options: { perEmail?: boolean } = {}): RateLimitOptions {
  return {
    max: limit.max,
    timeWindow: limit.timeWindow,
    // after body parsing and validation, so the key can use the e-mail
    hook: 'preHandler',
    keyGenerator: (request) => (options.perEmail ? `${request.ip}|${emailOf(request)}` : request.ip),
    errorResponseBuilder: (_request, context) =>
      new AppError(429, ERROR_CODES.RATE_LIMITED, AUTH_MESSAGES.rateLimited(context.after)),
  }
}
