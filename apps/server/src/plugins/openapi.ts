import { APP_VERSION } from '@citrus/contracts'
import fastifySwagger from '@fastify/swagger'
import fastifySwaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod'
import fp from 'fastify-plugin'

/** OpenAPI 3 generated from the routes' zod schemas: JSON at /api/openapi.json, UI at /docs. */
export async function registerOpenApi(app: FastifyInstance) {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Citrus API',
        version: APP_VERSION,
        description:
          'Every documented path is relative to /api. Authenticate with `Authorization: Bearer <login token or sk- API key>`, ' +
          'or pass a shareable link token as the `token` query parameter. Errors are always ' +
          '`{ message, code, status, errors? }`.',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'Login JWT or sk- API key' },
          shareToken: { type: 'apiKey', in: 'query', name: 'token', description: 'Shareable link token' },
        },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  })
  await app.register(fastifySwaggerUi, {
    routePrefix: '/docs',
    staticCSP: true,
    uiConfig: { docExpansion: 'list', deepLinking: true },
  })
  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger())
}

/** OpenAPI document and UI; register before the routes so that every route schema is collected. */
export const openApiPlugin = fp(registerOpenApi, { name: 'openapi', fastify: '5.x' })
