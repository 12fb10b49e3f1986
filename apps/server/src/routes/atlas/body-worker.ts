import { parentPort } from 'node:worker_threads'
import { KEPT_CATALOGS, type CatalogMessage, type WorkerReply, type WriteMessage } from './body-writer.js'
import { writeGzipBody, type RegionColumns } from './generic.js'
import type { Region } from './regions.js'

/**
 * The thread that writes large Atlas gzip bodies (body-writer.ts, docs/decisions/0066): it keeps the region
 * catalogs it was sent (the latest few) and answers each job with the body, its memory handed back.
 */
const catalogs = new Map<number, Region[]>()
const port = parentPort!

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
    const { positions, patients, payers, prevalence, hotspot, fills } = message
    const columns: RegionColumns = { list: Array.from(positions, (at) => regions[at]!), patients, payers, prevalence, hotspot, fills }
    const body = writeGzipBody(message.granularity, columns, message.options, message.end)
    // the writer's buffer is its own allocation (larger than the body): handed over, not copied
    reply = { job: message.job, body: new Uint8Array(body.buffer, body.byteOffset, body.byteLength) }
    transfer.push(body.buffer as ArrayBuffer)
  } catch (error) {
    reply = { job: message.job, error: error instanceof Error ? error.message : String(error) }
  }
  port.postMessage(reply, transfer)
})
