import { once } from 'node:events'
import { createReadStream, statSync } from 'node:fs'
import { finished, pipeline } from 'node:stream/promises'
import { copyTextRow, type CopyValue } from '@citrus/data-kit'
import type pg from 'pg'
import { from as copyFrom } from 'pg-copy-streams'

/**
 * Bulk loading into one table. On PostgreSQL: `COPY ... FROM STDIN` (pg-copy-streams). On the embedded
 * database rows go in batches through `INSERT ... SELECT FROM json_populate_recordset(...)`, the fastest
 * path measured there (~80-130k rows/s, versus ~70k for unnest arrays; docs/decisions/0009). Our wire server
 * does carry COPY FROM STDIN now, but only by holding a COPY's whole data in memory until CopyDone (PGlite
 * must read it in one call; docs/decisions/0011), so the loader keeps the batches there.
 */
export type BulkMethod = 'copy' | 'insert'

export interface BulkWriter {
  write(values: readonly CopyValue[]): Promise<void>
  /** COPY only: rows already encoded as COPY text (copyTextRow), `rows` of them */
  writeText?(text: string, rows: number): Promise<void>
  /** flushes and returns the number of rows written */
  close(): Promise<number>
}

const engineCache = new WeakMap<object, BulkMethod>()
const forcedMethod = new WeakMap<object, BulkMethod>()

/**
 * Makes every bulk write on `client` use `method` (DATA_LOAD_METHOD, read by the caller from the validated
 * config) until the returned function is called; no method = the engine's default.
 */
export function forceBulkMethod(client: pg.ClientBase, method: BulkMethod | undefined): () => void {
  if (!method) return () => undefined
  forcedMethod.set(client, method)
  return () => forcedMethod.delete(client)
}

/** COPY on PostgreSQL, batched inserts on PGlite, unless forceBulkMethod chose for this client. */
export async function bulkMethodOf(client: pg.ClientBase): Promise<BulkMethod> {
  const forced = forcedMethod.get(client)
  if (forced) return forced
  const cached = engineCache.get(client)
  if (cached) return cached
  const { rows } = await client.query<{ version: string }>('SELECT version() AS version')
  const method: BulkMethod = /pglite/i.test(rows[0]?.version ?? '') ? 'insert' : 'copy'
  engineCache.set(client, method)
  return method
}

export const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`

const COPY_CHUNK = 1 << 16
const INSERT_BATCH_ROWS = 5_000
const batchRowLimit = new WeakMap<object, number>()

/**
 * Smaller insert batches on `client` until the returned function is called: on the embedded database each batch
 * holds the single session while it runs (a load beside a serving server, data/seed.ts shortTurns).
 */
export function limitInsertBatches(client: pg.ClientBase, rows: number): () => void {
  batchRowLimit.set(client, rows)
  return () => batchRowLimit.delete(client)
}
const INSERT_BATCH_CHARS = 4 << 20

/** A writer into `table (columns)` on `client`; the caller owns the transaction. */
export async function openBulkWriter(client: pg.ClientBase, table: string, columns: readonly string[], method?: BulkMethod): Promise<BulkWriter> {
  const how = method ?? (await bulkMethodOf(client))
  const columnList = columns.map(quoteIdent).join(', ')
  if (how === 'copy') return copyWriter(client, `COPY ${quoteIdent(table)} (${columnList}) FROM STDIN`)
  return insertWriter(client, table, columns)
}

function copyWriter(client: pg.ClientBase, sql: string): BulkWriter {
  const stream = client.query(copyFrom(sql))
  // Attach the completion handler now so that an early COPY error is never an unhandled rejection.
  const done = finished(stream).then(
    () => undefined,
    (error: unknown) => error,
  )
  let failed: unknown
  void done.then((error) => (failed = error))
  let chunk = ''
  let rows = 0
  const flush = async () => {
    if (chunk === '') return
    const text = chunk
    chunk = ''
    if (failed) throw failed
    if (!stream.write(text)) {
      const drained = once(stream, 'drain').then(() => undefined)
      const error = await Promise.race([drained, done])
      if (error) throw error
    }
  }
  return {
    async write(values) {
      chunk += copyTextRow(values)
      rows++
      if (chunk.length >= COPY_CHUNK) await flush()
    },
    async writeText(text, count) {
      await flush()
      chunk = text
      rows += count
      await flush()
    },
    async close() {
      await flush()
      stream.end()
      const error = await done
      if (error) throw error
      return rows
    },
  }
}

function insertWriter(client: pg.ClientBase, table: string, columns: readonly string[]): BulkWriter {
  const columnList = columns.map(quoteIdent).join(', ')
  const sql = `INSERT INTO ${quoteIdent(table)} (${columnList}) SELECT ${columnList} FROM json_populate_recordset(NULL::${quoteIdent(table)}, $1::json)`
  let batch: string[] = []
  let chars = 0
  let rows = 0
  const flush = async () => {
    if (batch.length === 0) return
    const payload = `[${batch.join(',')}]`
    batch = []
    chars = 0
    await client.query(sql, [payload])
  }
  return {
    async write(values) {
      const row: Record<string, unknown> = {}
      columns.forEach((column, index) => {
        const value = values[index]
        row[column] = value === undefined ? null : value
      })
      const json = JSON.stringify(row)
      batch.push(json)
      chars += json.length
      rows++
      if (batch.length >= (batchRowLimit.get(client) ?? INSERT_BATCH_ROWS) || chars >= INSERT_BATCH_CHARS) await flush()
    },
    async close() {
      await flush()
      return rows
    },
  }
}

/** Writes every row of an iterable into the table; returns the number written. */
export async function bulkLoad(client: pg.ClientBase, table: string, columns: readonly string[], rows: AsyncIterable<readonly CopyValue[]> | Iterable<readonly CopyValue[]>, onRow?: () => void): Promise<number> {
  const writer = await openBulkWriter(client, table, columns)
  for await (const row of rows) {
    await writer.write(row)
    onRow?.()
  }
  return writer.close()
}

/**
 * COPY of a file that already holds COPY text rows (written by copyTextRow) into `table (columns)`: the
 * bytes go from the disk to the server as they are, so Node neither parses nor re-encodes them. Reports the
 * bytes sent to `onBytes` (for progress). PostgreSQL only (the caller owns the transaction).
 */
export async function copyFromFile(client: pg.ClientBase, table: string, columns: readonly string[], file: string, onBytes?: (sent: number, total: number) => void): Promise<void> {
  const total = statSync(file).size
  const stream = client.query(copyFrom(`COPY ${quoteIdent(table)} (${columns.map(quoteIdent).join(', ')}) FROM STDIN`))
  const input = createReadStream(file, { highWaterMark: 1 << 20 })
  let sent = 0
  if (onBytes) input.on('data', (chunk) => onBytes((sent += chunk.length), total))
  await pipeline(input, stream)
}
