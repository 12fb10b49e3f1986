/**
 * Upload bombs against a serving server (issue 32 §1): the real server (bench-server.ts) on a scratch embedded
 * database (or DATABASE_URL), and for each kind of bomb the AI Hub tests use (services/ai-hub/test-bombs.ts) six
 * copies uploaded at once through POST /api/ai-hub/documents, then the six of the mixed test together, while a
 * worker thread polls /healthz every 50 ms on a fixed schedule (a stall of the server's event loop shows in full,
 * not only in the one request in flight) and samples the process's RSS every 20 ms. Prints per round the /healthz
 * median, p95 and max, each upload's status, code and time, and the peak RSS above the idle level measured after
 * a warm-up upload (the database's thread and the extraction threads run in this process too). Half a second into each
 * round one ordinary document (a page of text) is uploaded too: what a user gets while others upload bombs.
 * Targets (issue 32): /healthz within 200 ms, every bomb a 4xx within 5 s, RSS under 1 GB above idle. The peak is the
 * highest RSS of the round; the idle level is measured once, so memory a round keeps shows in the next rounds too.
 *
 *   npm run bench -- bombs [--rounds kind,kind,...]
 *
 * Never passes or fails; the figures go to docs/performance.md.
 */
import { loadavg } from 'node:os'
import { performance } from 'node:perf_hooks'
import { Worker } from 'node:worker_threads'
import { loadEnv } from '../apps/server/src/config.ts'
import { createDatabase } from '../apps/server/src/db/database.ts'
import { startEmbeddedPostgres } from '../apps/server/src/db/embedded.ts'
import { applyMigrations } from '../apps/server/src/db/migrate.ts'
import { docxBomb, pdfBomb, pptxBomb, xlsxBomb } from '../apps/server/src/services/ai-hub/test-bombs.ts'
import { MIGRATIONS_DIR } from '../apps/server/src/runtime.ts'
import { startBenchServer, createBenchCompany, createBenchUser, benchLoginToken } from './bench-server.ts'
import { ms, quantileOf } from './http-load.ts'

const MB = 1024 * 1024
const COPIES = 6

/** The kinds of bomb, as the AI Hub's tests make them (ai-hub.int.test.ts, extract-pool.test.ts). */
const KINDS: Record<string, () => Buffer> = {
  'text.docx': () => docxBomb(200 * MB), // the issue's: 200 MB of text
  'spaces.docx': () => docxBomb(400 * MB, { fill: ' ' }), // 400 MB of spaces
  'liar.docx': () => docxBomb(200 * MB, { lie: true }), // the archive's directory says 4 KB
  'liar.pptx': () => pptxBomb(200 * MB, { lie: true }),
  'liar.xlsx': () => xlsxBomb(400 * MB, { lie: true }),
  'cells.xlsx': () => xlsxBomb(30 * MB, { cells: true }), // numeric cells: ExcelJS builds an object for each
  'drawn.pdf': () => pdfBomb(200 * MB),
  'paths.pdf': () => pdfBomb(30 * MB, { paths: true }), // no text: only the time limit stops reading it
  'word.docx': () => docxBomb(30 * MB), // within the unpacked cap, past the text cap
  'text.pdf': () => pdfBomb(4 * MB),
  'aaaa.txt': () => Buffer.alloc(300_000, 'a'), // one 300,000-letter word
}
/** The ordinary document uploaded during each round: a page of prose, well within every limit. */
const ORDINARY = Buffer.from(
  Array.from({ length: 40 }, (_, index) => `Territory ${index + 1}: cardiology referrals rose 12 percent in the third quarter.`).join('\n'),
)
/** The six of ai-hub.int.test.ts's concurrent test, one of each. */
const MIXED = ['text.docx', 'liar.docx', 'liar.xlsx', 'liar.pptx', 'word.docx', 'drawn.pdf']

/** The poller: /healthz every 50 ms whatever the answers take, and the RSS every 20 ms, until told to stop. */
const POLLER = `
const { parentPort, workerData } = require('node:worker_threads')
const { performance } = require('node:perf_hooks')
let latencies = [], failures = [], peak = 0, timers = [], inFlight = new Set()
parentPort.on('message', async (message) => {
  if (message === 'start') {
    latencies = []; failures = []; peak = process.memoryUsage.rss()
    timers = [
      setInterval(() => { peak = Math.max(peak, process.memoryUsage.rss()) }, 20),
      setInterval(() => {
        const started = performance.now()
        const call = fetch(workerData.base + '/healthz', { signal: AbortSignal.timeout(10000) })
          .then(async (response) => {
            await response.arrayBuffer()
            latencies.push(performance.now() - started)
            if (response.status !== 200) failures.push('status ' + response.status)
          })
          .catch((error) => { latencies.push(performance.now() - started); failures.push(String(error)) })
          .finally(() => inFlight.delete(call))
        inFlight.add(call)
      }, 50),
    ]
  } else if (message === 'stop') {
    for (const timer of timers) clearInterval(timer)
    await Promise.all([...inFlight])
    parentPort.postMessage({ latencies, failures, peak })
  }
})
parentPort.postMessage('ready')
`

interface PollResult {
  latencies: number[]
  failures: string[]
  peak: number
}

export async function benchBombs(options: { rounds: string[] | null }): Promise<void> {
  const rounds: [string, string[]][] = [
    ...(options.rounds ?? Object.keys(KINDS)).map((kind): [string, string[]] => [`6 × ${kind}`, Array<string>(COPIES).fill(kind)]),
    ...(options.rounds ? [] : [['the mixed six', MIXED] as [string, string[]]]),
  ]
  const unknown = rounds.flatMap(([, kinds]) => kinds).find((kind) => !(kind in KINDS))
  if (unknown) throw new Error(`unknown kind ${unknown}; kinds: ${Object.keys(KINDS).join(', ')}`)
  const bytes = new Map(Object.entries(KINDS).map(([kind, make]) => [kind, make()]))

  const env = loadEnv({ LOG_LEVEL: 'silent', OUTBOX_POLL_INTERVAL_MS: '0' })
  const embedded = env.DATABASE_URL ? null : await startEmbeddedPostgres({})
  const databaseUrl = env.DATABASE_URL ?? embedded!.url
  const mode = embedded ? 'embedded PGlite (scratch, in memory)' : 'PostgreSQL (DATABASE_URL)'
  await applyMigrations(databaseUrl, MIGRATIONS_DIR)
  const db = createDatabase(databaseUrl, { maxConnections: 2 })
  const company = await createBenchCompany(db, 'Bombs bench', ['ATLAS'])
  const user = await createBenchUser(db, company.id, 'user', { prefix: 'bombs' })
  const { app, base } = await startBenchServer(env, databaseUrl, embedded ? 'embedded' : 'postgres')
  const poller = new Worker(POLLER, { eval: true, workerData: { base } })
  try {
    await new Promise((resolve) => poller.once('message', resolve))
    const token = benchLoginToken(app, user, company)
    const upload = async (name: string, content: Buffer) => {
      const form = new FormData()
      form.append('files', new Blob([new Uint8Array(content)]), name)
      const started = performance.now()
      const response = await fetch(`${base}/api/ai-hub/documents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: form,
      })
      const body = (await response.json()) as { code?: string; documents?: { id: number }[] }
      return { name, status: response.status, code: body.code ?? '', ms: performance.now() - started, documents: body.documents ?? [] }
    }
    // the extraction threads started and their code loaded (not what is measured)
    const warm = await upload('warm.txt', Buffer.from('Warm up.'))
    if (warm.status !== 201) throw new Error(`the warm-up upload answered ${warm.status} ${warm.code}`)
    for (const document of warm.documents)
      await fetch(`${base}/api/ai-hub/documents/${document.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } })
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    const idle = process.memoryUsage.rss()
    console.log(
      `Upload bombs against ${mode} (${base}); ${COPIES} at once per round, /healthz every 50 ms from a worker thread; ` +
        `idle RSS ${(idle / MB).toFixed(0)} MB; load average ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
    )
    const summary: {
      round: string
      p50: number
      p95: number
      max: number
      slowest: number
      statuses: string
      rise: number
      ordinary: string
    }[] = []
    // first a round without uploads: what /healthz takes on this machine now (the others compare with it)
    for (const [round, kinds] of [['no upload (3 s)', []] as [string, string[]], ...rounds]) {
      poller.postMessage('start')
      const began = performance.now()
      const bombs = Promise.all(kinds.map((kind) => upload(kind, bytes.get(kind)!)))
      const ordinary =
        kinds.length === 0 ? null : new Promise((resolve) => setTimeout(resolve, 500)).then(() => upload('ordinary.txt', ORDINARY))
      const results = await bombs
      const other = await ordinary
      if (kinds.length === 0) await new Promise((resolve) => setTimeout(resolve, 3_000))
      const seconds = (performance.now() - began) / 1000
      const polled = await new Promise<PollResult>((resolve) => {
        poller.once('message', resolve)
        poller.postMessage('stop')
      })
      const sorted = [...polled.latencies].sort((a, b) => a - b)
      const rise = (polled.peak - idle) / MB
      console.log(
        `\n${round}, ${seconds.toFixed(1)} s: /healthz ${sorted.length} calls, median ${ms(quantileOf(sorted, 0.5))} ms, p95 ${ms(quantileOf(sorted, 0.95))} ms, max ${ms(sorted.at(-1) ?? NaN)} ms${polled.failures.length > 0 ? `, ${polled.failures.length} failed (${polled.failures[0]})` : ''}; peak RSS +${rise.toFixed(0)} MB above idle`,
      )
      for (const result of [...results, ...(other ? [other] : [])])
        console.log(`  ${result.name.padEnd(12)} ${result.status} ${result.code.padEnd(28)} ${ms(result.ms).padStart(6)} ms`)
      // a document accepted (the ordinary one; a bomb should not be) is removed, so the next rounds start from the same state
      for (const document of [...results, ...(other ? [other] : [])].flatMap((result) => result.documents))
        await fetch(`${base}/api/ai-hub/documents/${document.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } })
      const statuses = [...new Set(results.map((result) => `${result.status}${result.code ? ` ${result.code}` : ''}`))].join(', ')
      summary.push({
        round,
        p50: quantileOf(sorted, 0.5),
        p95: quantileOf(sorted, 0.95),
        max: sorted.at(-1) ?? NaN,
        slowest: Math.max(0, ...results.map((r) => r.ms)),
        statuses,
        rise,
        ordinary: other ? `${other.status}${other.code ? ` ${other.code}` : ''} ${(other.ms / 1000).toFixed(1)} s` : '',
      })
    }
    console.log(
      `\n${'round'.padEnd(18)} ${'healthz p50'.padStart(11)} ${'p95'.padStart(7)} ${'max'.padStart(7)} ${'slowest upload'.padStart(14)} ${'RSS rise'.padStart(9)}  answers`,
    )
    for (const row of summary)
      console.log(
        `${row.round.padEnd(18)} ${ms(row.p50).padStart(11)} ${ms(row.p95).padStart(7)} ${ms(row.max).padStart(7)} ${ms(row.slowest).padStart(14)} ${`${row.rise.toFixed(0)} MB`.padStart(9)}  ${row.statuses}${row.ordinary ? `; ordinary document ${row.ordinary}` : ''}`,
      )
  } finally {
    await poller.terminate()
    await app.close()
    await db.prisma.user.delete({ where: { id: user.id } }).catch(() => undefined)
    await db.prisma.company.delete({ where: { id: company.id } }).catch(() => undefined)
    await db.close()
    await embedded?.stop()
  }
}
