/**
 * What a user waits for while `npm start` loads the demo dataset into the embedded database (issue 32): a scratch
 * in-memory embedded database, migrated, loaded exactly as the first start loads it (seedDataset, demo scale,
 * shortTurns), while a probe runs sign-in's query every 250 ms on another connection. Prints, per step of the load,
 * how many probes ran and their median and longest wait: the longest is the statement the probe waited behind; then
 * the load's 15 longest statements (timed on the load's connections).
 *
 *   npm run bench -- first-start [--scale ci|demo] [--interval-ms 250]
 *
 * Never passes or fails; the figures go to docs/performance.md.
 */
import { performance } from 'node:perf_hooks'
import pg from 'pg'
import type { Scale } from '@citrus/data-kit'
import { seedDataset } from '../apps/server/src/data/seed.ts'
import { startEmbeddedPostgres } from '../apps/server/src/db/embedded.ts'
import { applyMigrations } from '../apps/server/src/db/migrate.ts'
import { MIGRATIONS_DIR } from '../apps/server/src/runtime.ts'

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted.length === 0 ? 0 : sorted[Math.floor((sorted.length - 1) / 2)]!
}

export async function benchFirstStart(options: { scale: Scale['name']; intervalMs: number }): Promise<void> {
  const embedded = await startEmbeddedPostgres({ maxConnections: 8 })
  const pool = new pg.Pool({ connectionString: embedded.url, max: 4 })
  try {
    await applyMigrations(embedded.url, MIGRATIONS_DIR)
    const statements: { ms: number; sql: string; step: string }[] = []
    // the step a probe is attributed to: the load's latest progress line
    let step = 'start'
    const waits = new Map<string, number[]>()
    const order: string[] = []
    const sink = {
      isTTY: false,
      write(text: string) {
        for (const line of text.split('\n')) {
          const name = /^\s*(?:refresh\s+)?([a-z_0-9]+(?: \([a-z]+\))?)/.exec(line)?.[1]
          if (name) step = line.trim().startsWith('refresh') ? `refresh ${name}` : name
        }
      },
    }
    let loading = true
    const probe = (async () => {
      const client = await pool.connect()
      try {
        while (loading) {
          const at = step
          const started = performance.now()
          await client.query('SELECT id, password_hash, is_active FROM users WHERE email = $1', ['admin@citrus.demo'])
          const ms = performance.now() - started
          if (!waits.has(at)) {
            waits.set(at, [])
            order.push(at)
          }
          waits.get(at)!.push(ms)
          await new Promise((resolve) => setTimeout(resolve, options.intervalMs))
        }
      } finally {
        client.release()
      }
    })()
    // every statement the load's connections run, timed (the probe has its connection already)
    await new Promise((resolve) => setTimeout(resolve, 50))
    timeStatements(pool, (ms, sql) => statements.push({ ms, sql, step }))
    const began = performance.now()
    await seedDataset(pool, { scale: options.scale, shortTurns: true, sink })
    loading = false
    await probe
    console.log(
      `first-start load, scale ${options.scale}: ${((performance.now() - began) / 1000).toFixed(0)} s; sign-in query every ${options.intervalMs} ms`,
    )
    console.log(`${'step'.padEnd(44)} ${'probes'.padStart(6)} ${'median ms'.padStart(10)} ${'max ms'.padStart(9)}`)
    let worst = 0
    for (const name of order) {
      const values = waits.get(name)!
      const max = Math.max(...values)
      worst = Math.max(worst, max)
      console.log(
        `${name.padEnd(44)} ${String(values.length).padStart(6)} ${median(values).toFixed(1).padStart(10)} ${max.toFixed(0).padStart(9)}`,
      )
    }
    console.log(`longest wait of sign-in's query during the load: ${worst.toFixed(0)} ms`)
    const longest = [...statements].sort((a, b) => b.ms - a.ms).slice(0, 15)
    console.log(`longest statements of the load (${statements.length} timed):`)
    for (const statement of longest)
      console.log(
        `${statement.ms.toFixed(0).padStart(7)} ms  ${statement.step.padEnd(34)} ${statement.sql.replace(/\s+/g, ' ').slice(0, 100)}`,
      )
  } finally {
    await pool.end()
    await embedded.stop()
  }
}

/**
 * Times every statement run on the pool's connections from now on (pool.query and pool.connect's clients; COPY
 * streams are not timed): `record(ms, sql)` as each settles.
 */
function timeStatements(pool: pg.Pool, record: (ms: number, sql: string) => void): void {
  const timed = new WeakSet<pg.PoolClient>()
  const instrument = (client: pg.PoolClient) => {
    if (timed.has(client)) return
    timed.add(client)
    const query = client.query.bind(client) as (...args: unknown[]) => unknown
    ;(client as { query: unknown }).query = (...args: unknown[]) => {
      const first = args[0]
      const sql = typeof first === 'string' ? first : ((first as { text?: string } | null)?.text ?? null)
      const started = performance.now()
      const last = args.length - 1
      const callback = args[last]
      if (sql !== null && last > 0 && typeof callback === 'function')
        args[last] = (...results: unknown[]) => (
          record(performance.now() - started, sql),
          (callback as (...r: unknown[]) => unknown)(...results)
        )
      const result = query(...args)
      if (sql !== null && result instanceof Promise)
        void result.then(
          () => record(performance.now() - started, sql),
          () => record(performance.now() - started, sql),
        )
      return result
    }
  }
  const connect = pool.connect.bind(pool) as (
    callback?: (error: Error | undefined, client: pg.PoolClient, done: () => void) => void,
  ) => unknown
  ;(pool as { connect: unknown }).connect = (callback?: (error: Error | undefined, client: pg.PoolClient, done: () => void) => void) => {
    if (callback)
      return connect((error, client, done) => {
        if (!error) instrument(client)
        callback(error, client, done)
      })
    return (connect() as Promise<pg.PoolClient>).then((client) => (instrument(client), client))
  }
}
