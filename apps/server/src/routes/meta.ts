import { APP_VERSION, metaEndpoints } from '@citrus/contracts'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { route } from '../lib/endpoint.js'

export const metaRoutes: FastifyPluginAsyncZod = async (app) => {
  route(app, metaEndpoints.version, {}, async () => ({
    version: APP_VERSION,
    database_mode: app.config.databaseMode,
    map_style_url: app.config.env.MAP_STYLE_URL ?? null,
  }))
}
