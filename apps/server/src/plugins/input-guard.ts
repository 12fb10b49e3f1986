import { ERROR_CODES, INPUT_MESSAGES, badTextReason, type FieldError } from '@citrus/contracts'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { AppError } from '../lib/errors.js'

/**
 * One generic check of every request's body, query and path parameters before schema validation:
 * PostgreSQL text cannot hold the NUL character and UTF-8 cannot encode a lone UTF-16 surrogate, so
 * either would otherwise reach the database and fail there as a 500 (issue 9 §2). The refusal names
 * each offending field as `body.email`, `querystring.query`, `params.user_id`, `body.events.0.name`.
 * (`querystring` as schema validation names it.) Integer bounds are the schemas' part (`idSchema`, `int32Schema` in @citrus/contracts).
 */

/** At most this many fields are reported; nesting below this depth is not walked (bodies are limited in size anyway). */
const MAX_ERRORS = 20
const MAX_DEPTH = 32

const TEXT_MESSAGES = { nul: INPUT_MESSAGES.nulCharacter, surrogate: INPUT_MESSAGES.loneSurrogate } as const
const KEY_MESSAGES = { nul: INPUT_MESSAGES.keyNulCharacter, surrogate: INPUT_MESSAGES.keyLoneSurrogate } as const

export function findBadText(value: unknown, path: string, errors: FieldError[] = [], depth = 0): FieldError[] {
  if (errors.length >= MAX_ERRORS || depth > MAX_DEPTH) return errors
  if (typeof value === 'string') {
    const reason = badTextReason(value)
    if (reason) errors.push({ path, message: TEXT_MESSAGES[reason] })
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => findBadText(item, `${path}.${index}`, errors, depth + 1))
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const reason = badTextReason(key)
      // the bad name itself is not echoed: the field is named by its parent
      if (reason) errors.push({ path, message: KEY_MESSAGES[reason] })
      else findBadText(item, `${path}.${key}`, errors, depth + 1)
      if (errors.length >= MAX_ERRORS) break
    }
  }
  return errors
}

export function badTextError(request: Pick<FastifyRequest, 'body' | 'query' | 'params'>): AppError | null {
  const errors: FieldError[] = []
  findBadText(request.params, 'params', errors)
  findBadText(request.query, 'querystring', errors)
  findBadText(request.body, 'body', errors)
  if (errors.length === 0) return null
  const first = errors[0]!
  const message = errors.length === 1 ? `Invalid ${first.path}: ${first.message}` : 'Request validation failed'
  return new AppError(400, ERROR_CODES.VALIDATION, message, errors)
}

/** Adds the check to every route of `app` (register on the root instance, before the routes). */
export function registerInputGuard(app: FastifyInstance) {
  app.addHook('preValidation', async (request) => {
    const error = badTextError(request)
    if (error) throw error
  })
}
