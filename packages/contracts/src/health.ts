import { z } from 'zod'

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
