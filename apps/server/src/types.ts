import type { AppConfig } from './config.js'
import type { Database } from './db/database.js'

declare module 'fastify' {
  interface FastifyInstance {
    config: AppConfig
    db: Database
  }
}
