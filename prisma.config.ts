import { defineConfig } from 'prisma/config'

// The CLI is used offline (generate only); migrations are produced by scripts/db-migration.mjs
// and applied by the server at start (docs/decisions/0002).
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
})
