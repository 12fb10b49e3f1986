import type { TestProject } from 'vitest/node'
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../apps/server/src/db/embedded.ts'
import { applyMigrations } from '../apps/server/src/db/migrate.ts'
import { MIGRATIONS_DIR } from '../apps/server/src/runtime.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string
    databaseMode: 'embedded' | 'postgres'
  }
}

/**
 * One database per test run, migrated once: PostgreSQL when TEST_DATABASE_URL is set, else an
 * in-memory embedded PostgreSQL. Tests isolate by creating their own companies and users.
 */
export default async function setup(project: TestProject) {
  let embedded: EmbeddedPostgres | null = null
  let url = process.env.TEST_DATABASE_URL
  if (!url) {
    embedded = await startEmbeddedPostgres({ maxConnections: 64 })
    url = embedded.url
  }
  await applyMigrations(url, MIGRATIONS_DIR)
  project.provide('databaseUrl', url)
  project.provide('databaseMode', embedded ? 'embedded' : 'postgres')
  return async () => {
    await embedded?.stop()
  }
}
