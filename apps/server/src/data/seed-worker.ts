/**
 * A generator thread of the synthetic load (seed.ts, docs/decisions/0055). The generator is addressable by
 * entity (each provider, patient and facility draws from its own seeded stream), so a range of entities
 * generates the same rows on any thread. The thread encodes its range as COPY text: the rows of the table
 * being copied go to the loader in chunks (at most MAX_IN_FLIGHT unacknowledged, so a slow server holds the
 * thread back instead of filling memory); a patient's diagnoses, claim lines and pharmacy fills go to the
 * thread's own spill files, which the loader copies afterwards.
 */
import { once } from 'node:events'
import { createWriteStream, type WriteStream } from 'node:fs'
import { parentPort, workerData } from 'node:worker_threads'
import { SyntheticDataset, type Scale } from '@citrus/data-kit'
import { facilityPricesText, patientTexts, providerText } from './seed-rows.js'

export interface SeedWorkerTask {
  seed: number
  scale: Scale['name']
  /** providers [from, to), patients' claims [from, to) or the price lists of facilities [from, to) (indexes) */
  kind: 'providers' | 'claims' | 'prices'
  from: number
  to: number
  /** claims: where this thread writes its diagnoses, claim lines and pharmacy fills (COPY text) */
  spill?: { diagnoses: string; lines: string; fills: string }
}

export type SeedWorkerMessage =
  | { type: 'rows'; text: string; rows: number; units: number }
  | { type: 'done'; spilled: { diagnoses: number; lines: number; fills: number } }
  | { type: 'error'; message: string }

const CHUNK_CHARS = 1 << 18
const MAX_IN_FLIGHT = 4

class FileSpill {
  private readonly out: WriteStream
  private chunk = ''
  rows = 0
  constructor(file: string) {
    this.out = createWriteStream(file)
  }
  /** `rows` rows of COPY text */
  async push(text: string, rows: number) {
    if (rows === 0) return
    this.rows += rows
    this.chunk += text
    if (this.chunk.length >= CHUNK_CHARS) await this.flush()
  }
  private async flush() {
    const text = this.chunk
    this.chunk = ''
    if (text !== '' && !this.out.write(text)) await once(this.out, 'drain')
  }
  async close() {
    await this.flush()
    this.out.end()
    await once(this.out, 'close')
  }
}

async function run(task: SeedWorkerTask, port: NonNullable<typeof parentPort>) {
  let inFlight = 0
  let wake: (() => void) | null = null
  port.on('message', (message: { type: 'ack' }) => {
    if (message.type !== 'ack') return
    inFlight--
    wake?.()
    wake = null
  })
  let text = ''
  let rows = 0
  let units = 0
  const send = async () => {
    if (rows === 0) return
    port.postMessage({ type: 'rows', text, rows, units } satisfies SeedWorkerMessage)
    text = ''
    rows = 0
    units = 0
    if (++inFlight >= MAX_IN_FLIGHT) await new Promise<void>((resolve) => (wake = resolve))
  }
  /** `count` rows of COPY text of the table being copied */
  const add = async (rowsText: string, count: number) => {
    if (count === 0) return
    text += rowsText
    rows += count
    if (text.length >= CHUNK_CHARS) await send()
  }

  const ds = new SyntheticDataset({ seed: task.seed, scale: task.scale })
  const spilled = { diagnoses: 0, lines: 0, fills: 0 }
  if (task.kind === 'providers') {
    for (let i = task.from; i < task.to; i++) {
      await add(providerText(ds, i), 1)
      units++
    }
  } else if (task.kind === 'prices') {
    for (let i = task.from; i < task.to; i++) {
      const { text: pricesText, rows: count } = facilityPricesText(ds, ds.facilities[i]!)
      await add(pricesText, count)
      units++
    }
  } else {
    if (!task.spill) throw new Error('a claims task needs its spill files')
    const facilityIdByNpi = new Map(ds.facilities.map((f) => [f.npi, f.id]))
    const diagnoses = new FileSpill(task.spill.diagnoses)
    const lines = new FileSpill(task.spill.lines)
    const fills = new FileSpill(task.spill.fills)
    for (let i = task.from; i < task.to; i++) {
      const t = patientTexts(ds, i, facilityIdByNpi)
      await add(t.claims, t.claimRows)
      await diagnoses.push(t.diagnoses, t.diagnosisRows)
      await lines.push(t.lines, t.lineRows)
      await fills.push(t.fills, t.fillRows)
      units++
    }
    await Promise.all([diagnoses.close(), lines.close(), fills.close()])
    Object.assign(spilled, { diagnoses: diagnoses.rows, lines: lines.rows, fills: fills.rows })
  }
  await send()
  while (inFlight > 0) await new Promise<void>((resolve) => (wake = resolve))
  port.postMessage({ type: 'done', spilled } satisfies SeedWorkerMessage)
}

if (parentPort) {
  const port = parentPort
  run(workerData as SeedWorkerTask, port).catch((error: unknown) =>
    port.postMessage({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) } satisfies SeedWorkerMessage),
  )
}
