import { ERROR_CODES, firstMessageByPriority } from '@citrus/contracts'
import type { FastifyRequest } from 'fastify'
import { AppError } from '../../lib/errors.js'
import { toEnvelope } from '../../plugins/error-handler.js'

/**
 * For routes declared with `attachValidation: true`: turns a schema validation failure into the
 * message the spec documents for the form (e.g. 'All fields are required.') instead of the generic
 * "Invalid body.x: ..." one, keeping the per-field errors. Returns null when the input was valid.
 */
export function documentedValidationError(request: FastifyRequest, priority: readonly string[], fallback?: string): AppError | null {
  const error = request.validationError
  if (!error) return null
  const envelope = toEnvelope(error, request)
  const errors = envelope.errors ?? []
  const message = fallback ?? firstMessageByPriority(errors.map((e) => e.message), priority) ?? envelope.message
  return new AppError(400, ERROR_CODES.VALIDATION, message, errors)
}
