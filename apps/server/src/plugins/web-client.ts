import { existsSync } from 'node:fs'
import path from 'node:path'
import fastifyStatic from '@fastify/static'
import { ERROR_CODES } from '@citrus/contracts'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'

/**
 * Serves the built React client at / and answers client routes with index.html (SPA fallback).
 * API paths never reach this: the not-found handler keeps /api/* as JSON 404s.
 */
export async function registerWebClient(app: FastifyInstance, distDir: string | null) {
  const hasClient = distDir !== null && existsSync(path.join(distDir, 'index.html'))
  if (hasClient) {
    await app.register(fastifyStatic, {
      root: distDir,
      prefix: '/',
      wildcard: false,
      index: false,
      setHeaders(res, filePath) {
        // Vite fingerprints everything under assets/; index.html must be revalidated.
        res.header('cache-control', filePath.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache')
      },
    })
  }
  return async function spaFallback(request: FastifyRequest, reply: FastifyReply) {
    const lastSegment = (request.url.split('?')[0] ?? '').split('/').pop() ?? ''
    // A missing asset (a dotted file name) is a 404, not the app shell.
    if (!hasClient || (lastSegment.includes('.') && !lastSegment.endsWith('.html'))) {
      return reply.status(404).send({
        message: hasClient ? 'File not found' : 'The web client is not built: run `npm run build`.',
        code: ERROR_CODES.NOT_FOUND,
        status: 404,
      })
    }
    return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').sendFile('index.html')
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** answers a client route with the app shell (index.html), or a JSON 404 for a missing file */
    spaFallback(request: FastifyRequest, reply: FastifyReply): Promise<unknown>
  }
}

/** The built client at / and its SPA fallback (`app.spaFallback`, used by the not-found handler). */
export const webClientPlugin = fp(
  async (app, options: { distDir: string | null }) => {
    app.decorate('spaFallback', await registerWebClient(app, options.distDir))
  },
  { name: 'web-client', fastify: '5.x' },
)
