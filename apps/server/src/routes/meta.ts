import { APP_VERSION } from '@citrus/contracts'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'

const versionSchema = z.object({ version: z.string(), database_mode: z.enum(['embedded', 'postgres']) }).meta({ id: 'Version' })

export const metaRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/version',
    { schema: { tags: ['meta'], summary: 'Product version and database mode', response: { 200: versionSchema } } },
    async () => ({ version: APP_VERSION, database_mode: app.config.databaseMode }),
  )
}
