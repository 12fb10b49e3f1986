/**
 * Scale-out, side by side in one run (issue 34, docs/scaling.md). Independent server processes (separate OS processes
 * on their own ports, no shared parent state) against one PostgreSQL, Care Connect searches scored afresh, rounds
 * alternated so that the machine's load hits every side. Three parts (`--parts`, all by default):
 *
 * - processes: searches per second against one server process, then against two (the target: ≥ 1.6×);
 * - replica: the PostgreSQL CPU per search against a process without DATABASE_REPLICA_URL (A) and one with it (B),
 *   A / B / A / B: utime + stime of every process of the primary's cluster (the children of the postmaster of its
 *   data directory, and what the postmaster reaped) and of the replica's, before and after each round, divided by the
 *   searches (the target: the primary's falls by ≥ 80 %). The cluster may serve other databases too, so each figure is
 *   printed twice: every process of the cluster, and only the backends of this database with the cluster's own
 *   processes (walsender, walwriter, checkpointer, startup...). Then which statements of a search still run on the
 *   primary: log_min_duration_statement = 0 set on this database for the round (reset after it), a fresh process C
 *   like B, and the lines both clusters' logs (the postmasters' stderr) gained, per search;
 * - etag: one data-versioned answer (the same Care Connect search, not bypassed; an Atlas STATE map) repeated at
 *   concurrency 8 with If-None-Match set to its first answer's ETag (the target: 304 p95 ≤ 5 ms), beside the same
 *   request without it; the share of 304s from the server's own counts.
 *
 * Every figure is printed with the load average beside it. Nothing passes or fails.
 *
 *   DATABASE_URL=postgres://…/db npm run bench -- scale-out [--requests 200] [--rounds 2] [--concurrency 8]
 *       [--parts processes,replica,etag] [--replica-url postgres://…:5433/db]
 */
import { fork, spawnSync, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs'
import { loadavg } from 'node:os'
import { pathToFileURL } from 'node:url'
import pg from 'pg'
import { buildApp } from '../apps/server/src/app.ts'
import { loadEnv } from '../apps/server/src/config.ts'
import { createDatabase } from '../apps/server/src/db/database.ts'
import { applyMigrations } from '../apps/server/src/db/migrate.ts'
import { careSelectCandidates } from '../apps/server/src/engines/care-select/candidate-index.ts'
import { dataVersion } from '../apps/server/src/lib/versioned-cache.ts'
import { MIGRATIONS_DIR } from '../apps/server/src/runtime.ts'
import { createBenchCompany, createBenchUser } from './bench-server.ts'
import { ms, quantileOf, runHttpLoad, type BenchRequest } from './http-load.ts'

interface BenchUser {
  id: number
  email: string
  company_id: number
  company_name: string
}

interface ServeMessage {
  serve: { databaseUrl: string; replicaUrl: string | null; jwtSecret: string; user: BenchUser; taxonomy: string }
}

interface HttpCacheCounts {
  notModified: number
  sent: number
}

/** A child: the whole app on a free port; answers with its port and a login token for the bench user. */
async function serve(): Promise<void> {
  const message = await new Promise<ServeMessage>((resolve) => process.once('message', (m) => resolve(m as ServeMessage)))
  const { databaseUrl, replicaUrl, jwtSecret, user, taxonomy } = message.serve
  const env = loadEnv({
    LOG_LEVEL: 'silent',
    OUTBOX_POLL_INTERVAL_MS: '0',
    DATABASE_URL: databaseUrl,
    // only the message says whether the process has a replica, not an inherited DATABASE_REPLICA_URL
    DATABASE_REPLICA_URL: replicaUrl ?? '',
  })
  const app = await buildApp(
    { env, databaseUrl, databaseMode: 'postgres', jwtSecret, migrationsDir: MIGRATIONS_DIR, webDistDir: null },
    { logger: false, warmConnections: true },
  )
  await app.listen({ host: '127.0.0.1', port: 0 })
  // the specialty's whole index, built before the rounds: a search would otherwise be answered from its area's rows
  // read from the database while the index builds in the background (docs/decisions/0080), at the full scale for
  // 15-30 s, and the rounds would measure those
  await careSelectCandidates.rows(app.db.pool, await dataVersion(app.db.pool), { taxonomy })
  const address = app.server.address()
  const token = app.tokens.signLogin({ ...user, role: 'user', phone_number: null })
  process.on('message', (m) => {
    if ((m as { counts?: boolean }).counts) process.send?.({ counts: { ...app.httpCacheCounts } })
  })
  process.send?.({ port: typeof address === 'object' && address ? address.port : 0, token })
  process.once('disconnect', () => void app.close().then(() => process.exit(0)))
}

interface Server {
  child: ChildProcess
  base: string
  token: string
  label: string
}

function start(message: ServeMessage, label: string): Promise<Server> {
  const child = fork(new URL(import.meta.url).pathname, ['serve'], { execArgv: ['--import', 'tsx'], stdio: 'inherit' })
  child.send(message)
  return new Promise((resolve, reject) => {
    child.once('message', (m) => {
      const { port, token } = m as { port: number; token: string }
      resolve({ child, base: `http://127.0.0.1:${port}`, token, label })
    })
    child.once('exit', (code) => reject(new Error(`a server process exited (${code}) before it listened`)))
  })
}

function cacheCounts(server: Server): Promise<HttpCacheCounts> {
  return new Promise((resolve) => {
    const listener = (m: unknown) => {
      const counts = (m as { counts?: HttpCacheCounts }).counts
      if (!counts) return
      server.child.off('message', listener)
      resolve(counts)
    }
    server.child.on('message', listener)
    server.child.send({ counts: true })
  })
}

const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100

interface ProcStat {
  ppid: number
  /** utime + stime, clock ticks */
  own: number
  /** cutime + cstime: the children it has reaped */
  reaped: number
}

/** /proc/<pid>/stat (fields after the command name, which may hold spaces); null when the process is gone. */
function procStat(pid: number): ProcStat | null {
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return null
  }
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
  // fields[0] is state (field 3): ppid field 4, utime 14, stime 15, cutime 16, cstime 17
  return {
    ppid: Number(fields[1]),
    own: Number(fields[11]) + Number(fields[12]),
    reaped: Number(fields[13]) + Number(fields[14]),
  }
}

/** One PostgreSQL cluster: its postmaster and a connection that reads its pg_stat_activity. */
interface Cluster {
  name: string
  client: pg.Client
  postmaster: number
  dataDirectory: string
  probePid: number
}

async function openCluster(name: string, url: string): Promise<Cluster> {
  const client = new pg.Client({ connectionString: url, application_name: 'citrus-bench-cpu' })
  await client.connect()
  const dataDirectory = (await client.query<{ data_directory: string }>('SHOW data_directory')).rows[0]!.data_directory
  const probePid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid
  // the postmaster of that data directory (postmaster.pid's first line); every backend is its child
  const fromFile = Number(readFileSync(`${dataDirectory}/postmaster.pid`, 'utf8').split('\n')[0])
  const parent = procStat(probePid)?.ppid
  if (parent !== fromFile) throw new Error(`${name}: postmaster.pid says ${fromFile}, the backend's parent is ${parent}`)
  return { name, client, postmaster: fromFile, dataDirectory, probePid }
}

/** Waits until the replica has replayed the primary's WAL as of now (at most 30 s). */
async function waitForReplay(primary: Cluster, replica: Cluster): Promise<void> {
  const target = (await primary.client.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]!.lsn
  for (let waited = 0; waited < 30_000; waited += 100) {
    const { rows } = await replica.client.query<{ caught: boolean }>(
      'SELECT coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, false) AS caught',
      [target],
    )
    if (rows[0]!.caught) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`the replica has not replayed ${target} within 30 s`)
}

/** CPU ticks of a cluster's processes at one moment. */
interface Snapshot {
  /** every child of the postmaster, the postmaster itself and what it reaped */
  all: number
  /** per process, the ticks of this database's backends and of the cluster's own processes (no database) */
  ours: Map<number, number>
}

async function snapshot(cluster: Cluster, database: string): Promise<Snapshot> {
  const { rows } = await cluster.client.query<{ pid: number; datname: string | null }>('SELECT pid, datname FROM pg_stat_activity')
  const oursPids = new Set(
    rows.filter((r) => (r.datname === database || r.datname === null) && r.pid !== cluster.probePid).map((r) => r.pid),
  )
  const master = procStat(cluster.postmaster)
  let all = master ? master.own + master.reaped : 0
  const ours = new Map<number, number>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const pid = Number(entry)
    const stat = procStat(pid)
    if (!stat || stat.ppid !== cluster.postmaster) continue
    all += stat.own + stat.reaped
    if (oursPids.has(pid)) ours.set(pid, stat.own)
  }
  return { all, ours }
}

/** Seconds of CPU between two snapshots: the whole cluster, and this database's share (processes of `after`). */
function spent(before: Snapshot, after: Snapshot): { all: number; ours: number } {
  let ours = 0
  for (const [pid, ticks] of after.ours) ours += ticks - (before.ours.get(pid) ?? 0)
  return { all: (after.all - before.all) / CLOCK_TICKS, ours: ours / CLOCK_TICKS }
}

/** The file a postmaster writes its log to (its stderr; logging_collector off, as on Debian's clusters). */
function logFileOf(cluster: Cluster): string {
  return readlinkSync(`/proc/${cluster.postmaster}/fd/2`)
}

/**
 * The statements a cluster logged (log_min_duration_statement = 0, set on this database only) from `offset` on:
 * per statement (its kind, parse / bind / execute or statement, and its first 110 characters), how many and their
 * total duration. `database` keeps the lines of this database when the prefix names it (%d).
 */
function loggedStatements(file: string, offset: number, database: string): Map<string, { count: number; ms: number }> {
  const text = readFileSync(file).subarray(offset).toString('utf8')
  const found = new Map<string, { count: number; ms: number }>()
  const lines = text.split('\n')
  for (const [at, line] of lines.entries()) {
    const match = /duration: ([\d.]+) ms {2}(statement|parse [^:]*|bind [^:]*|execute [^:]*): (.*)$/.exec(line)
    if (!match || (line.includes('@') && !line.includes(`@${database} `))) continue
    // a statement's text goes on over the lines that begin with a tab
    let statement = match[3]!
    for (let next = at + 1; next < lines.length && lines[next]!.startsWith('\t') && statement.length < 400; next++)
      statement += ` ${lines[next]}`
    const kind = match[2]!.split(' ')[0]!
    const key = `${kind.padEnd(9)} ${statement.replace(/\s+/g, ' ').trim().slice(0, 110)}`
    const entry = found.get(key) ?? { count: 0, ms: 0 }
    entry.count++
    entry.ms += Number(match[1])
    found.set(key, entry)
  }
  return found
}

function printLogged(name: string, found: Map<string, { count: number; ms: number }>, searches: number): void {
  const rows = [...found].sort((x, y) => y[1].ms - x[1].ms)
  const [count, total] = rows.reduce(([c, t], [, e]) => [c + e.count, t + e.ms], [0, 0])
  console.log(
    `    ${name}: ${(count / searches).toFixed(1)} logged steps per search, ${(total / searches).toFixed(2)} ms of statement time per search`,
  )
  for (const [key, e] of rows.slice(0, 14))
    console.log(`      ${(e.count / searches).toFixed(2).padStart(6)}/search ${(e.ms / searches).toFixed(3).padStart(7)} ms/search  ${key}`)
}

export interface ScaleOutOptions {
  requests: number
  rounds: number
  concurrency: number
  parts: ReadonlySet<string>
  /** the replica of DATABASE_URL's database (the replica part needs it) */
  replicaUrl: string | null
}

export const SCALE_OUT_PARTS = ['processes', 'replica', 'etag'] as const

export async function benchScaleOut(options: ScaleOutOptions): Promise<void> {
  const { requests, rounds, concurrency, parts, replicaUrl } = options
  const env = loadEnv({ LOG_LEVEL: 'silent' })
  const databaseUrl = env.DATABASE_URL
  if (!databaseUrl) throw new Error('scale-out needs DATABASE_URL (PostgreSQL: the embedded database serves one process)')
  if (parts.has('replica') && !replicaUrl) throw new Error('the replica part needs --replica-url (or DATABASE_REPLICA_URL)')
  await applyMigrations(databaseUrl, MIGRATIONS_DIR)
  const db = createDatabase(databaseUrl, { maxConnections: 2 })
  const database = new URL(databaseUrl).pathname.slice(1)
  const taxonomy = '207Q00000X'
  const zip = (
    await db.pool.query<{ zip: string }>(
      'SELECT zip_code AS zip FROM providers WHERE primary_taxonomy_code = $1 GROUP BY zip_code ORDER BY count(*) DESC, 1 LIMIT 1',
      [taxonomy],
    )
  ).rows[0]?.zip
  if (!zip) throw new Error(`no provider of ${taxonomy}: load a dataset first`)
  const company = await createBenchCompany(db, 'Bench', ['CARE_SELECT', 'ATLAS'])
  const user = await createBenchUser(db, company.id, 'user')
  const jwtSecret = randomUUID() + randomUUID()
  const serveMessage = (replica: string | null): ServeMessage => ({
    serve: {
      databaseUrl,
      replicaUrl: replica,
      jwtSecret,
      user: { id: user.id, email: user.email, company_id: company.id, company_name: company.company_name },
      taxonomy,
    },
  })
  const search = new URLSearchParams({ zip_code: zip, omni_code: taxonomy })
  const afresh = `/api/care-select/rankings?${search.toString()}&_bypass_cache=true`
  const list = (server: Server, n: number, path = afresh, extra: Record<string, string> = {}, status = 200): BenchRequest[] =>
    Array.from({ length: n }, () => ({ path, headers: { authorization: `Bearer ${server.token}`, ...extra }, status }))
  const servers: Server[] = []
  const primary = await openCluster('primary', databaseUrl)
  const replica = replicaUrl ? await openCluster('replica', replicaUrl) : null
  try {
    const a = await start(serveMessage(null), 'A: no replica')
    servers.push(a)
    await runHttpLoad(a.base, list(a, 20), 2)
    console.log(
      `Scale-out (${database}): GET /api/care-select/rankings scored afresh (specialty ${taxonomy}, ZIP ${zip}), ` +
        `${requests} requests per round at concurrency ${concurrency}; load average (1, 5, 15 min) before each round`,
    )

    if (parts.has('processes')) {
      const second = await start(serveMessage(null), 'A2: no replica')
      servers.push(second)
      await runHttpLoad(second.base, list(second, 20), 2)
      console.log(`\n  Searches per second, 1 process against 2 independent processes (${concurrency / 2} each):`)
      for (let round = 1; round <= rounds; round++) {
        const loadA = load()
        const one = await runHttpLoad(a.base, list(a, requests), concurrency)
        const loadB = load()
        const started = performance.now()
        const half = Math.ceil(concurrency / 2)
        await Promise.all([a, second].map((server) => runHttpLoad(server.base, list(server, requests / 2), half)))
        const two = requests / ((performance.now() - started) / 1000)
        console.log(
          `    round ${round}: 1 process ${one.throughput.toFixed(1)} searches/s (load ${loadA}); ` +
            `2 processes ${two.toFixed(1)} searches/s (load ${loadB}); ratio ${(two / one.throughput).toFixed(2)}`,
        )
      }
    }

    if (parts.has('replica') && replica) {
      const b = await start(serveMessage(replicaUrl), 'B: DATABASE_REPLICA_URL')
      servers.push(b)
      await runHttpLoad(b.base, list(b, 20), 2)
      await waitForReplay(primary, replica)
      const lag = await replica.client.query<{ replayed: string | null }>('SELECT pg_last_wal_replay_lsn()::text AS replayed')
      const head = await primary.client.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')
      console.log(
        `\n  PostgreSQL CPU per search, A (no replica) against B (DATABASE_REPLICA_URL), alternating; primary ${primary.dataDirectory} ` +
          `(postmaster ${primary.postmaster}), replica ${replica.dataDirectory} (postmaster ${replica.postmaster}), replayed ` +
          `${lag.rows[0]?.replayed} of ${head.rows[0]?.lsn}; clock ${CLOCK_TICKS} ticks/s. Per search: the whole cluster ` +
          `(this database's backends and the cluster's own processes)`,
      )
      const perSearch: Record<'A' | 'B', { primary: number[]; primaryOurs: number[]; replica: number[]; replicaOurs: number[] }> = {
        A: { primary: [], primaryOurs: [], replica: [], replicaOurs: [] },
        B: { primary: [], primaryOurs: [], replica: [], replicaOurs: [] },
      }
      for (let round = 1; round <= rounds; round++) {
        for (const [side, server] of [
          ['A', a],
          ['B', b],
        ] as const) {
          const before = { load: load(), primary: await snapshot(primary, database), replica: await snapshot(replica, database) }
          const serverBefore = procStat(server.child.pid!)
          const result = await runHttpLoad(server.base, list(server, requests), concurrency)
          const serverAfter = procStat(server.child.pid!)
          const p = spent(before.primary, await snapshot(primary, database))
          const r = spent(before.replica, await snapshot(replica, database))
          const per = (seconds: number) => (seconds * 1000) / requests
          perSearch[side].primary.push(per(p.all))
          perSearch[side].primaryOurs.push(per(p.ours))
          perSearch[side].replica.push(per(r.all))
          perSearch[side].replicaOurs.push(per(r.ours))
          const serverMs = serverBefore && serverAfter ? per((serverAfter.own - serverBefore.own) / CLOCK_TICKS).toFixed(1) : '?'
          console.log(
            `    round ${round} ${server.label.padEnd(24)} ${result.throughput.toFixed(1).padStart(6)} searches/s; primary ` +
              `${per(p.all).toFixed(2)} ms CPU/search (${per(p.ours).toFixed(2)}); replica ${per(r.all).toFixed(2)} ` +
              `(${per(r.ours).toFixed(2)}); server process ${serverMs} ms; load ${before.load}`,
          )
        }
      }
      const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0)
      const change = (key: 'primary' | 'primaryOurs') => {
        const [ta, tb] = [sum(perSearch.A[key]), sum(perSearch.B[key])]
        return `${(tb / ta).toFixed(2)} (${((tb / ta - 1) * 100).toFixed(0)} %)`
      }
      console.log(
        `    over all rounds, B / A of the primary's CPU per search: whole cluster ${change('primary')}, ` +
          `this database and the cluster's own processes ${change('primaryOurs')}; the replica's per search: A ` +
          `${(sum(perSearch.A.replica) / rounds).toFixed(2)} (${(sum(perSearch.A.replicaOurs) / rounds).toFixed(2)}) ms, B ` +
          `${(sum(perSearch.B.replica) / rounds).toFixed(2)} (${(sum(perSearch.B.replicaOurs) / rounds).toFixed(2)}) ms; load ${load()}`,
      )
      // which statements of a search still run where: log_min_duration_statement = 0 on this database (a database
      // setting, replicated, read by new connections only), a fresh process C like B, its searches' log lines
      const lsn = (await primary.client.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]!.lsn
      await primary.client.query(`ALTER DATABASE "${database}" SET log_min_duration_statement = 0`)
      try {
        await waitForReplay(primary, replica)
        const c = await start(serveMessage(replicaUrl), 'C: DATABASE_REPLICA_URL, statements logged')
        servers.push(c)
        await runHttpLoad(c.base, list(c, 20), 2)
        await new Promise((resolve) => setTimeout(resolve, 500))
        const files = [logFileOf(primary), logFileOf(replica)] as const
        const offsets = files.map((file) => statSync(file).size)
        await runHttpLoad(c.base, list(c, requests), concurrency)
        await new Promise((resolve) => setTimeout(resolve, 500))
        console.log(
          `\n  Statements of a search on each cluster (process C, like B; ${requests} searches; log_min_duration_statement = 0 ` +
            `on ${database} from WAL ${lsn}; ${files.join(', ')}):`,
        )
        printLogged('primary', loggedStatements(files[0], offsets[0]!, database), requests)
        printLogged('replica', loggedStatements(files[1], offsets[1]!, database), requests)
      } finally {
        await primary.client.query(`ALTER DATABASE "${database}" RESET log_min_duration_statement`)
      }
    }

    if (parts.has('etag')) {
      const answers: [string, string][] = [
        ['Care Connect search (the same, not bypassed)', `/api/care-select/rankings?${search.toString()}`],
        [
          'Atlas generic national STATE map',
          '/api/atlas/generic?icd10_cm_union_csv=E11,I10,E66,J45,J44&tile_granularity=STATE&search_within_region=US&search_within_region_type=COUNTRY',
        ],
      ]
      const repeats = requests * 5
      console.log(`\n  A repeated answer at concurrency 8, ${repeats} requests per round, process A, gzip accepted:`)
      for (const [name, path] of answers) {
        const first = await fetch(`${a.base}${path}`, { headers: { authorization: `Bearer ${a.token}`, 'accept-encoding': 'gzip' } })
        const body = await first.arrayBuffer()
        const etag = first.headers.get('etag')
        if (first.status !== 200 || !etag) throw new Error(`${path}: ${first.status}, ETag ${etag}`)
        console.log(`    ${name}: ${body.byteLength} bytes of JSON, ETag ${etag}`)
        await runHttpLoad(a.base, list(a, 50, path), 8)
        for (let round = 1; round <= rounds; round++) {
          for (const tagged of [true, false]) {
            // wrk's connections may still be answering after the list's last answer was counted
            await new Promise((resolve) => setTimeout(resolve, 300))
            const loadBefore = load()
            const countsBefore = await cacheCounts(a)
            const cpuBefore = { server: procStat(a.child.pid!), primary: await snapshot(primary, database) }
            const result = tagged
              ? await runHttpLoad(a.base, list(a, repeats, path, { 'if-none-match': etag }, 304), 8)
              : await runHttpLoad(a.base, list(a, repeats, path), 8)
            const cpuAfter = { server: procStat(a.child.pid!), primary: await snapshot(primary, database) }
            const countsAfter = await cacheCounts(a)
            const answered = countsAfter.notModified - countsBefore.notModified + countsAfter.sent - countsBefore.sent
            const perAnswer = (seconds: number) => ((seconds * 1000) / Math.max(1, answered)).toFixed(2)
            const serverCpu =
              cpuBefore.server && cpuAfter.server ? perAnswer((cpuAfter.server.own - cpuBefore.server.own) / CLOCK_TICKS) : '?'
            const notModified = countsAfter.notModified - countsBefore.notModified
            const sent = countsAfter.sent - countsBefore.sent
            console.log(
              `      round ${round} ${tagged ? 'If-None-Match   ' : 'no If-None-Match'}: p50 ${ms(quantileOf(result.latencies, 0.5))} ms, ` +
                `p95 ${ms(quantileOf(result.latencies, 0.95))} ms, ${result.throughput.toFixed(0)} req/s; 304s ` +
                `${((notModified * 100) / Math.max(1, notModified + sent)).toFixed(1)} % (${notModified} of ${notModified + sent} tagged answers); ` +
                `CPU per answer: server process ${serverCpu} ms, primary ${perAnswer(spent(cpuBefore.primary, cpuAfter.primary).ours)} ms; ` +
                `load ${loadBefore}`,
            )
          }
        }
      }
    }
  } finally {
    for (const server of servers) server.child.disconnect()
    await primary.client.end()
    await replica?.client.end()
    await db.close()
  }
}

function option(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`)
  return at === -1 ? undefined : process.argv[at + 1]
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (process.argv[2] === 'serve') await serve()
  else
    await benchScaleOut({
      requests: Number(option('requests') ?? 200),
      rounds: Number(option('rounds') ?? 2),
      concurrency: Number(option('concurrency') ?? 8),
      parts: new Set((option('parts') ?? SCALE_OUT_PARTS.join(',')).split(',')),
      replicaUrl: option('replica-url') ?? loadEnv().DATABASE_REPLICA_URL?.join(',') ?? null,
    })
}
