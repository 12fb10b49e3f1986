import { parentPort } from 'node:worker_threads'
import { KEPT_CATALOGS, NUMBERS_PER_REGION, type CatalogMessage, type WorkerReply, type WriteMessage } from './body-writer.js'
import { writeGzipBody, type RegionResult } from './generic.js'
import type { Region } from './regions.js'

/**
 * The thread that writes large Atlas gzip bodies (body-writer.ts, docs/decisions/0066): it keeps the region
 * catalogs it was sent (the latest few) and answers each job with the body, its memory handed back.
 */
const catalogs = new Map<number, Region[]>()
const port = parentPort!

const nullIfNaN = (v: number) => (Number.isNaN(v) ? null : v)

port.on('message', (message: CatalogMessage | WriteMessage) => {
  if (message.type === 'catalog') {
    catalogs.set(message.catalog, message.regions)
    while (catalogs.size > KEPT_CATALOGS) catalogs.delete(catalogs.keys().next().value as number)
    return
  }
  let reply: WorkerReply
  const transfer: ArrayBuffer[] = []
  try {
    const regions = catalogs.get(message.catalog)
    if (!regions) throw new Error(`Atlas body worker: catalog ${message.catalog} was not sent`)
    const { positions, numbers, fills } = message
    const results: RegionResult[] = new Array<RegionResult>(positions.length)
    for (let i = 0; i < positions.length; i++) {
      const k = i * NUMBERS_PER_REGION
      results[i] = {
        region: regions[positions[i]!]!,
        patients: numbers[k]!,
        payers: { commercial: numbers[k + 1]!, medicare: numbers[k + 2]!, medicaid: numbers[k + 3]!, other: numbers[k + 4]! },
        prevalence: nullIfNaN(numbers[k + 5]!),
        hotspot: nullIfNaN(numbers[k + 6]!),
        score: nullIfNaN(numbers[k + 7]!),
        fill: fills[i]!,
      }
    }
    const body = writeGzipBody(message.granularity, results, message.options, message.end)
    // the writer's buffer is its own allocation (larger than the body): handed over, not copied
    reply = { job: message.job, body: new Uint8Array(body.buffer, body.byteOffset, body.byteLength) }
    transfer.push(body.buffer as ArrayBuffer)
  } catch (error) {
    reply = { job: message.job, error: error instanceof Error ? error.message : String(error) }
  }
  port.postMessage(reply, transfer)
})
