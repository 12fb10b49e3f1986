import { z } from 'zod'
import { defineEndpoint } from './endpoint.js'

export const healthSchema = z.object({ status: z.literal('ok'), version: z.string() }).meta({ id: 'Health' })
export const readinessSchema = z
  .object({
    status: z.enum(['ready', 'not_ready']),
    database: z.enum(['up', 'down']),
    database_mode: z.enum(['embedded', 'postgres']),
    pending_migrations: z.array(z.string()),
  })
  .meta({ id: 'Readiness' })
export type Readiness = z.infer<typeof readinessSchema>

export const versionSchema = z
  .object({
    version: z.string(),
    database_mode: z.enum(['embedded', 'postgres']),
    /** MAP_STYLE_URL: a hosted MapLibre style for the maps; null = the offline basemap (state and county outlines) */
    map_style_url: z.string().nullable(),
  })
  .meta({ id: 'Version' })

/** Liveness and readiness probes, served outside /api so that orchestrators need no API knowledge. */
export const healthEndpoints = {
  healthz: defineEndpoint({
    method: 'GET',
    path: '/healthz',
    mount: 'root',
    summary: 'The process is alive and its database answers',
    tags: ['health'],
    response: healthSchema,
    errors: [503],
  }),
  readyz: defineEndpoint({
    method: 'GET',
    path: '/readyz',
    mount: 'root',
    summary: 'The database is reachable and every migration is applied',
    tags: ['health'],
    response: readinessSchema,
    errors: [503],
    errorBodies: { 503: readinessSchema },
  }),
} as const

export const metaEndpoints = {
  version: defineEndpoint({
    method: 'GET',
    path: '/version',
    summary: 'Product version and database mode',
    tags: ['meta'],
    response: versionSchema,
    errors: [],
  }),
} as const
