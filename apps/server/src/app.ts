import { randomUUID } from 'node:crypto'
import fastifyCompress from '@fastify/compress'
import fastifyRateLimit from '@fastify/rate-limit'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod'
import { createCredentialLimiters } from './auth/rate-limits.js'
import { postgresRateLimitStore } from './auth/request-rate-store.js'
import type { AppConfig } from './config.js'
import { createDatabase, warmConnections, type Database } from './db/database.js'
import { endpointRegistryPlugin } from './plugins/endpoint-registry.js'
import { clientErrorHandler, errorHandlingPlugin, frameworkErrors } from './plugins/error-handler.js'
import { registerInputGuard } from './plugins/input-guard.js'
import { registerHttpCache } from './plugins/http-cache.js'
import { registerMetrics } from './plugins/metrics.js'
import { setEngineMemoryBudget } from './lib/engine-budget.js'
import { registerTokens } from './auth/tokens.js'
import { openApiPlugin } from './plugins/openapi.js'
import { registerSecurityHeaders } from './plugins/security-headers.js'
import { webClientPlugin } from './plugins/web-client.js'
import { apiRoutes } from './routes/index.js'
import { fhirRoutes } from './fhir/index.js'
import { healthRoutes } from './routes/health.js'
import { warmAtlasIndexes } from './services/atlas/warm.js'
import { warmCareSelectIndexes } from './services/care-select/warm.js'
import { warmNovaData } from './services/nova/warm.js'
import './types.js'

export interface BuildAppOptions {
  /** pino options or false; tests pass false */
  logger?: FastifyServerOptions['logger']
  /** an existing database handle (tests share one per file); otherwise one is created and closed with the app */
  database?: Database
  /**
   * Open the pool's connections when the server becomes ready and make each backend load PostGIS
   * (db/database.ts warmConnections, docs/decisions/0064): the server and the benches do, tests do not.
   */
  warmConnections?: boolean
  /**
   * build the Atlas indexes and Care Select's most searched specialties of each data version before anyone asks
   * (engines/warm.ts: services/atlas/warm.ts, services/care-select/warm.ts, services/nova/warm.ts): the server does, tests do not
   */
  warmEngines?: boolean
}

/** Query parameters that carry credentials and must never reach the logs. */
const SECRET_QUERY_PARAMS = /([?&](?:token|temp_jwt_token|api_key|access_token)=)[^&]*/gi

export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY_PARAMS, '$1[REDACTED]')
}

export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return {
    level,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.new_password', '*.token', '*.temp_jwt_token'],
      censor: '[REDACTED]',
    },
    serializers: {
      req(request: { method: string; url: string; id: string; ip?: string }) {
        return { method: request.method, url: redactUrl(request.url), id: request.id, ip: request.ip }
      },
    },
  }
}

/** The one application factory, used by the real process and by every test (STYLE.md). */
export async function buildApp(config: AppConfig, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? loggerOptions(config.env.LOG_LEVEL),
    bodyLimit: config.env.BODY_LIMIT_BYTES,
    trustProxy: config.env.TRUST_PROXY,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    routerOptions: { ignoreTrailingSlash: true },
    // router and HTTP-parser refusals answer with the error envelope too (issue 9 §2)
    frameworkErrors,
    clientErrorHandler,
  }).withTypeProvider<ZodTypeProvider>()

  app.setValidatorCompiler(validatorCompiler)
  app.setSerializerCompiler(serializerCompiler)

  // one budget for the process's engines (lib/engine-budget.ts); 0 = none
  setEngineMemoryBudget(config.env.ENGINE_MEMORY_BUDGET_MB * 2 ** 20)
  const database =
    options.database ??
    createDatabase(config.databaseUrl, { replicaUrls: config.env.DATABASE_REPLICA_URL, background: config.databaseMode === 'embedded' })
  app.decorate('config', config)
  app.decorate('db', database)
  // in PostgreSQL, shared by every process on the database (docs/decisions/0076); each test app counts on its own
  const limitScope = config.env.NODE_ENV === 'test' ? `test-${randomUUID()}` : ''
  app.decorate('credentialLimiters', createCredentialLimiters(database.pool, { scope: limitScope }))
  if (!options.database) app.addHook('onClose', async () => database.close())
  if (options.warmConnections) {
    app.addHook('onReady', async () => {
      await warmConnections(database.pool, database.pool.options.max)
    })
  }

  registerSecurityHeaders(app)
  // responses compressed by the maintained library, negotiated per request; request bodies are not inflated
  // (docs/decisions/0077). Before any route: the plugin hooks the routes registered after it.
  await app.register(fastifyCompress, { globalCompression: true, globalDecompression: false, encodings: ['gzip', 'deflate'] })
  // ETags of data-versioned answers and 304 before the work (plugins/http-cache.ts)
  registerHttpCache(app)
  // per-route request limits, counted in PostgreSQL across every process (auth/request-rate-store.ts); a database
  // that does not answer lets the request through rather than failing it
  await app.register(fastifyRateLimit, { global: false, store: postgresRateLimitStore(database.pool, limitScope), skipOnError: true })
  // login, shareable-link and reset tokens through @fastify/jwt, HS256 only (auth/tokens.ts)
  await registerTokens(app, config.jwtSecret)

  await app.register(webClientPlugin, { distDir: config.webDistDir })
  await app.register(errorHandlingPlugin)
  registerInputGuard(app)
  // before any route: the inventory and the OpenAPI document see every route as it is added
  await app.register(endpointRegistryPlugin)
  await app.register(openApiPlugin)

  await app.register(healthRoutes)
  // GET /metrics behind METRICS_TOKEN, and the per-route latency of every request (plugins/metrics.ts)
  registerMetrics(app)
  await app.register(apiRoutes, { prefix: '/api' })
  // the FHIR provider directory (Da Vinci PDex Plan-Net), outside /api: FHIR clients expect their own base URL
  await app.register(fhirRoutes, { prefix: '/fhir' })
  if (options.warmEngines) {
    warmAtlasIndexes(app)
    warmCareSelectIndexes(app)
    warmNovaData(app)
  }

  return app
}
