/**
 * The load generator of the HTTP benchmarks, outside the server's event loop: the server under test keeps its
 * event loop to itself, as it would behind real clients. The requests are built beforehand and replayed with
 * `concurrency` kept-alive connections, each sending its next request when the previous one has been read to the end.
 *
 * Two generators (docs/decisions/0071):
 * - **wrk** (Debian's `wrk`, C and epoll), when installed: one wrk thread, the list replayed in order by a Lua script,
 *   every status checked, stopped after the list's last answer. It costs the shared 2 cores little per request, so
 *   what it times is the server's answer, not the client's work.
 * - **a worker thread of this process** (node:http), otherwise, or with `--load-generator node`. It reads the
 *   bodies without decoding them, but each answer still costs that thread about as much CPU as a small answer costs
 *   the server, which shows in the latencies of fast endpoints (measured in 0071).
 * Both send the `accept-encoding` a browser sends (Chromium's: gzip, deflate, br, zstd; the server offers Brotli only
 * on the FHIR directory, gzip and deflate everywhere), and neither decodes a body.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Worker } from 'node:worker_threads'

/** What a browser (Chromium) sends as Accept-Encoding. */
export const BROWSER_ACCEPT_ENCODING = 'gzip, deflate, br, zstd'

export interface BenchRequest {
  method?: 'GET' | 'POST' | 'DELETE' | 'PATCH' | 'PUT'
  /** path and query, appended to the base URL */
  path: string
  headers?: Record<string, string>
  body?: string
  /** the status a correct answer has (default 200); any other stops the run with an error */
  status?: number
}

export interface LoadResult {
  /** per request, in milliseconds, sorted ascending */
  latencies: number[]
  wallMs: number
  /** requests per second over the run */
  throughput: number
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const http = require('node:http')
const { base, list, concurrency, acceptEncoding } = workerData
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency })
const url = new URL(base)
// one request on a kept-alive connection; resolves with the status once the body has been read to the end
// (not decoded: a compressed body stays compressed, as the server sent it)
const send = (request) =>
  new Promise((resolve, reject) => {
    const headers = { 'accept-encoding': acceptEncoding, ...request.headers }
    if (request.body !== undefined) headers['content-length'] = Buffer.byteLength(request.body)
    const req = http.request(
      { agent, host: url.hostname, port: url.port, method: request.method || 'GET', path: request.path, headers },
      (response) => {
        response.on('data', () => {})
        response.on('end', () => resolve(response.statusCode))
        response.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(request.body)
  })
;(async () => {
  const latencies = new Array(list.length)
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: Math.min(concurrency, list.length) }, async () => {
      for (let i = next++; i < list.length; i = next++) {
        const request = list[i]
        const t = performance.now()
        const status = await send(request)
        latencies[i] = performance.now() - t
        const expected = request.status || 200
        if (status !== expected) throw new Error(request.path + ': ' + status + ' (expected ' + expected + ')')
      }
    }),
  )
  agent.destroy()
  parentPort.postMessage({ latencies, wallMs: performance.now() - started })
})().catch((error) => parentPort.postMessage({ error: String((error && error.stack) || error) }))
`

export type LoadGenerator = 'wrk' | 'node'

let wrkFound: boolean | undefined
/** Whether wrk can be run here. */
export function wrkAvailable(): boolean {
  wrkFound ??= spawnSync('wrk', ['--version'], { stdio: 'ignore' }).error === undefined
  return wrkFound
}

let chosen: LoadGenerator | null = null
/** Chooses the generator (`npm run bench -- … --load-generator node|wrk`); null: wrk when installed. */
export function setLoadGenerator(generator: LoadGenerator | null): void {
  if (generator === 'wrk' && !wrkAvailable()) throw new Error('--load-generator wrk: wrk is not installed (Debian: apt-get install -y wrk)')
  chosen = generator
}

/** The generator runHttpLoad uses: the one chosen, else wrk when installed, else the worker thread. */
export function loadGenerator(): LoadGenerator {
  return chosen ?? (wrkAvailable() ? 'wrk' : 'node')
}

/** Replays the requests against `base` (http://host:port) with `concurrency` in flight (loadGenerator()). */
export function runHttpLoad(
  base: string,
  list: readonly BenchRequest[],
  concurrency: number,
  generator: LoadGenerator = loadGenerator(),
): Promise<LoadResult> {
  if (list.length === 0) return Promise.resolve({ latencies: [], wallMs: 0, throughput: 0 })
  return generator === 'wrk' ? runWrk(base, list, concurrency) : runWorker(base, list, concurrency)
}

/** A Lua string literal of any text: printable ASCII as it is, every other byte as a decimal escape. */
function luaString(text: string): string {
  let out = '"'
  for (const byte of Buffer.from(text, 'utf8')) {
    out += byte >= 0x20 && byte < 0x7f && byte !== 0x22 && byte !== 0x5c ? String.fromCharCode(byte) : `\\${String(byte).padStart(3, '0')}`
  }
  return `${out}"`
}

/**
 * The wrk script: the requests in order (cycled only for the connections still sending after the last), every
 * answer's status one that the list expects; after the list's count of answers the thread stops and says so on stdout, and the caller ends wrk's
 * timer with SIGINT. done() prints the latency quantiles (per mille) and the counts as one JSON line.
 */
function wrkScript(list: readonly BenchRequest[]): string {
  const rows = list.map((r) => {
    // wrk.format adds the content-length of a body
    const headers = { 'accept-encoding': BROWSER_ACCEPT_ENCODING, ...r.headers }
    const h = Object.entries(headers)
      .map(([k, v]) => `[${luaString(k)}]=${luaString(v)}`)
      .join(',')
    return `{${luaString(r.method ?? 'GET')},${luaString(r.path)},{${h}},${r.body === undefined ? 'nil' : luaString(r.body)},${r.status ?? 200}}`
  })
  // answers come back in the order the connections finish, not the list's: each status must be one the list expects
  const expected = [...new Set(list.map((r) => r.status ?? 200))].map((status) => `[${status}]=true`).join(',')
  return `
local list = {
${rows.join(',\n')}
}
local expected = {${expected}}
local total = #list
local sent, answered = 0, 0
-- global: done() reads it from the thread (thread:get)
bad = nil
local finished = false
request = function()
  sent = sent + 1
  local r = list[((sent - 1) % total) + 1]
  return wrk.format(r[1], r[2], r[3], r[4])
end
response = function(status, headers, body)
  if finished then return end
  answered = answered + 1
  if not expected[status] and bad == nil then bad = 'an answer of status ' .. status .. ', which no request of the list expects' end
  if answered >= total then
    finished = true
    io.write('CITRUS-WRK-FINISHED\\n')
    io.flush()
    wrk.thread:stop()
  end
end
local threads = {}
setup = function(thread) table.insert(threads, thread) end
done = function(summary, latency, requests)
  local q = {}
  -- (wrk's percentile reads 0 at the ends of its histogram: its lowest ones are at least latency.min, the last is latency.max)
  for k = 1, 999 do q[#q + 1] = string.format('%.3f', math.max(latency:percentile(k / 10), latency.min) / 1000) end
  q[#q + 1] = string.format('%.3f', latency.max / 1000)
  local e = summary.errors
  local failure = threads[1]:get('bad')
  if failure then io.write('CITRUS-WRK-FAILURE ' .. failure .. '\\n') end
  io.write('CITRUS-WRK-RESULT {"quantiles":[' .. table.concat(q, ',') .. '],"requests":' .. summary.requests ..
    ',"duration_us":' .. summary.duration .. ',"errors":' .. (e.connect + e.read + e.write + e.timeout) ..
    '}\\n')
end
`
}

/**
 * The list sent by wrk, one thread with `concurrency` connections. The quantiles stand for the latencies (1,000 of
 * them, per mille, from wrk's microsecond histogram); the answers of the list's count are timed, not more.
 */
function runWrk(base: string, list: readonly BenchRequest[], concurrency: number): Promise<LoadResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'citrus-wrk-'))
  const script = path.join(dir, 'load.lua')
  writeFileSync(script, wrkScript(list))
  const c = Math.max(1, Math.min(concurrency, list.length))
  return new Promise<LoadResult>((resolve, reject) => {
    const child = spawn('wrk', ['-t1', `-c${c}`, '-d3600s', '--timeout', '120s', '-s', script, base], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    let signalled = false
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk
      if (!signalled && out.includes('CITRUS-WRK-FINISHED')) {
        signalled = true
        // ends wrk's timer (it sleeps for -d otherwise); the thread has stopped already
        child.kill('SIGINT')
      }
    })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk))
    child.once('error', reject)
    child.once('close', (code) => {
      rmSync(dir, { recursive: true, force: true })
      const line = out.split('\n').find((l) => l.startsWith('CITRUS-WRK-RESULT '))
      if (!line) return reject(new Error(`wrk ended (${code}) without a result: ${(err || out).trim().slice(0, 500)}`))
      const result = JSON.parse(line.slice('CITRUS-WRK-RESULT '.length)) as {
        quantiles: number[]
        requests: number
        duration_us: number
        errors: number
      }
      const failure = out.split('\n').find((l) => l.startsWith('CITRUS-WRK-FAILURE '))
      if (failure) return reject(new Error(failure.slice('CITRUS-WRK-FAILURE '.length)))
      if (result.errors > 0) return reject(new Error(`wrk: ${result.errors} connection errors or timeouts`))
      const wallMs = result.duration_us / 1000
      resolve({ latencies: result.quantiles, wallMs, throughput: (list.length * 1000) / wallMs })
    })
  })
}

/** The list sent from a worker thread of this process. */
function runWorker(base: string, list: readonly BenchRequest[], concurrency: number): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { base, list, concurrency, acceptEncoding: BROWSER_ACCEPT_ENCODING },
    })
    worker.once('message', (message: { latencies: number[]; wallMs: number } | { error: string }) => {
      void worker.terminate()
      if ('error' in message) return reject(new Error(message.error))
      const latencies = [...message.latencies].sort((a, b) => a - b)
      resolve({ latencies, wallMs: message.wallMs, throughput: (list.length * 1000) / message.wallMs })
    })
    worker.once('error', reject)
  })
}

/** The q-quantile (0..1) of ascending latencies, nearest rank. */
export function quantileOf(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN
}

/** A latency in milliseconds as the benches print it: 2 decimals below 10, 1 below 100, else whole. */
export const ms = (x: number) => (x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : x.toFixed(0))
