import type { FastifyInstance } from 'fastify'
import helmet, { type HelmetOptions } from 'helmet'

/** The security headers of every response (helmet's defaults with the client's Content-Security-Policy). */
export const HELMET_OPTIONS: Readonly<HelmetOptions> = {
  contentSecurityPolicy: {
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      // Mantine and MapLibre set inline style attributes.
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:', 'blob:'],
      fontSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      workerSrc: ["'self'", 'blob:'],
      objectSrc: ["'none'"],
      frameAncestors: ["'none'"],
      upgradeInsecureRequests: null,
    },
  },
  crossOriginEmbedderPolicy: false,
}

/**
 * The headers helmet's middleware sets with these options, computed once: none depends on the request (no nonces),
 * whereas @fastify/helmet built the middleware, Content-Security-Policy parsing included, again for every request.
 */
export function securityHeaders(options: Readonly<HelmetOptions>): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {}
  const response = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value)
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()]
    },
  }
  let finished = false
  helmet(options)({} as never, response as never, (error?: unknown) => {
    if (error) throw error
    finished = true
  })
  if (!finished) throw new Error('helmet did not set its headers synchronously')
  return Object.freeze(headers)
}

/** Every response carries the request id and the security headers. */
export function registerSecurityHeaders(app: FastifyInstance, options: Readonly<HelmetOptions> = HELMET_OPTIONS): void {
  const headers = securityHeaders(options)
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id)
    reply.headers(headers)
  })
}
