import { ERROR_CODES, type ErrorEnvelope, type FieldError } from '@citrus/contracts'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod'
import { AppError } from '../lib/errors.js'

const STATUS_CODES: Record<number, string> = {
  400: ERROR_CODES.BAD_REQUEST,
  401: ERROR_CODES.UNAUTHORIZED,
  403: ERROR_CODES.FORBIDDEN,
  404: ERROR_CODES.NOT_FOUND,
  409: ERROR_CODES.CONFLICT,
  413: ERROR_CODES.PAYLOAD_TOO_LARGE,
  415: ERROR_CODES.UNSUPPORTED_MEDIA_TYPE,
  429: ERROR_CODES.RATE_LIMITED,
}

function send(reply: FastifyReply, envelope: ErrorEnvelope) {
  return reply.status(envelope.status).type('application/json; charset=utf-8').send(envelope)
}

/** Turns whatever went wrong into { message, code, status, errors? }; 5xx never show internals. */
export function toEnvelope(error: FastifyError | Error, request: FastifyRequest): ErrorEnvelope {
  if (error instanceof AppError) return error.toEnvelope()

  if (hasZodFastifySchemaValidationErrors(error)) {
    const part = error.validationContext ?? 'body'
    const errors: FieldError[] = error.validation.map((issue) => {
      const params = issue.params as { issue?: { path?: PropertyKey[] } } | undefined
      const issuePath = params?.issue?.path ?? issue.instancePath.split('/').filter(Boolean)
      return {
        path: [part, ...issuePath.map(String)].join('.'),
        message: issue.message ?? 'Invalid value',
      }
    })
    const first = errors[0]
    return {
      message: errors.length === 1 && first ? `Invalid ${first.path}: ${first.message}` : 'Request validation failed',
      code: ERROR_CODES.VALIDATION,
      status: 400,
      errors,
    }
  }

  const status = (error as FastifyError).statusCode
  if (isResponseSerializationError(error) || !status || status >= 500) {
    request.log.error({ err: error }, 'request failed')
    return { message: 'Internal Server Error', code: ERROR_CODES.INTERNAL, status: 500 }
  }

  const fastifyCode = (error as FastifyError).code
  if (fastifyCode === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return { message: 'Request body is too large', code: ERROR_CODES.PAYLOAD_TOO_LARGE, status: 413 }
  }
  if (fastifyCode === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return { message: 'Unsupported content type', code: ERROR_CODES.UNSUPPORTED_MEDIA_TYPE, status: 415 }
  }
  if (fastifyCode === 'FST_ERR_CTP_EMPTY_JSON_BODY' || fastifyCode === 'FST_ERR_CTP_INVALID_JSON_BODY' || error.name === 'SyntaxError') {
    return { message: 'Request body is not valid JSON', code: ERROR_CODES.BAD_REQUEST, status: 400 }
  }
  return { message: error.message, code: STATUS_CODES[status] ?? ERROR_CODES.BAD_REQUEST, status }
}

export function registerErrorHandling(app: FastifyInstance, options: { spaFallback: (request: FastifyRequest, reply: FastifyReply) => unknown }) {
  app.setErrorHandler((error: FastifyError, request, reply) => send(reply, toEnvelope(error, request)))

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/'
    const isApi = path === '/api' || path.startsWith('/api/')
    if (!isApi && (request.method === 'GET' || request.method === 'HEAD')) return options.spaFallback(request, reply)
    return send(reply, {
      message: `Route ${request.method} ${path} not found`,
      code: ERROR_CODES.NOT_FOUND,
      status: 404,
    })
  })
}
