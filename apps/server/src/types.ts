import type { CredentialLimiters } from './auth/rate-limits.js'
import type { AppConfig } from './config.js'
import type { Database } from './db/database.js'

declare module 'fastify' {
  interface FastifyInstance {
    config: AppConfig
    db: Database
    /** the credential endpoints' limits (auth/rate-limits.ts; kept in PostgreSQL, shared by every process) */
    credentialLimiters: CredentialLimiters
  }
}
