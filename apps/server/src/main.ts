import cluster from 'node:cluster'
import { buildApp } from './app.js'
import { ConfigError, loadEnv, type AppConfig, type Env } from './config.js'
import { seedDataOnFirstStart } from './data/first-start.js'
import { createDatabase } from './db/database.js'
import { startRuntime } from './runtime.js'
import { DEFAULT_DEMO_PASSWORD, DEMO_COMPANY_NAME, ensureDemoAccounts } from './seed/demo-accounts.js'

const say = (message: string) => process.stdout.write(`${message}\n`)

/** The primary's message that hands a cluster worker its configuration (never logged: it holds the JWT secret). */
interface WorkerConfigMessage {
  citrusConfig: AppConfig
}
const isWorkerConfig = (message: unknown): message is WorkerConfigMessage =>
  typeof message === 'object' && message !== null && 'citrusConfig' in message

/** Closes on SIGTERM and SIGINT, once, within 15 s. */
function onSignals(close: () => Promise<void>, log: (error: unknown) => void) {
  let closing = false
  const shutdown = async () => {
    if (closing) return
    closing = true
    const timer = setTimeout(() => process.exit(1), 15_000)
    timer.unref()
    try {
      await close()
      process.exit(0)
    } catch (error) {
      log(error)
      process.exit(1)
    }
  }
  process.on('SIGTERM', () => void shutdown())
  process.on('SIGINT', () => void shutdown())
  return () => closing
}

/** A cluster worker: the whole app on the shared port; what processes share lives in PostgreSQL (docs/decisions/0076). */
async function runWorker(env: Env) {
  const { citrusConfig: config } = await new Promise<WorkerConfigMessage>((resolve) => {
    const listener = (message: unknown) => {
      if (!isWorkerConfig(message)) return
      process.off('message', listener)
      resolve(message)
    }
    process.on('message', listener)
    // asked for once listening: a message sent before the worker has a listener would be lost
    process.send?.({ citrusWorkerReady: true })
  })
  const database = createDatabase(config.databaseUrl, {
    replicaUrls: config.env.DATABASE_REPLICA_URL,
    background: config.databaseMode === 'embedded',
  })
  const app = await buildApp(config, {
    database,
    warmConnections: true,
    warmEngines: true,
  })
  onSignals(
    async () => {
      await app.close()
      await database.close()
    },
    (error) => app.log.error({ err: error }, 'shutdown failed'),
  )
  // the primary's disconnect (its own shutdown) closes this worker too
  process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'))
  await app.listen({ host: env.HOST, port: env.PORT })
}

/** The primary of a cluster: forks the workers and replaces a worker that dies. */
async function runPrimary(config: AppConfig, processes: number, closeRuntime: () => Promise<void>): Promise<string> {
  let stopping = false
  let started = false
  const fork = (): Promise<number> => {
    const worker = cluster.fork()
    worker.on('message', (message: unknown) => {
      if (typeof message === 'object' && message !== null && 'citrusWorkerReady' in message)
        worker.send({ citrusConfig: config } satisfies WorkerConfigMessage)
    })
    worker.once('exit', (code, signal) => {
      if (stopping || !started) return
      say(`A server process exited (${signal ?? code}); starting another`)
      fork().catch((error: unknown) => process.stderr.write(`${String(error)}\n`))
    })
    return new Promise((resolve, reject) => {
      worker.once('listening', (address) => resolve(address.port))
      worker.once('exit', (code) => reject(new Error(`a server process exited with code ${code} before it listened`)))
    })
  }
  const ports = await Promise.all(Array.from({ length: processes }, fork))
  started = true
  onSignals(
    async () => {
      stopping = true
      const exits = Object.values(cluster.workers ?? {}).map((worker) => new Promise((resolve) => worker!.once('exit', resolve)))
      for (const worker of Object.values(cluster.workers ?? {})) worker!.kill('SIGTERM')
      await Promise.all(exits)
      await closeRuntime()
    },
    (error) => process.stderr.write(`shutdown failed: ${String(error)}\n`),
  )
  return `http://localhost:${ports[0] ?? config.env.PORT}`
}

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
  if (cluster.isWorker) return runWorker(env)

  const runtime = await startRuntime(env, say, { shareEmbedded: true })
  const database = createDatabase(runtime.config.databaseUrl, {
    replicaUrls: runtime.config.env.DATABASE_REPLICA_URL,
    background: runtime.config.databaseMode === 'embedded',
  })
  const seedDemo = env.SEED_DEMO ?? runtime.config.databaseMode === 'embedded'
  let demo = null
  if (seedDemo) {
    demo = await ensureDemoAccounts(database.prisma, env.DEMO_PASSWORD ?? DEFAULT_DEMO_PASSWORD)
  }
  const processes = runtime.config.databaseMode === 'postgres' ? env.WEB_CONCURRENCY : 1
  if (env.WEB_CONCURRENCY > 1 && processes === 1) say('WEB_CONCURRENCY is ignored: the embedded database serves one server process')

  let url: string
  let isShuttingDown: () => boolean
  let logError = (error: unknown, message: string): void => void process.stderr.write(`${message}: ${String(error)}\n`)
  if (processes > 1) {
    url = await runPrimary(runtime.config, processes, async () => {
      await database.close()
      await runtime.stop()
    })
    isShuttingDown = () => false
  } else {
    const app = await buildApp(runtime.config, { database, warmConnections: true, warmEngines: true })
    logError = (error, message) => app.log.error({ err: error }, message)
    isShuttingDown = onSignals(
      async () => {
        app.log.info('shutting down')
        await app.close()
        // the embedded database first: a first-start load still holding a pooled connection would keep the
        // pool from closing until the forced exit
        await runtime.stop()
        await database.close()
      },
      (error) => app.log.error({ err: error }, 'shutdown failed'),
    )
    await app.listen({ host: env.HOST, port: env.PORT })
    const address = app.server.address()
    url = `http://localhost:${typeof address === 'object' && address ? address.port : env.PORT}`
  }
  say('')
  say(
    `Citrus is running at ${url}  (API docs: ${url}/docs, database: ${runtime.config.databaseMode}${processes > 1 ? `, ${processes} server processes` : ''})`,
  )
  if (demo) {
    say(`Demo company "${DEMO_COMPANY_NAME}" (activation key ${demo.activationKey})`)
    say(`Sign in with any of these, password ${env.DEMO_PASSWORD ? 'from DEMO_PASSWORD' : DEFAULT_DEMO_PASSWORD}:`)
    for (const user of demo.users) say(`  ${user.role.padEnd(7)} ${user.email}`)
  }
  say('')
  if (seedDemo) {
    // The first start fills the embedded database with the demo dataset while the server already
    // answers: sign-in and administration work at once, the data apps fill in a few minutes later.
    seedDataOnFirstStart(database.background, runtime.config.databaseMode, say).catch((error: unknown) => {
      if (!isShuttingDown()) logError(error, 'loading the demo dataset failed; run `npm run cli -- data seed --scale demo`')
    })
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`Citrus failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  process.exit(1)
})
