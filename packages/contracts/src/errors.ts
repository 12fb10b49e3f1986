import { z } from 'zod'

/** The one error body every endpoint returns (spec 4 §5). */
export const fieldErrorSchema = z.object({
  path: z.string().describe('dotted path of the offending field, e.g. body.email'),
  message: z.string(),
})
export const errorEnvelopeSchema = z
  .object({
    message: z.string(),
    code: z.string(),
    status: z.number().int(),
    errors: z.array(fieldErrorSchema).optional(),
  })
  .meta({ id: 'ErrorEnvelope' })
export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>
export type FieldError = z.infer<typeof fieldErrorSchema>

export const ERROR_CODES = {
  VALIDATION: 'VALIDATION_ERROR',
  BAD_REQUEST: 'BAD_REQUEST',
  UNAUTHORIZED: 'UNAUTHORIZED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  CONFLICT: 'CONFLICT',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  RATE_LIMITED: 'RATE_LIMITED',
  CREDITS_EXHAUSTED: 'CREDITS_EXHAUSTED',
  URI_TOO_LONG: 'URI_TOO_LONG',
  HEADERS_TOO_LARGE: 'HEADERS_TOO_LARGE',
  REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
  INTERNAL: 'INTERNAL_ERROR',
  UNAVAILABLE: 'SERVICE_UNAVAILABLE',
} as const
export type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES]

/** Messages of requests refused by the HTTP layer before any route runs (they never echo the URL). */
export const HTTP_MESSAGES = {
  badUrl: 'The request URL is not valid (bad percent-encoding)',
  paramTooLong: 'A path parameter of the request URL is too long',
  headersTooLarge: 'The request URL or headers are too large',
  timeout: 'The request took too long to arrive',
  malformed: 'The request is not valid HTTP',
  bodyTooLarge: 'Request body is too large',
  unsupportedMediaType: 'Unsupported content type',
  invalidJson: 'Request body is not valid JSON',
  malformedMultipart: 'The multipart/form-data body is malformed (missing or mismatched boundary, or cut short)',
  internal: 'Internal Server Error',
} as const

/** Client-side messages of spec 1 §8. */
export const CLIENT_MESSAGES = {
  unexpected: 'An unexpected error occurred.',
  network: 'Network Error - Please check your internet connection.',
  tokenError: 'Token Error',
} as const
