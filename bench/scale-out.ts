/**
 * Scale-out, side by side in one run (issue 34, docs/scaling.md): Care Connect searches scored afresh per second
 * against one server process, then against two independent server processes (separate OS processes on their own
 * ports, no shared parent state) on the same PostgreSQL, alternating A / B rounds. Throughput only: no timing is a
 * pass or fail anywhere.
 *
 *   DATABASE_URL=postgres://... npx tsx bench/scale-out.ts [--requests 200] [--rounds 2] [--concurrency 8]
 */
import { fork, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { loadavg } from 'node:os'
import { buildApp } from '../apps/server/src/app.ts'
import { loadEnv } from '../apps/server/src/config.ts'
import { createDatabase } from '../apps/server/src/db/database.ts'
import { applyMigrations } from '../apps/server/src/db/migrate.ts'
import { MIGRATIONS_DIR } from '../apps/server/src/runtime.ts'
import { newActivationKey } from '../apps/server/src/seed/demo-accounts.ts'
import { runHttpLoad, type BenchRequest } from './http-load.ts'

interface ServeMessage {
  serve: { databaseUrl: string; jwtSecret: string; user: { id: number; email: string; company_id: number; company_name: string } }
}

/** A child: the whole app on a free port; answers with its port and a login token for the bench user. */
async function serve(): Promise<void> {
  const message = await new Promise<ServeMessage>((resolve) => process.once('message', (m) => resolve(m as ServeMessage)))
  const { databaseUrl, jwtSecret, user } = message.serve
  const env = loadEnv({ LOG_LEVEL: 'silent', OUTBOX_POLL_INTERVAL_MS: '0', DATABASE_URL: databaseUrl })
  const app = await buildApp(
    { env, databaseUrl, databaseMode: 'postgres', jwtSecret, migrationsDir: MIGRATIONS_DIR, webDistDir: null },
    { logger: false, warmConnections: true },
  )
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  const token = app.tokens.signLogin({ ...user, role: 'user', phone_number: null })
  process.send?.({ port: typeof address === 'object' && address ? address.port : 0, token })
  process.once('disconnect', () => void app.close().then(() => process.exit(0)))
}

function start(message: ServeMessage): Promise<{ child: ChildProcess; base: string; token: string }> {
  const child = fork(new URL(import.meta.url).pathname, ['serve'], { execArgv: ['--import', 'tsx'], stdio: 'inherit' })
  child.send(message)
  return new Promise((resolve, reject) => {
    child.once('message', (m) => {
      const { port, token } = m as { port: number; token: string }
      resolve({ child, base: `http://127.0.0.1:${port}`, token })
    })
    child.once('exit', (code) => reject(new Error(`a server process exited (${code}) before it listened`)))
  })
}

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`)
  return at === -1 ? fallback : Number(process.argv[at + 1])
}

async function main(): Promise<void> {
  const env = loadEnv({ LOG_LEVEL: 'silent' })
  const databaseUrl = env.DATABASE_URL
  if (!databaseUrl) throw new Error('scale-out needs DATABASE_URL (PostgreSQL: the embedded database serves one process)')
  const requests = option('requests', 200)
  const rounds = option('rounds', 2)
  const concurrency = option('concurrency', 8)
  await applyMigrations(databaseUrl, MIGRATIONS_DIR)
  const db = createDatabase(databaseUrl, { maxConnections: 2 })
  const taxonomy = '207Q00000X'
  const zip = (
    await db.pool.query<{ zip: string }>(
      'SELECT zip_code AS zip FROM providers WHERE primary_taxonomy_code = $1 GROUP BY zip_code ORDER BY count(*) DESC, 1 LIMIT 1',
      [taxonomy],
    )
  ).rows[0]?.zip
  if (!zip) throw new Error(`no provider of ${taxonomy}: load a dataset first`)
  const company = await db.prisma.company.create({
    data: {
      company_name: `Bench ${randomUUID().slice(0, 6)}`,
      industry: 'Healthcare',
      renewal_cycle_days: 30,
      activation_key: newActivationKey(),
      policies: { create: [{ product_group: 'CARE_SELECT', limit: null }] },
    },
  })
  const user = await db.prisma.user.create({
    data: { email: `bench-${randomUUID().slice(0, 8)}@bench.citrus`, role: 'user', company_id: company.id, password_hash: 'x' },
  })
  const message: ServeMessage = {
    serve: {
      databaseUrl,
      jwtSecret: randomUUID() + randomUUID(),
      user: { id: user.id, email: user.email, company_id: company.id, company_name: company.company_name },
    },
  }
  const servers = [await start(message), await start(message)]
  const path = `/api/care-select/rankings?${new URLSearchParams({ zip_code: zip, omni_code: taxonomy, _bypass_cache: 'true' }).toString()}`
  const list = (token: string, n: number): BenchRequest[] =>
    Array.from({ length: n }, () => ({ path, headers: { authorization: `Bearer ${token}` } }))
  try {
    // each process builds its candidate index on its first search
    for (const server of servers) await runHttpLoad(server.base, list(server.token, 20), 2)
    console.log(
      `Scale-out: GET /api/care-select/rankings scored afresh (specialty ${taxonomy}, ZIP ${zip}), ${requests} requests per point, ` +
        `concurrency ${concurrency} in all; load average before each point`,
    )
    for (let round = 1; round <= rounds; round++) {
      const loadA = loadavg()[0]!.toFixed(1)
      const one = await runHttpLoad(servers[0]!.base, list(servers[0]!.token, requests), concurrency)
      const loadB = loadavg()[0]!.toFixed(1)
      const started = performance.now()
      const half = Math.ceil(concurrency / 2)
      await Promise.all(servers.map((server) => runHttpLoad(server.base, list(server.token, requests / 2), half)))
      const two = requests / ((performance.now() - started) / 1000)
      console.log(
        `  round ${round}: 1 process ${one.throughput.toFixed(1)} searches/s (load ${loadA}); ` +
          `2 processes ${two.toFixed(1)} searches/s (load ${loadB}); ratio ${(two / one.throughput).toFixed(2)}`,
      )
    }
  } finally {
    for (const server of servers) server.child.disconnect()
    await db.close()
  }
}

if (process.argv[2] === 'serve') await serve()
else await main()
