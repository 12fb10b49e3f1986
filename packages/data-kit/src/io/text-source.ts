import { createReadStream } from 'node:fs'
import { createGunzip } from 'node:zlib'

/**
 * Anything a parser can read: a Node readable stream, an async iterable of chunks, or a plain iterable of
 * strings. Chunks are raw text (or bytes); they need not end on a line boundary.
 */
export type TextSource = AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>

export type TextEncoding = 'utf-8' | 'windows-1252'

/** Decodes byte chunks (streaming-safe across multi-byte boundaries); strings pass through unchanged. */
export async function* decodeText(source: TextSource, encoding: TextEncoding = 'utf-8'): AsyncGenerator<string> {
  const decoder = new TextDecoder(encoding)
  for await (const chunk of source) {
    if (typeof chunk === 'string') yield chunk
    else {
      const text = decoder.decode(chunk, { stream: true })
      if (text) yield text
    }
  }
  const tail = decoder.decode()
  if (tail) yield tail
}

export interface Line {
  /** 1-based physical line number in the source. */
  number: number
  /** The line without its terminator (LF or CRLF). */
  text: string
}

/** Splits a text source into lines (LF or CRLF), dropping a leading byte-order mark. */
export async function* readLines(source: TextSource, encoding: TextEncoding = 'utf-8'): AsyncGenerator<Line> {
  let pending = ''
  let number = 0
  let first = true
  for await (let chunk of decodeText(source, encoding)) {
    if (first) {
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1)
      first = chunk.length === 0
    }
    pending += chunk
    let start = 0
    let nl = pending.indexOf('\n', start)
    while (nl !== -1) {
      const end = nl > start && pending.charCodeAt(nl - 1) === 13 ? nl - 1 : nl
      yield { number: ++number, text: pending.slice(start, end) }
      start = nl + 1
      nl = pending.indexOf('\n', start)
    }
    pending = pending.slice(start)
  }
  if (pending.length > 0) yield { number: number + 1, text: pending.endsWith('\r') ? pending.slice(0, -1) : pending }
}

/** A source made of one string (tests, small inputs). */
export function fromString(text: string): TextSource {
  return [text]
}

/** A source made of lines given without terminators. */
export function fromLines(lines: Iterable<string>): TextSource {
  return (function* () {
    for (const line of lines) yield `${line}\n`
  })()
}

/** Streams a file from disk; `.gz` files are gunzipped on the fly. */
export function openFile(path: string, options: { highWaterMark?: number } = {}): AsyncIterable<Uint8Array> {
  const stream = createReadStream(path, { highWaterMark: options.highWaterMark ?? 1 << 20 })
  return path.endsWith('.gz') ? stream.pipe(createGunzip()) : stream
}
