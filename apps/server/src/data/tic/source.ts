import { createHash } from 'node:crypto'
import { createReadStream, statSync } from 'node:fs'
import { Readable } from 'node:stream'
import type { ReadableStream } from 'node:stream/web'
import { pipeline } from 'node:stream/promises'
import { createGunzip } from 'node:zlib'

/** A TiC file to read: a local path, or a URL (read only with --fetch; refusedUrl). */
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
  /** the raw size: a local file's, a download's Content-Length, else null */
  totalBytes(): number | null
  /** SHA-256 of the raw bytes, once the stream has ended */
  digest(): string
}

const isGzipName = (name: string) => /\.gz$/i.test(name.replace(/[?#].*$/, ''))

/** The hard limits of one file (TicImportOptions): bytes and, for a download, time. */
export interface SourceLimits {
  /** most bytes downloaded, and most bytes of JSON once decompressed */
  maxBytes: number
  /** most milliseconds a download may take from the request to its last byte */
  timeoutMs: number
  /** most milliseconds without a byte from the server (before the headers or between two chunks) */
  stallMs: number
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]'])

/**
 * Why a URL is not downloaded, or null when it may be: https anywhere; plain http only from this machine (a local
 * mirror of a payer's files, and the tests), since a rate file read over plain http could be altered on the way.
 */
export function refusedUrl(location: string): string | null {
  let url: URL
  try {
    url = new URL(location)
  } catch {
    return 'location is not a valid URL'
  }
  if (url.protocol === 'https:') return null
  if (url.protocol === 'http:') return LOOPBACK.has(url.hostname) || /^127\./.test(url.hostname) ? null : 'plain http is fetched only from this machine (127.0.0.1, localhost); use https'
  return `${url.protocol} locations are not fetched`
}

const causeOf = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error)
  const cause = (error as { cause?: unknown }).cause
  return cause instanceof Error && cause.message && cause.message !== error.message ? `${error.message} (${cause.message})` : error.message
}

/**
 * Opens a source as a byte stream: gunzipped when its name ends in .gz, hashed and counted as it goes, and stopped
 * past `maxBytes` downloaded or decompressed (a gzip bomb, or a file larger than the operator allows). A download
 * is also stopped past `timeoutMs` in all or `stallMs` without a byte; a download that breaks off, an HTTP error and
 * a damaged gzip stream end the stream with an error naming the URL and how many bytes had arrived.
 */
export async function openSource(source: TicSource, limits: SourceLimits | number): Promise<OpenedSource> {
  const { maxBytes, timeoutMs, stallMs } = typeof limits === 'number' ? { maxBytes: limits, timeoutMs: Infinity, stallMs: Infinity } : limits
  let raw: Readable
  let totalBytes: number | null = null
  /** the reason a download was stopped by a limit (the stream then fails with an AbortError) */
  let stopped: Error | null = null
  let timers: NodeJS.Timeout[] = []
  let ended = false
  let pause = () => undefined as void
  let touch = () => undefined as void
  /** bytes arrived: the stall clock restarts if it runs */
  let fed = () => undefined as void
  let encoded = false
  const clearTimers = () => {
    ended = true
    for (const t of timers) clearTimeout(t)
    timers = []
    pause()
  }
  if (source.path) {
    raw = createReadStream(source.path, { highWaterMark: 1 << 20 })
    totalBytes = statSync(source.path).size
  } else if (source.url) {
    const url = source.url
    const refused = refusedUrl(url)
    if (refused) throw new Error(`${url}: not downloaded: ${refused}`)
    const controller = new AbortController()
    const stop = (reason: string) => {
      stopped = new Error(`${url}: ${reason}`)
      controller.abort(stopped)
    }
    if (Number.isFinite(timeoutMs)) timers.push(setTimeout(() => stop(`the download took longer than ${timeoutMs / 1000} s (limit; --fetch-timeout)`), timeoutMs))
    // the stall clock runs only while the importer waits for bytes (not while it writes what it has read)
    let stall: NodeJS.Timeout | null = null
    pause = () => {
      if (stall) clearTimeout(stall)
      stall = null
    }
    touch = () => {
      pause()
      if (Number.isFinite(stallMs) && stopped === null && !ended)
        stall = setTimeout(() => stop(`no data from the server for ${stallMs / 1000} s (limit)`), stallMs)
    }
    fed = () => {
      if (stall) touch()
    }
    touch()
    let response: Response
    try {
      response = await fetch(url, { redirect: 'follow', signal: controller.signal })
    } catch (error) {
      clearTimers()
      throw stopped ?? new Error(`${url}: the download failed before any data: ${causeOf(error)}`)
    }
    const landed = response.url && response.url !== url ? refusedUrl(response.url) : null
    const announced = Number(response.headers.get('content-length') ?? NaN)
    const problem = landed
      ? `redirected to ${response.url}, not downloaded: ${landed}`
      : !response.ok || !response.body
        ? `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}, nothing downloaded`
        : Number.isFinite(announced) && announced > maxBytes
          ? `${announced} bytes announced (Content-Length), more than the limit of ${maxBytes} bytes (--max-bytes); nothing downloaded`
          : null
    if (problem) {
      clearTimers()
      await response.body?.cancel().catch(() => undefined)
      throw new Error(`${url}: ${problem}`)
    }
    // a server that sends a .gz with Content-Encoding: gzip: fetch has already gunzipped it (the length is of the gzip bytes)
    if (/gzip/i.test(response.headers.get('content-encoding') ?? '')) encoded = true
    else if (Number.isFinite(announced)) totalBytes = announced
    raw = Readable.fromWeb(response.body as ReadableStream<Uint8Array>, { highWaterMark: 1 << 20 })
  } else throw new Error('a source needs a path or a URL')
  const hash = createHash('sha256')
  let rawBytes = 0
  let textBytes = 0
  let digest: string | null = null
  let rawError: unknown = null
  raw.on('data', (chunk: Buffer) => {
    rawBytes += chunk.length
    hash.update(chunk)
    fed()
    if (rawBytes > maxBytes && stopped === null) {
      stopped = new Error(`${source.name}: more than ${maxBytes} bytes ${source.url ? 'downloaded' : 'in the file'} (limit; --max-bytes)`)
      raw.destroy(stopped)
    }
  })
  raw.on('end', () => {
    clearTimers()
    digest = hash.digest('hex')
  })
  const gzip = isGzipName(source.name) && !encoded
  const decoded: Readable = gzip ? raw.pipe(createGunzip({ chunkSize: 1 << 20 })) : raw
  raw.on('error', (error) => {
    clearTimers()
    rawError = error
    if (decoded !== raw) decoded.destroy(error)
  })
  const of = () => `after ${rawBytes} bytes${totalBytes !== null ? ` of ${totalBytes}` : ''}`
  async function* limited(): AsyncGenerator<Uint8Array> {
    try {
      for await (const chunk of decoded as AsyncIterable<Buffer>) {
        textBytes += chunk.length
        if (textBytes > maxBytes) {
          stopped = new Error(`${source.name}: more than ${maxBytes} bytes of JSON (limit; --max-bytes)`)
          raw.destroy()
          throw stopped
        }
        pause()
        yield chunk
        touch()
      }
    } catch (error) {
      if (stopped) throw stopped
      if (rawError !== null && source.url) throw new Error(`${source.name}: the download broke off ${of()}: ${causeOf(rawError)}`, { cause: error })
      if (rawError === null && gzip) throw new Error(`${source.name}: not a complete gzip stream ${of()}: ${causeOf(error)}`, { cause: error })
      throw error
    } finally {
      clearTimers()
      // a file left early (a malformed one) stops its download too
      if (!raw.destroyed && digest === null) raw.destroy()
    }
    if (source.url && totalBytes !== null && rawBytes < totalBytes) throw new Error(`${source.name}: the download broke off ${of()}`)
  }
  return {
    stream: limited(),
    rawBytes: () => rawBytes,
    textBytes: () => textBytes,
    totalBytes: () => totalBytes,
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
