import { STATUS_CODES as HTTP_STATUS_TEXT } from 'node:http'
import type { Socket } from 'node:net'
import { ERROR_CODES, HTTP_MESSAGES, invalidInputMessage, type ErrorEnvelope, type FieldError } from '@citrus/contracts'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify'
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod'
import { RateLimitedError } from '../auth/rate-limits.js'
import { AppError } from '../lib/errors.js'
import fp from 'fastify-plugin'

const STATUS_CODES: Record<number, string> = {
  400: ERROR_CODES.BAD_REQUEST,
  401: ERROR_CODES.UNAUTHORIZED,
  403: ERROR_CODES.FORBIDDEN,
  404: ERROR_CODES.NOT_FOUND,
  408: ERROR_CODES.REQUEST_TIMEOUT,
  409: ERROR_CODES.CONFLICT,
  413: ERROR_CODES.PAYLOAD_TOO_LARGE,
  414: ERROR_CODES.URI_TOO_LONG,
  415: ERROR_CODES.UNSUPPORTED_MEDIA_TYPE,
  429: ERROR_CODES.RATE_LIMITED,
  431: ERROR_CODES.HEADERS_TOO_LARGE,
}

/**
 * The errors busboy (under @fastify/multipart) throws for a malformed multipart/form-data body: no boundary
 * parameter, a boundary the body never uses or one too long, a body cut short, a broken part header. They
 * carry no status or code, only these messages; they are the client's fault, so 400, not a logged 500.
 */
const MULTIPART_ERRORS =
  /^(Multipart: Boundary not found|Boundary required|Unexpected end of multipart data|.{1,20} terminated early due to unexpected end of multipart data|Malformed part header|The needle cannot (be an empty String\/Buffer|have a length bigger than 256)\.|Unsupported Content-Type\.|Missing Content-Type-header\.)$/

export function malformedMultipart(error: unknown): ErrorEnvelope | null {
  if (!(error instanceof Error) || (error as FastifyError).statusCode !== undefined || !MULTIPART_ERRORS.test(error.message)) return null
  return { message: HTTP_MESSAGES.malformedMultipart, code: ERROR_CODES.BAD_REQUEST, status: 400 }
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
    // a form that documents its own message (e.g. 'All fields are required.') gets it, with the same field errors
    const endpoint = request.routeOptions.config.endpoint
    const documented = endpoint
      ? invalidInputMessage(
          endpoint,
          errors.map((fieldError) => fieldError.message),
        )
      : undefined
    return {
      message: documented ?? (errors.length === 1 && first ? `Invalid ${first.path}: ${first.message}` : 'Request validation failed'),
      code: ERROR_CODES.VALIDATION,
      status: 400,
      errors,
    }
  }

  const multipart = malformedMultipart(error)
  if (multipart) return multipart

  const status = (error as FastifyError).statusCode
  if (isResponseSerializationError(error) || !status || status >= 500) {
    request.log.error({ err: error }, 'request failed')
    return { message: HTTP_MESSAGES.internal, code: ERROR_CODES.INTERNAL, status: 500 }
  }

  const fastifyCode = (error as FastifyError).code
  if (fastifyCode === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return { message: HTTP_MESSAGES.bodyTooLarge, code: ERROR_CODES.PAYLOAD_TOO_LARGE, status: 413 }
  }
  if (fastifyCode === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return { message: HTTP_MESSAGES.unsupportedMediaType, code: ERROR_CODES.UNSUPPORTED_MEDIA_TYPE, status: 415 }
  }
  if (fastifyCode === 'FST_ERR_CTP_EMPTY_JSON_BODY' || fastifyCode === 'FST_ERR_CTP_INVALID_JSON_BODY' || error.name === 'SyntaxError') {
    return { message: HTTP_MESSAGES.invalidJson, code: ERROR_CODES.BAD_REQUEST, status: 400 }
  }
  if (fastifyCode === 'FST_ERR_BAD_URL') return { message: HTTP_MESSAGES.badUrl, code: ERROR_CODES.BAD_REQUEST, status: 400 }
  if (fastifyCode === 'FST_ERR_MAX_PARAM_LENGTH')
    return { message: HTTP_MESSAGES.paramTooLong, code: ERROR_CODES.URI_TOO_LONG, status: 414 }
  // Other framework errors: a fixed text per status, since their messages may quote the request.
  const framework = typeof fastifyCode === 'string' && fastifyCode.startsWith('FST_')
  return {
    message: framework ? (HTTP_STATUS_TEXT[status] ?? 'Bad Request') : error.message,
    code: STATUS_CODES[status] ?? ERROR_CODES.BAD_REQUEST,
    status,
  }
}

/**
 * Fastify `frameworkErrors`: malformed percent-encoding (400) and an over-long path parameter (414) are
 * found by the router before any route or error handler runs; answer them with the envelope too.
 */
export const frameworkErrors: NonNullable<FastifyServerOptions['frameworkErrors']> = (error, request, reply) => {
  send(reply, toEnvelope(error, request))
}

/** The raw HTTP/1.1 answer for a request Node's parser refused (no Fastify request exists yet). */
export function clientErrorResponse(error: NodeJS.ErrnoException): string {
  const envelope: ErrorEnvelope =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? { message: HTTP_MESSAGES.headersTooLarge, code: ERROR_CODES.HEADERS_TOO_LARGE, status: 431 }
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? { message: HTTP_MESSAGES.timeout, code: ERROR_CODES.REQUEST_TIMEOUT, status: 408 }
        : { message: HTTP_MESSAGES.malformed, code: ERROR_CODES.BAD_REQUEST, status: 400 }
  const body = JSON.stringify(envelope)
  return (
    `HTTP/1.1 ${envelope.status} ${HTTP_STATUS_TEXT[envelope.status]}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  )
}

/**
 * Fastify `clientErrorHandler` (Node's 'clientError' event): URL or headers over Node's limit (431),
 * a request that is not HTTP (400), a slow request (408), answered with the envelope.
 */
export function clientErrorHandler(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  this.log.debug({ err: error }, 'client error')
  if (socket.writable) socket.write(clientErrorResponse(error))
  socket.destroy()
}

export function registerErrorHandling(
  app: FastifyInstance,
  options: { spaFallback: (request: FastifyRequest, reply: FastifyReply) => unknown },
) {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof RateLimitedError) reply.header('retry-after', String(error.retryAfterSeconds))
    return send(reply, toEnvelope(error, request))
  })

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

/** The error envelope for every error and unknown route of the app; client routes fall back to the web client. */
export const errorHandlingPlugin = fp(async (app) => registerErrorHandling(app, { spaFallback: app.spaFallback }), {
  name: 'error-handling',
  fastify: '5.x',
  dependencies: ['web-client'],
})
