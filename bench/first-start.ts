/**
 * What a user waits for while `npm start` loads the demo dataset into the embedded database (issue 32): a scratch
 * in-memory embedded database, migrated, loaded exactly as the first start loads it (seedDataset, demo scale,
 * shortTurns), while a probe runs sign-in's query every 250 ms on another connection. Prints, per step of the load,
 * how many probes ran and their median and longest wait: the longest is the statement the probe waited behind.
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
  } finally {
    await pool.end()
    await embedded.stop()
  }
}
