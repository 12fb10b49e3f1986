/**
 * Engine memory of a real server process (issue 34 §5, docs/decisions/0084): starts the built server
 * (`apps/server/dist/main.js`, `node scripts/build-server.mjs` first) on DATABASE_URL with its default warm-ups, samples
 * its resident memory (/proc/<pid>/status, every --interval-ms) and prints, with the load average beside each figure:
 * the warm-ups' time and the highest RSS while they built; the RSS settled; a first search of a specialty not warmed
 * (answered from its area's rows while its index builds); then a new data version (a finished `data_loads` row, a copy
 * of the last one, deleted at the end), the searches just after it, the highest RSS while the new version's indexes
 * built, and the RSS settled again. Nothing passes or fails.
 *
 *   node scripts/build-server.mjs && DATABASE_URL=postgres://…/citrus_full npm run bench -- engine-memory
 *       [--interval-ms 250] [--seconds 900]
 */
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { loadavg } from 'node:os'
import { hashPassword } from '../apps/server/src/auth/password.ts'
import { loadEnv } from '../apps/server/src/config.ts'
import { createDatabase } from '../apps/server/src/db/database.ts'
import { createBenchCompany, createBenchUser } from './bench-server.ts'

/** The log lines of the three warm-ups (services/*\/warm.ts). */
const WARM_UPS = ['Nova data built', 'Care Select indexes built', 'Atlas indexes built']
const MAIN = new URL('../apps/server/dist/main.js', import.meta.url).pathname

const mib = (kib: number) => `${Math.round(kib / 1024).toLocaleString('en-US')} MiB`
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

export async function benchEngineMemory(options: { intervalMs: number; seconds: number }): Promise<void> {
  const databaseUrl = loadEnv({ LOG_LEVEL: 'silent' }).DATABASE_URL
  if (!databaseUrl) throw new Error('engine-memory needs DATABASE_URL (a loaded scale on PostgreSQL)')
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run node scripts/build-server.mjs first`)
  const db = createDatabase(databaseUrl, { maxConnections: 2 })
  const password = randomUUID()
  const company = await createBenchCompany(db, 'Bench memory', ['CARE_SELECT'])
  const user = await createBenchUser(db, company.id, 'user', { passwordHash: await hashPassword(password) })
  const cold = '207X00000X'
  const zipOf = async (taxonomy: string) =>
    (
      await db.pool.query<{ zip: string }>(
        'SELECT zip_code AS zip FROM providers WHERE primary_taxonomy_code = $1 GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1',
        [taxonomy],
      )
    ).rows[0]?.zip ?? '11212'
  const metro = await zipOf('207Q00000X')
  const port = await freePort()
  const child = spawn(process.execPath, [MAIN], {
    env: {
      // eslint-disable-next-line no-restricted-properties -- the child is the built server: it reads its own environment
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'info',
      JWT_SECRET: randomUUID() + randomUUID(),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const started = Date.now()
  const seen = new Map<string, number>()
  let pending = ''
  child.stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString()
    for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
      const line = pending.slice(0, end)
      pending = pending.slice(end + 1)
      const message = /"msg":"([^"]*)"/.exec(line)?.[1]
      if (message) seen.set(message, (seen.get(message) ?? 0) + 1)
    }
  })
  // 0 once the process has gone (a crash is reported by its own stderr)
  const rss = () => {
    try {
      return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0)
    } catch {
      return 0
    }
  }
  let peak = 0
  const sampler = setInterval(() => (peak = Math.max(peak, rss())), options.intervalMs)
  const deadline = started + options.seconds * 1000
  const until = async (done: () => boolean, what: string) => {
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${options.seconds} s (--seconds)`)
      await sleep(options.intervalMs)
    }
  }
  const base = `http://127.0.0.1:${port}`
  let insertedLoad: number | null = null
  let ready = false
  let poll: NodeJS.Timeout | undefined
  try {
    await until(() => seen.size > 0, 'the server')
    poll = setInterval(
      () =>
        void fetch(`${base}/readyz`).then(
          (r) => (ready ||= r.ok),
          () => undefined,
        ),
      options.intervalMs,
    )
    await until(() => ready, 'readiness')
    clearInterval(poll)
    const login = await fetch(`${base}/api/users/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: user.email, password }),
    })
    const { token } = (await login.json()) as { token: string }
    const search = async (taxonomy: string, zip: string) => {
      const at = performance.now()
      const response = await fetch(`${base}/api/care-select/rankings?zip_code=${zip}&omni_code=${taxonomy}&_bypass_cache=true`, {
        headers: { authorization: `Bearer ${token}` },
      })
      await response.arrayBuffer()
      return `${taxonomy} in ${zip}: ${response.status} in ${((performance.now() - at) / 1000).toFixed(2)} s`
    }
    const warmed = (count: number) => WARM_UPS.every((message) => (seen.get(message) ?? 0) >= count)

    console.log(`Engine memory of ${MAIN} on ${new URL(databaseUrl).pathname.slice(1)}, RSS every ${options.intervalMs} ms`)
    await until(() => warmed(1), WARM_UPS.join(', '))
    console.log(
      `  warm-ups done after ${((Date.now() - started) / 1000).toFixed(1)} s; highest RSS meanwhile ${mib(peak)} (load ${load()})`,
    )
    await sleep(10_000)
    console.log(`  RSS settled: ${mib(rss())}`)
    console.log(`  first search of a specialty not warmed: ${await search(cold, await zipOf(cold))} (load ${load()})`)
    await sleep(30_000)

    const { rows } = await db.pool.query<{ id: number }>(
      `INSERT INTO data_loads (kind, scale, status, finished_at)
       SELECT kind, scale, 'done', now() FROM data_loads ORDER BY id DESC LIMIT 1 RETURNING id`,
    )
    insertedLoad = rows[0]?.id ?? null
    const versionAt = Date.now()
    peak = rss()
    await sleep(5_500) // the warm-up poll (engines/warm.ts) is 5 s
    console.log(`  a new data version; just after it (load ${load()}):`)
    for (const taxonomy of ['207Q00000X', '207R00000X', '208D00000X']) console.log(`    ${await search(taxonomy, metro)}`)
    await until(() => warmed(2), `the warm-ups of the new version`)
    console.log(
      `  its warm-ups done after ${((Date.now() - versionAt) / 1000).toFixed(1)} s; highest RSS meanwhile ${mib(peak)} (load ${load()})`,
    )
    await sleep(10_000)
    console.log(`  RSS settled: ${mib(rss())}`)
  } finally {
    clearInterval(sampler)
    clearInterval(poll)
    child.kill('SIGTERM')
    if (insertedLoad !== null) await db.pool.query('DELETE FROM data_loads WHERE id = $1', [insertedLoad])
    await db.pool.query('DELETE FROM users WHERE id = $1', [user.id]).catch(() => undefined)
    await db.close()
  }
}
