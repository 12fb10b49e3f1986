import { buildApp } from './app.js'
import { ConfigError, loadEnv } from './config.js'
import { seedDataOnFirstStart } from './data/first-start.js'
import { createDatabase } from './db/database.js'
import { startRuntime } from './runtime.js'
import { DEFAULT_DEMO_PASSWORD, DEMO_COMPANY_NAME, ensureDemoAccounts } from './seed/demo-accounts.js'

const say = (message: string) => process.stdout.write(`${message}\n`)

async function main() {
  let env
  try {
    env = loadEnv()
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`)
      process.exit(1)
    }
    throw error
  }

  const runtime = await startRuntime(env, say, { shareEmbedded: true })
  const database = createDatabase(runtime.config.databaseUrl)
  const seedDemo = env.SEED_DEMO ?? runtime.config.databaseMode === 'embedded'
  let demo = null
  if (seedDemo) {
    demo = await ensureDemoAccounts(database.prisma, env.DEMO_PASSWORD ?? DEFAULT_DEMO_PASSWORD)
  }

  const app = await buildApp(runtime.config, { database, warmConnections: true })
  let shuttingDown = false
  const shutdown = async (signal: string) => {
    if (shuttingDown) return
    shuttingDown = true
    app.log.info({ signal }, 'shutting down')
    const timer = setTimeout(() => process.exit(1), 15_000)
    timer.unref()
    try {
      await app.close()
      await database.close()
      await runtime.stop()
      process.exit(0)
    } catch (error) {
      app.log.error({ err: error }, 'shutdown failed')
      process.exit(1)
    }
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
  process.on('SIGINT', () => void shutdown('SIGINT'))

  await app.listen({ host: env.HOST, port: env.PORT })
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : env.PORT
  const url = `http://localhost:${port}`
  say('')
  say(`Citrus is running at ${url}  (API docs: ${url}/docs, database: ${runtime.config.databaseMode})`)
  if (demo) {
    say(`Demo company "${DEMO_COMPANY_NAME}" (activation key ${demo.activationKey})`)
    say(`Sign in with any of these, password ${env.DEMO_PASSWORD ? 'from DEMO_PASSWORD' : DEFAULT_DEMO_PASSWORD}:`)
    for (const user of demo.users) say(`  ${user.role.padEnd(7)} ${user.email}`)
  }
  say('')
  if (seedDemo) {
    // The first start fills the embedded database with the demo dataset while the server already
    // answers: sign-in and administration work at once, the data apps fill in about a minute later.
    seedDataOnFirstStart(database.pool, runtime.config.databaseMode, say).catch((error: unknown) => {
      if (!shuttingDown) app.log.error({ err: error }, 'loading the demo dataset failed; run `npm run cli -- data seed --scale demo`')
    })
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`Citrus failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  process.exit(1)
})
