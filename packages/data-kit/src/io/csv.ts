import { decodeText, type TextEncoding, type TextSource } from './text-source.ts'

export interface CsvRecord {
  fields: string[]
  /** 1-based line number where the record starts. */
  line: number
  /** The record's raw text (for rejection messages). */
  text: string
}

export type CsvItem = { record: CsvRecord } | { error: { line: number; reason: string; text: string } }

export interface CsvOptions {
  delimiter?: string
  encoding?: TextEncoding
  /** A record longer than this (usually an unbalanced quote) is rejected and parsing resumes on the next line. */
  maxRecordLength?: number
  /** Keep records that are one empty field (blank lines). Default false. */
  keepBlankLines?: boolean
}

type Parsed = { kind: 'record'; fields: string[]; end: number; error?: string } | { kind: 'incomplete' } | { kind: 'unterminated' }

/**
 * Streaming RFC 4180 CSV reader: quoted fields with doubled quotes, embedded newlines, LF or CRLF, a leading
 * BOM. A malformed record (text after a closing quote, an unterminated quote, an oversized record) is reported
 * as an error and never stops the stream; after an unterminated quote parsing resumes at the next line so the
 * following good records are kept.
 */
export async function* readCsv(source: TextSource, options: CsvOptions = {}): AsyncGenerator<CsvItem> {
  const delimiter = options.delimiter ?? ','
  if (delimiter.length !== 1 || delimiter === '"' || delimiter === '\n' || delimiter === '\r')
    throw new Error('delimiter must be one character other than a quote or newline')
  const maxRecordLength = options.maxRecordLength ?? 8 << 20
  let buf = ''
  let line = 1
  let first = true

  function* drain(final: boolean): Generator<CsvItem> {
    let pos = 0
    while (pos < buf.length) {
      const parsed = parseRecord(buf, pos, delimiter, final)
      if (parsed.kind === 'incomplete' && buf.length - pos <= maxRecordLength) break
      if (parsed.kind === 'record') {
        const text = buf.slice(pos, parsed.end)
        const startLine = line
        line += countNewlines(text)
        pos = parsed.end
        if (parsed.error) {
          yield { error: { line: startLine, reason: parsed.error, text: stripEol(text) } }
          continue
        }
        if (!options.keepBlankLines && parsed.fields.length === 1 && parsed.fields[0] === '') continue
        yield { record: { fields: parsed.fields, line: startLine, text: stripEol(text) } }
        continue
      }
      // Unterminated quote at end of input, or a record that grew past the limit: reject its first line, resume.
      const nl = buf.indexOf('\n', pos)
      const end = nl === -1 ? buf.length : nl + 1
      const reason =
        parsed.kind === 'unterminated'
          ? 'unterminated quoted field'
          : `record longer than ${maxRecordLength} characters (unbalanced quote?)`
      yield { error: { line, reason, text: stripEol(buf.slice(pos, end)) } }
      line += nl === -1 ? 0 : 1
      pos = end
    }
    buf = buf.slice(pos)
  }

  for await (let chunk of decodeText(source, options.encoding)) {
    if (first && chunk.length > 0) {
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1)
      first = false
    }
    buf += chunk
    yield* drain(false)
  }
  yield* drain(true)
}

function stripEol(text: string): string {
  if (text.endsWith('\r\n')) return text.slice(0, -2)
  if (text.endsWith('\n') || text.endsWith('\r')) return text.slice(0, -1)
  return text
}

function countNewlines(text: string): number {
  let n = 0
  let i = text.indexOf('\n')
  while (i !== -1) {
    n++
    i = text.indexOf('\n', i + 1)
  }
  return n
}

function parseRecord(s: string, start: number, delimiter: string, final: boolean): Parsed {
  const fields: string[] = []
  let i = start
  let error: string | undefined
  for (;;) {
    // at the start of a field
    if (i < s.length && s[i] === '"') {
      let value = ''
      let j = i + 1
      for (;;) {
        const q = s.indexOf('"', j)
        if (q === -1) return final ? { kind: 'unterminated' } : { kind: 'incomplete' }
        if (q + 1 >= s.length && !final) return { kind: 'incomplete' }
        if (s[q + 1] === '"') {
          value += s.slice(j, q + 1)
          j = q + 2
          continue
        }
        value += s.slice(j, q)
        i = q + 1
        break
      }
      if (i < s.length && s[i] !== delimiter && s[i] !== '\n' && s[i] !== '\r') {
        error ??= `unexpected text after a closing quote in field ${fields.length + 1}`
        const k = scanUnquoted(s, i, delimiter)
        value += s.slice(i, k)
        i = k
      }
      fields.push(value)
    } else {
      const k = scanUnquoted(s, i, delimiter)
      fields.push(s.slice(i, k))
      i = k
    }
    if (i >= s.length) return final ? { kind: 'record', fields, end: i, ...(error ? { error } : {}) } : { kind: 'incomplete' }
    const c = s[i]
    if (c === delimiter) {
      i++
      if (i >= s.length && final) {
        fields.push('')
        return { kind: 'record', fields, end: i, ...(error ? { error } : {}) }
      }
      continue
    }
    if (c === '\n') return { kind: 'record', fields, end: i + 1, ...(error ? { error } : {}) }
    // '\r'
    if (i + 1 >= s.length && !final) return { kind: 'incomplete' }
    return { kind: 'record', fields, end: s[i + 1] === '\n' ? i + 2 : i + 1, ...(error ? { error } : {}) }
  }
}

function scanUnquoted(s: string, from: number, delimiter: string): number {
  let k = from
  while (k < s.length) {
    const c = s[k]
    if (c === delimiter || c === '\n' || c === '\r') break
    k++
  }
  return k
}

/** Header-driven access to CSV records: column index by (trimmed, case-insensitive) header name. */
export class CsvHeader {
  readonly names: string[]
  private readonly index = new Map<string, number>()
  constructor(fields: string[]) {
    this.names = fields.map((f) => f.trim())
    this.names.forEach((name, i) => {
      const key = name.toLowerCase()
      if (!this.index.has(key)) this.index.set(key, i)
    })
  }
  has(name: string): boolean {
    return this.index.has(name.toLowerCase())
  }
  indexOf(name: string): number {
    return this.index.get(name.toLowerCase()) ?? -1
  }
  /** Names from `required` that are missing. */
  missing(required: readonly string[]): string[] {
    return required.filter((name) => !this.has(name))
  }
  get(fields: readonly string[], name: string): string {
    const i = this.index.get(name.toLowerCase())
    return i === undefined ? '' : (fields[i] ?? '').trim()
  }
}
