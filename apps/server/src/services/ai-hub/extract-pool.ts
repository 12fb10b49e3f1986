import { AI_HUB_ERROR_CODES, AI_HUB_MESSAGES, ERROR_CODES, type AiDocumentType, type ErrorEnvelope } from '@citrus/contracts'
import { createHash, randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import { AppError } from '../../lib/errors.js'
import { EXTRACT_LIMITS, checkArchive, documentTooComplex, mislabelled, type ExtractLimits, type ExtractedPage } from './extract.js'

/**
 * Uploaded documents are read on worker threads, never on the event loop (issue 32 §1): at most `threads` at
 * once, each under a V8 heap limit (`heapMb`, `youngMb`). Each document gets a deadline when it arrives
 * (`timeoutMs` later) that covers its wait for a thread and its reading together, so every upload is answered
 * within about that time whatever else is being read:
 * - a document that has waited for a thread until less than `minRunMs` is left before its deadline is refused
 *   at once (429 `DOCUMENT_READER_BUSY` with Retry-After), as is one that finds `queue` documents waiting;
 * - a document still being read at its deadline ends its thread: 422 `DOCUMENT_TOO_COMPLEX` when it had (nearly)
 *   the whole time to itself, 429 when its wait cut its reading short (it may be an ordinary document);
 * - a thread that passes its heap limit costs only its document (422 `DOCUMENT_TOO_COMPLEX`).
 * A document that arrives while the pool starts from nothing (the first uploads after a start or after `idleMs`
 * without uploads) waits for a thread to load its code (up to `startMs`, then 503) and its deadline counts from
 * the moment one is ready: that wait is the server's, not caused by other documents. The wait for a thread that
 * replaces one a document ended counts.
 * An ended thread is replaced by a fresh one as soon as it has exited (so its memory is given back before the
 * next thread's is taken; the threads of the pool, the exiting ones included, never number more than `threads`),
 * so the next upload does not wait for a thread to load its code. Idle threads end after `idleMs`.
 */
export interface ExtractionPoolOptions {
  threads: number
  /** documents that may wait for a thread; past it, 429 */
  queue: number
  /** each document's deadline after its arrival: its wait for a thread and its reading together */
  timeoutMs: number
  /** a waiting document with less time than this before its deadline is not started but refused (429) */
  minRunMs: number
  /** a thread's V8 old generation (MB) */
  heapMb: number
  /** a thread's V8 young generation (MB) */
  youngMb: number
  /** most a thread may take to start (load the extraction code); past it the thread is ended */
  startMs: number
  idleMs: number
  limits: ExtractLimits
}

export const EXTRACTION_POOL: ExtractionPoolOptions = {
  threads: 2,
  queue: 32,
  // a bomb is answered within 5 s of its arrival (issue 32 §1); a document within the token budget is read in about 1 s
  timeoutMs: 4_500,
  minRunMs: 1_000,
  heapMb: 256,
  youngMb: 32,
  startMs: 30_000,
  idleMs: 60_000,
  limits: EXTRACT_LIMITS,
}

export interface ExtractJob {
  job: number
  filename: string
  type: AiDocumentType
  bytes: Uint8Array
}
export type ExtractReply =
  | { type: 'ready' }
  | { type: 'done'; job: number; pages: ExtractedPage[] }
  | { type: 'refused'; job: number; envelope: ErrorEnvelope }
  | { type: 'failed'; job: number; error: string }

/** 429: no thread could read the document before its deadline; try again after `retryAfterSeconds` (Retry-After). */
export class ReaderBusy extends AppError {
  constructor(
    filename: string,
    readonly retryAfterSeconds: number,
  ) {
    super(429, AI_HUB_ERROR_CODES.readerBusy, AI_HUB_MESSAGES.readerBusy(filename, retryAfterSeconds))
  }
}
/** 503: the pool is closed (the server is stopping), or its threads cannot start. */
export const readerUnavailable = () => new AppError(503, ERROR_CODES.UNAVAILABLE, AI_HUB_MESSAGES.readerUnavailable)

interface Job {
  id: number
  filename: string
  type: AiDocumentType
  bytes: Buffer
  arrived: number
  deadline: number
  /** arrived when the pool had no thread: its time counts from the first thread's start */
  cold: boolean
  started: number | null
  /** while waiting: when it is refused; while read: when its thread is ended */
  timer: NodeJS.Timeout | null
  resolve: (pages: ExtractedPage[]) => void
  reject: (error: unknown) => void
}

class Thread {
  readonly worker: Worker
  ready = false
  /** terminated, failed or out of memory: takes no job; still holds its memory until 'exit' */
  ending = false
  /** ended by its job's deadline, its heap limit or a failure (not idle, not the pool's close): replaced on exit */
  replace = false
  job: Job | null = null
  timer: NodeJS.Timeout | null = null
  readonly exited: Promise<void>

  constructor(options: ExtractionPoolOptions, warn: (message: string) => void) {
    this.worker = startExtractWorker(options, warn)
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()))
  }

  end(replace: boolean): void {
    if (this.ending) return
    this.ending = true
    this.replace = replace
    if (this.timer) clearTimeout(this.timer)
    void this.worker.terminate()
  }
}

const now = () => performance.now()

export class ExtractionPool {
  private readonly options: ExtractionPoolOptions
  /** every thread not yet exited, the ending ones included */
  private readonly threads = new Set<Thread>()
  private readonly queue: Job[] = []
  private nextJob = 0
  private closed = false
  /** a thread has been ready since the pool last had none (then threads start from nothing: a cold start) */
  private warm = false
  /** threads ended at their document's deadline (for tests) */
  killed = 0
  /** ended threads replaced by a fresh one (for tests) */
  replaced = 0

  constructor(
    options: Partial<ExtractionPoolOptions> = {},
    private readonly warn: (message: string) => void = () => undefined,
  ) {
    this.options = { ...EXTRACTION_POOL, ...options }
  }

  /**
   * The document's pages with their tokens, read on a worker thread within `timeoutMs` of this call; refusals
   * are AppErrors (4xx; ReaderBusy is a 429 with its Retry-After; 503 once the pool is closed).
   */
  async extract(filename: string, type: AiDocumentType, bytes: Buffer): Promise<ExtractedPage[]> {
    // a zip bomb that declares its size is refused here, without taking a thread
    checkArchive(filename, type, bytes, this.options.limits)
    if (this.closed) throw readerUnavailable()
    if (this.queue.length >= this.options.queue) throw this.busy(filename)
    return new Promise<ExtractedPage[]>((resolve, reject) => {
      const job: Job = {
        id: this.nextJob++,
        filename,
        type,
        bytes,
        arrived: 0,
        deadline: 0,
        cold: !this.warm,
        started: null,
        timer: null,
        resolve,
        reject,
      }
      if (!job.cold) this.arrive(job)
      this.queue.push(job)
      this.dispatch()
    })
  }

  async close(): Promise<void> {
    this.closed = true
    for (const job of this.queue.splice(0)) this.settle(job, readerUnavailable())
    const threads = [...this.threads]
    for (const thread of threads) {
      if (thread.job) this.settle(thread.job, readerUnavailable())
      thread.job = null
      thread.end(false)
    }
    await Promise.all(threads.map((thread) => thread.exited))
  }

  /** threads not yet exited, the ending ones included (for tests) */
  get size(): number {
    return this.threads.size
  }

  /** threads that have loaded their code and are not ending (for tests) */
  get ready(): number {
    let ready = 0
    for (const thread of this.threads) if (thread.ready && !thread.ending) ready++
    return ready
  }

  /** documents waiting for a thread (for tests) */
  get waiting(): number {
    return this.queue.length
  }

  /** Within `timeoutMs` every document being read now has ended, and its thread is free or replaced. */
  private busy(filename: string): ReaderBusy {
    return new ReaderBusy(filename, Math.ceil(this.options.timeoutMs / 1000))
  }

  private settle(job: Job, outcome: unknown, pages?: ExtractedPage[]): void {
    if (job.timer) clearTimeout(job.timer)
    job.timer = null
    if (pages) job.resolve(pages)
    else job.reject(outcome)
  }

  /** The document's time starts: its deadline, and the moment it is refused if it is still waiting then. */
  private arrive(job: Job): void {
    job.cold = false
    job.arrived = now()
    job.deadline = job.arrived + this.options.timeoutMs
    job.timer = setTimeout(() => this.giveUp(job), Math.max(0, this.options.timeoutMs - this.options.minRunMs))
  }

  /** A waiting document that a thread could no longer read before its deadline. */
  private giveUp(job: Job): void {
    const at = this.queue.indexOf(job)
    if (at < 0) return
    this.queue.splice(at, 1)
    this.settle(job, this.busy(job.filename))
  }

  /** Waiting documents to the ready idle threads; threads started for the others, as many as the limit allows. */
  private dispatch(): void {
    if (this.closed) return
    for (const thread of this.threads) {
      if (this.queue.length === 0) break
      if (thread.ready && !thread.ending && !thread.job) this.start(thread, this.queue.shift()!)
    }
    let starting = 0
    for (const thread of this.threads) if (!thread.ready && !thread.ending) starting++
    for (let wanted = this.queue.length - starting; wanted > 0 && this.threads.size < this.options.threads; wanted--) this.spawn()
  }

  private start(thread: Thread, job: Job): void {
    if (thread.timer) clearTimeout(thread.timer)
    thread.timer = null
    if (job.timer) clearTimeout(job.timer)
    const started = now()
    job.started = started
    thread.job = job
    job.timer = setTimeout(() => this.expire(thread, job), Math.max(0, job.deadline - started))
    // a copy handed over to the thread (transferred, not copied again); the caller's buffer stays usable
    const bytes = new Uint8Array(job.bytes)
    thread.worker.postMessage({ job: job.id, filename: job.filename, type: job.type, bytes } satisfies ExtractJob, [bytes.buffer])
  }

  /** The document's deadline passed while it was read: its thread is ended (and replaced once it has exited). */
  private expire(thread: Thread, job: Job): void {
    if (thread.job !== job) return
    thread.job = null
    this.killed++
    thread.end(true)
    // it had the time any document gets (less at most minRunMs of waiting): too complex; else the wait cut it short
    const waited = (job.started ?? job.arrived) - job.arrived
    this.settle(job, waited <= this.options.minRunMs ? documentTooComplex(job.filename) : this.busy(job.filename))
  }

  /** A thread is free: the next waiting document, else idle until `idleMs` ends it. */
  private free(thread: Thread): void {
    if (this.closed || thread.ending) return
    this.dispatch()
    if (thread.job) return
    thread.timer = setTimeout(() => thread.end(false), this.options.idleMs)
    thread.timer.unref()
  }

  private spawn(): Thread {
    const thread = new Thread(this.options, this.warn)
    this.threads.add(thread)
    thread.timer = setTimeout(() => {
      this.warn(`a document extraction thread did not start within ${this.options.startMs} ms; ending it`)
      thread.end(false)
    }, this.options.startMs)
    thread.worker.on('message', (reply: ExtractReply) => {
      if (reply.type === 'ready') {
        if (thread.timer) clearTimeout(thread.timer)
        thread.timer = null
        thread.ready = true
        this.warm = true
        for (const job of this.queue) if (job.cold) this.arrive(job)
        return this.free(thread)
      }
      const job = thread.job
      if (!job || job.id !== reply.job) return
      thread.job = null
      if (reply.type === 'done') this.settle(job, null, reply.pages)
      else if (reply.type === 'refused') {
        const { status, code, message } = reply.envelope
        this.settle(job, new AppError(status, code, message))
      } else {
        // a document the libraries could not read: not what its extension says, as far as we can tell
        this.warn(`document extraction failed (${job.filename}): ${reply.error}`)
        this.settle(job, mislabelled(job.filename, job.type))
      }
      this.free(thread)
    })
    thread.worker.on('error', (error: NodeJS.ErrnoException) => {
      const job = thread.job
      thread.job = null
      thread.end(thread.ready)
      if (!job) return this.warn(`a document extraction thread failed: ${error.message}`)
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') this.settle(job, documentTooComplex(job.filename))
      else this.settle(job, error)
    })
    thread.worker.on('exit', (code) => {
      this.threads.delete(thread)
      if (thread.timer) clearTimeout(thread.timer)
      const job = thread.job
      thread.job = null
      if (job) this.settle(job, new Error(`the document extraction thread exited (code ${code})`))
      if (this.closed) return
      if (!thread.ready) {
        // its code did not load: the documents waiting for it would wait for the next one in vain
        this.warn(`a document extraction thread exited before it was ready (code ${code})`)
        if (this.threads.size === 0) {
          this.warm = false
          for (const waiting of this.queue.splice(0)) this.settle(waiting, readerUnavailable())
        }
        return
      }
      // replaced now that its memory is given back: a bomb that ended its thread must not make the next upload
      // wait for a thread to load its code
      if ((thread.replace || !thread.ending) && this.threads.size < this.options.threads) {
        this.spawn()
        this.replaced++
      }
      this.dispatch()
      if (this.threads.size === 0) this.warm = false
    })
    return thread
  }
}

/**
 * The extraction thread: the built file (apps/server/dist/ai-hub-extract-worker.js, scripts/build-server.mjs) when
 * the server runs compiled; from the TypeScript source (`npm start`, tests, benches), the same file bundled once per
 * process (bundledWorker). Its heap is bounded by `heapMb` and `youngMb`.
 */
function startExtractWorker(options: ExtractionPoolOptions, warn: (message: string) => void): Worker {
  const settings = {
    workerData: { limits: options.limits },
    resourceLimits: { maxOldGenerationSizeMb: options.heapMb, maxYoungGenerationSizeMb: options.youngMb },
    // a library's console output goes to the log (warn), not to the process's stdout
    stdout: true,
    stderr: true,
  }
  const worker = new Worker(
    import.meta.url.endsWith('.ts') ? bundledWorker() : new URL('./ai-hub-extract-worker.js', import.meta.url),
    settings,
  )
  const forward = (chunk: Buffer) => warn(`document extraction thread: ${chunk.toString('utf8').slice(0, 2_000).trim()}`)
  worker.stdout.on('data', forward)
  worker.stderr.on('data', forward)
  return worker
}

/** What is used here of esbuild's API. */
interface EsbuildSync {
  buildSync(options: {
    absWorkingDir: string
    entryPoints: string[]
    bundle: true
    write: false
    platform: 'node'
    format: 'esm'
    target: string
    external: string[]
    logLevel: 'silent'
  }): { outputFiles: { contents: Uint8Array }[] }
}

let bundled: URL | null = null
/**
 * The extraction thread's code bundled by esbuild as scripts/build-server.mjs bundles it (the server's code and the
 * workspace packages; npm packages imported from node_modules), written once per content to node_modules/.cache/citrus
 * (so those imports resolve from the repository's node_modules). A thread that loaded its TypeScript through tsx
 * instead (lib/worker.ts) took 430 MB of RSS and 4.3 s to start at load average 9, against 120 MB and 2.0 s
 * bundled (2026-11-29, docs/performance.md): with threads replaced after each bomb, tsx's share alone passed the
 * 1 GB that issue 32 allows.
 */
function bundledWorker(): URL {
  if (bundled) return bundled
  const root = new URL('../../../../../', import.meta.url)
  const require = createRequire(import.meta.url)
  // the esbuild tsx runs the sources with (a dependency of tsx, as lib/worker.ts finds tsx)
  const esbuild = createRequire(require.resolve('tsx/package.json'))('esbuild') as EsbuildSync
  const { dependencies = {} } = require('../../../package.json') as { dependencies?: Record<string, string> }
  const external = Object.keys(dependencies)
    .filter((name) => !name.startsWith('@citrus/'))
    .flatMap((name) => [name, `${name}/*`])
  const result = esbuild.buildSync({
    absWorkingDir: fileURLToPath(root),
    entryPoints: [fileURLToPath(new URL('./extract-worker.ts', import.meta.url))],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    external,
    logLevel: 'silent',
  })
  const code = result.outputFiles[0]!.contents
  const directory = new URL('node_modules/.cache/citrus/', root)
  const file = new URL(`ai-hub-extract-worker.${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`, directory)
  if (!existsSync(file)) {
    mkdirSync(directory, { recursive: true })
    // written whole, then renamed: another process bundling the same code at once never sees half a file
    const partial = new URL(`${path.basename(fileURLToPath(file))}.${process.pid}.${randomUUID()}.tmp`, directory)
    writeFileSync(partial, code)
    renameSync(partial, file)
  }
  return (bundled = file)
}
