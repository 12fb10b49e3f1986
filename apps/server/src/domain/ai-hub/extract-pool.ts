import { AI_HUB_MESSAGES, ERROR_CODES, type AiDocumentType, type ErrorEnvelope } from '@citrus/contracts'
import { type Worker } from 'node:worker_threads'
import { AppError } from '../../lib/errors.js'
import { EXTRACT_LIMITS, checkArchive, documentTooComplex, mislabelled, type ExtractLimits, type ExtractedPage } from './extract.js'
import { startModuleWorker } from '../../lib/worker.js'

/**
 * Uploaded documents are read on worker threads, never on the event loop (issue 32 §1): at most `threads` at
 * once, each under a V8 heap limit (`heapMb`) and a wall-clock limit (`timeoutMs`, then the thread is
 * terminated). A thread that runs out of memory or time costs only that document (422, DOCUMENT_TOO_COMPLEX);
 * a fresh thread starts at once in its place, so the next upload does not wait for one to load its code. Jobs beyond the threads wait in a queue of `queue`; past it, 503.
 * Idle threads end after `idleMs`, giving their memory back.
 */
export interface ExtractionPoolOptions {
  threads: number
  queue: number
  timeoutMs: number
  heapMb: number
  /** most a thread may take to start (load the extraction code) before its job is given up with 503 */
  startMs: number
  idleMs: number
  limits: ExtractLimits
}

export const EXTRACTION_POOL: ExtractionPoolOptions = {
  threads: 2,
  queue: 32,
  // a bomb is answered within 5 s (issue 32 §1); a document within the token budget is read in about 1 s
  timeoutMs: 4_500,
  heapMb: 256,
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

export const extractionBusy = () => new AppError(503, ERROR_CODES.UNAVAILABLE, AI_HUB_MESSAGES.extractionBusy)

interface Running {
  job: number
  filename: string
  type: AiDocumentType
  resolve: (pages: ExtractedPage[]) => void
  reject: (error: unknown) => void
}

class Thread {
  readonly worker: Worker
  readonly ready: Promise<void>
  dead = false
  running: Running | null = null
  idleTimer: NodeJS.Timeout | null = null

  constructor(options: ExtractionPoolOptions, warn: (message: string) => void) {
    this.worker = startExtractWorker(options, warn)
    let started: () => void = () => undefined
    let failed: (error: Error) => void = () => undefined
    this.ready = new Promise<void>((resolve, reject) => {
      started = resolve
      failed = reject
    })
    this.ready.catch(() => undefined)
    this.worker.on('message', (reply: ExtractReply) => {
      if (reply.type === 'ready') return started()
      const running = this.running
      if (!running || running.job !== reply.job) return
      this.running = null
      if (reply.type === 'done') running.resolve(reply.pages)
      else if (reply.type === 'refused') {
        const { status, code, message } = reply.envelope
        running.reject(new AppError(status, code, message))
      } else {
        // a document the libraries could not read: not what its extension says, as far as we can tell
        warn(`document extraction failed (${running.filename}): ${reply.error}`)
        running.reject(mislabelled(running.filename, running.type))
      }
    })
    this.worker.on('error', (error: NodeJS.ErrnoException) => {
      this.dead = true
      failed(error)
      const running = this.running
      this.running = null
      if (!running) return
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') running.reject(documentTooComplex(running.filename))
      else running.reject(error)
    })
    this.worker.on('exit', (code) => {
      this.dead = true
      const error = new Error(`the document extraction thread exited (code ${code})`)
      failed(error)
      const running = this.running
      this.running = null
      running?.reject(error)
    })
  }

  kill(): void {
    this.dead = true
    this.running = null
    void this.worker.terminate()
  }
}

export class ExtractionPool {
  private readonly options: ExtractionPoolOptions
  private readonly threads = new Set<Thread>()
  private readonly idle: Thread[] = []
  private readonly waiting: ((thread: Thread) => void)[] = []
  private nextJob = 0
  private closed = false
  /** threads terminated for passing the time limit (for tests) */
  killed = 0
  /** dead threads replaced by a fresh one (for tests) */
  replaced = 0

  constructor(
    options: Partial<ExtractionPoolOptions> = {},
    private readonly warn: (message: string) => void = () => undefined,
  ) {
    this.options = { ...EXTRACTION_POOL, ...options }
  }

  /** The document's pages with their tokens, read on a worker thread; refusals are AppErrors (4xx, 503). */
  async extract(filename: string, type: AiDocumentType, bytes: Buffer): Promise<ExtractedPage[]> {
    // a zip bomb that declares its size is refused here, without taking a thread
    checkArchive(filename, type, bytes, this.options.limits)
    const thread = await this.acquire()
    try {
      return await this.run(thread, filename, type, bytes)
    } finally {
      this.release(thread)
    }
  }

  async close(): Promise<void> {
    this.closed = true
    this.waiting.length = 0
    const threads = [...this.threads]
    this.threads.clear()
    this.idle.length = 0
    await Promise.all(threads.map((thread) => (thread.dead ? undefined : thread.worker.terminate())))
  }

  /** threads alive now (for tests) */
  get size(): number {
    return this.threads.size
  }

  private spawn(): Thread {
    const thread = new Thread(this.options, this.warn)
    this.threads.add(thread)
    return thread
  }

  private acquire(): Promise<Thread> {
    if (this.closed) return Promise.reject(extractionBusy())
    let idle: Thread | undefined
    while ((idle = this.idle.pop())) {
      if (idle.idleTimer) clearTimeout(idle.idleTimer)
      if (!idle.dead) return Promise.resolve(idle)
      this.threads.delete(idle)
    }
    if (this.threads.size < this.options.threads) return Promise.resolve(this.spawn())
    if (this.waiting.length >= this.options.queue) return Promise.reject(extractionBusy())
    return new Promise((resolve) => this.waiting.push(resolve))
  }

  private release(thread: Thread): void {
    if (this.closed) {
      if (!thread.dead) thread.kill()
      return
    }
    if (thread.dead) {
      this.threads.delete(thread)
      // replaced at once: a bomb that ended its thread must not make the next upload wait for a thread to load
      thread = this.spawn()
      this.replaced++
    }
    const next = this.waiting.shift()
    if (next) return next(thread)
    thread.idleTimer = setTimeout(() => {
      const at = this.idle.indexOf(thread)
      if (at < 0) return
      this.idle.splice(at, 1)
      this.threads.delete(thread)
      thread.kill()
    }, this.options.idleMs)
    thread.idleTimer.unref()
    this.idle.push(thread)
  }

  private async run(thread: Thread, filename: string, type: AiDocumentType, bytes: Buffer): Promise<ExtractedPage[]> {
    let startTimer: NodeJS.Timeout | undefined
    try {
      await Promise.race([
        thread.ready,
        new Promise<never>((_, reject) => {
          startTimer = setTimeout(() => reject(extractionBusy()), this.options.startMs)
        }),
      ])
    } catch (error) {
      thread.kill()
      throw error
    } finally {
      clearTimeout(startTimer)
    }
    const job = this.nextJob++
    return new Promise<ExtractedPage[]>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (thread.running?.job !== job) return
        this.killed++
        thread.kill()
        reject(documentTooComplex(filename))
      }, this.options.timeoutMs)
      thread.running = {
        job,
        filename,
        type,
        resolve: (pages) => {
          clearTimeout(timer)
          resolve(pages)
        },
        reject: (error) => {
          clearTimeout(timer)
          reject(error)
        },
      }
      // a copy: the caller's buffer stays usable
      thread.worker.postMessage({ job, filename, type, bytes: new Uint8Array(bytes) } satisfies ExtractJob)
    })
  }
}

/**
 * The extraction thread: the TypeScript source through tsx in development and tests, the built file
 * (apps/server/dist/ai-hub-extract-worker.js, scripts/build-server.mjs) otherwise; as the Atlas body writer's.
 */
function startExtractWorker(options: ExtractionPoolOptions, warn: (message: string) => void): Worker {
  const settings = {
    workerData: { limits: options.limits },
    resourceLimits: { maxOldGenerationSizeMb: options.heapMb, maxYoungGenerationSizeMb: 32 },
    // a library's console output goes to the log (warn), not to the process's stdout
    stdout: true,
    stderr: true,
  }
  const worker = startModuleWorker(import.meta.url, { source: './extract-worker.ts', built: './ai-hub-extract-worker.js' }, settings)
  const forward = (chunk: Buffer) => warn(`document extraction thread: ${chunk.toString('utf8').slice(0, 2_000).trim()}`)
  worker.stdout.on('data', forward)
  worker.stderr.on('data', forward)
  return worker
}
