import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { Readable } from 'node:stream'
import type { ReadableStream } from 'node:stream/web'
import { pipeline } from 'node:stream/promises'
import { createGunzip } from 'node:zlib'

/** A TiC file to read: a local path, or an https URL (read only with --fetch). */
export interface TicSource {
  /** the path or URL as recorded (tic_files.source) */
  name: string
  path?: string
  url?: string
}

export interface OpenedSource {
  /** decompressed bytes */
  stream: AsyncIterable<Uint8Array>
  /** raw bytes read so far (compressed when gzip) */
  rawBytes(): number
  /** decompressed bytes so far */
  textBytes(): number
  /** SHA-256 of the raw bytes, once the stream has ended */
  digest(): string
}

const isGzipName = (name: string) => /\.gz$/i.test(name.replace(/[?#].*$/, ''))

/**
 * Opens a source as a byte stream: gunzipped when its name ends in .gz, hashed and counted as it goes, and stopped
 * past `maxBytes` decompressed (a gzip bomb, or a file larger than the operator allows).
 */
export async function openSource(source: TicSource, maxBytes: number): Promise<OpenedSource> {
  let raw: Readable
  if (source.path) raw = createReadStream(source.path, { highWaterMark: 1 << 20 })
  else if (source.url) {
    const response = await fetch(source.url, { redirect: 'follow' })
    if (!response.ok || !response.body) throw new Error(`${source.url}: HTTP ${response.status}`)
    raw = Readable.fromWeb(response.body as ReadableStream<Uint8Array>)
  } else throw new Error('a source needs a path or a URL')
  const hash = createHash('sha256')
  let rawBytes = 0
  let textBytes = 0
  let digest: string | null = null
  raw.on('data', (chunk: Buffer) => {
    rawBytes += chunk.length
    hash.update(chunk)
  })
  raw.on('end', () => (digest = hash.digest('hex')))
  const decoded: Readable = isGzipName(source.name) ? raw.pipe(createGunzip({ chunkSize: 1 << 20 })) : raw
  raw.on('error', (error) => decoded.destroy(error))
  async function* limited(): AsyncGenerator<Uint8Array> {
    for await (const chunk of decoded as AsyncIterable<Buffer>) {
      textBytes += chunk.length
      if (textBytes > maxBytes) {
        raw.destroy()
        throw new Error(`${source.name}: more than ${maxBytes} bytes of JSON (limit; --max-bytes)`)
      }
      yield chunk
    }
  }
  return {
    stream: limited(),
    rawBytes: () => rawBytes,
    textBytes: () => textBytes,
    digest: () => {
      if (digest === null) throw new Error('the digest is known once the file is read')
      return digest
    },
  }
}

/** SHA-256 of a local file's bytes (the re-import check before parsing). */
export async function digestOfFile(path: string): Promise<string> {
  const hash = createHash('sha256')
  await pipeline(createReadStream(path, { highWaterMark: 1 << 20 }), hash)
  return hash.digest('hex')
}

/** The first characters of a local file's text (gunzipped), to tell a table of contents before importing. */
export async function headText(path: string, chars = 1 << 18): Promise<string> {
  const raw = createReadStream(path, { highWaterMark: 1 << 16 })
  const input: Readable = isGzipName(path) ? raw.pipe(createGunzip()) : raw
  let text = ''
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      text += chunk.toString('utf8')
      if (text.length >= chars) break
    }
  } catch {
    // a damaged file is reported by the import itself
  } finally {
    raw.destroy()
  }
  return text
}
