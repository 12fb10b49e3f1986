import type { TileGranularity } from '@citrus/contracts'
import { type Worker } from 'node:worker_threads'
import { collectionEnd, genericResponseGzip, type GenericResult, type ResponseOptions } from './generic.js'
import type { Region } from './regions.js'
import { startModuleWorker } from '../../lib/worker.js'

/**
 * Large gzip bodies of GET /atlas/generic written on a second thread (docs/decisions/0066).
 *
 * Writing the national COUNTY body (3,231 features, docs/decisions/0057) is about half of that request's CPU,
 * and the count the other half; on one event loop, eight such requests queue behind each other while the
 * machine's second core idles. The route now counts on the event loop and hands the writing to one worker
 * thread, which holds a copy of each region catalog (sent once) and gets per request only the values: per
 * region its catalog position, and a copy of the result's columns (docs/decisions/0069). The worker runs the
 * same writer (`writeGzipBody`), so the body is the same bytes (tested). Bodies of fewer than `WORKER_MIN_REGIONS`
 * regions, and every body when the worker cannot start or fails, are written on the event loop as before.
 */
export const WORKER_MIN_REGIONS = 500

/** Catalogs the thread keeps, the latest sent; the writer mirrors that list and sends a catalog again when needed. */
export const KEPT_CATALOGS = 4

export interface CatalogMessage {
  type: 'catalog'
  catalog: number
  regions: Region[]
}
export interface WriteMessage {
  type: 'write'
  job: number
  catalog: number
  granularity: TileGranularity
  options: Omit<ResponseOptions, 'points'>
  /** per region of the result its position in the catalog's regions */
  positions: Int32Array
  /** the result's columns (GenericResult), copied */
  patients: Float64Array
  payers: Uint32Array
  prevalence: Float64Array
  hotspot: Float64Array
  fills: string[]
  end: string
}
export type WorkerReply = { job: number; body: Uint8Array } | { job: number; error: string }

interface CatalogCopy {
  id: number
  position: Map<string, number>
  regions: Region[]
}

export class GenericBodyWriter {
  private worker: Worker | null = null
  private failed = false
  private nextJob = 0
  private readonly pending = new Map<
    number,
    { result: GenericResult; options: ResponseOptions; resolve: (body: Buffer) => void; reject: (error: unknown) => void }
  >()
  private readonly catalogs = new WeakMap<ReadonlyMap<string, Region>, CatalogCopy>()
  /** catalogs the current worker holds */
  private sent = new Set<number>()
  private nextCatalog = 0
  /** bodies written by the worker and on the event loop (for tests) */
  readonly written = { worker: 0, eventLoop: 0 }

  /** `warn`: told when the thread fails (its bodies are then written on the event loop) */
  constructor(private readonly warn: (message: string) => void = () => undefined) {}

  /** The gzip body of `genericResponseGzip(result, options)`, written by the worker when it is worth it. */
  async gzip(result: GenericResult, options: ResponseOptions): Promise<Buffer> {
    const worker = result.list.length >= WORKER_MIN_REGIONS ? this.started() : null
    if (!worker) return this.onEventLoop(result, options)
    const catalog = this.catalogOf(result.catalog)
    if (!this.sent.has(catalog.id)) {
      worker.postMessage({ type: 'catalog', catalog: catalog.id, regions: catalog.regions } satisfies CatalogMessage)
      // the thread drops the oldest catalog beyond KEPT_CATALOGS in the same order
      this.sent.add(catalog.id)
      while (this.sent.size > KEPT_CATALOGS) this.sent.delete(this.sent.values().next().value as number)
    }
    const n = result.list.length
    const positions = new Int32Array(n)
    const { list } = result
    for (let i = 0; i < n; i++) {
      const at = catalog.position.get(list[i]!.id)
      if (at === undefined) return this.onEventLoop(result, options)
      positions[i] = at
    }
    const columns = {
      patients: Float64Array.from(result.patients),
      payers: result.payers.slice(),
      prevalence: result.prevalence.slice(),
      hotspot: result.hotspot.slice(),
    }
    const fills = [...result.fills]
    const job = ++this.nextJob
    const message: WriteMessage = {
      type: 'write',
      job,
      catalog: catalog.id,
      granularity: result.granularity,
      options: { tier: options.tier, census: options.census },
      positions,
      ...columns,
      fills,
      end: collectionEnd(result, options),
    }
    return new Promise<Buffer>((resolve, reject) => {
      this.pending.set(job, { result, options, resolve, reject })
      worker.postMessage(message, [positions.buffer, ...Object.values(columns).map((column) => column.buffer)])
    })
  }

  private onEventLoop(result: GenericResult, options: ResponseOptions): Buffer {
    const body = genericResponseGzip(result, options)
    this.written.eventLoop++
    return body
  }

  async close(): Promise<void> {
    const worker = this.worker
    this.worker = null
    this.failed = true
    if (worker) await worker.terminate()
  }

  private catalogOf(regions: ReadonlyMap<string, Region>): CatalogCopy {
    let copy = this.catalogs.get(regions)
    if (!copy) {
      const list = [...regions.values()]
      copy = { id: ++this.nextCatalog, position: new Map(list.map((region, i) => [region.id, i])), regions: list }
      this.catalogs.set(regions, copy)
    }
    return copy
  }

  private started(): Worker | null {
    if (this.worker || this.failed) return this.worker
    try {
      const worker = startBodyWorker()
      worker.unref()
      worker.on('message', (reply: WorkerReply) => {
        const call = this.pending.get(reply.job)
        if (!call) return
        this.pending.delete(reply.job)
        if ('error' in reply) {
          // the thread could not write it (it should not happen): the event loop writes it, or throws the same error
          this.warn(`Atlas body thread: ${reply.error}; written on the event loop`)
          try {
            return call.resolve(this.onEventLoop(call.result, call.options))
          } catch (error) {
            return call.reject(error)
          }
        }
        this.written.worker++
        call.resolve(Buffer.from(reply.body.buffer, reply.body.byteOffset, reply.body.byteLength))
      })
      const fail = (reason: unknown) => {
        // from now on every body is written on the event loop, also those of the calls in flight
        if (!this.failed)
          this.warn(
            `Atlas body thread stopped (${reason instanceof Error ? reason.message : `exit code ${String(reason)}`}): bodies are written on the event loop`,
          )
        this.failed = true
        if (this.worker === worker) this.worker = null
        for (const [, call] of this.pending) {
          try {
            call.resolve(this.onEventLoop(call.result, call.options))
          } catch (error) {
            call.reject(error)
          }
        }
        this.pending.clear()
      }
      worker.on('error', fail)
      worker.on('exit', fail)
      this.worker = worker
      this.sent = new Set()
      return worker
    } catch (error) {
      this.warn(
        `Atlas body thread did not start (${error instanceof Error ? error.message : String(error)}): bodies are written on the event loop`,
      )
      this.failed = true
      return null
    }
  }
}

/** The worker: the TypeScript source through tsx in development and tests, the built file otherwise (as seed.ts). */
function startBodyWorker(): Worker {
  return startModuleWorker(import.meta.url, { source: './body-worker.ts', built: './atlas-body-worker.js' })
}
