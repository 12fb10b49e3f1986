/**
 * Encoders for PostgreSQL `COPY ... FROM STDIN`: the default text format (tab-separated, \N for NULL,
 * backslash escapes) and CSV. Arrays become PostgreSQL array literals, objects JSON (for json/jsonb columns).
 */
export type CopyValue =
  string | number | boolean | null | undefined | Date | readonly (string | number | boolean | null)[] | { readonly [key: string]: unknown }

function scalarText(value: Exclude<CopyValue, null | undefined>): string {
  if (typeof value === 'string') return value
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`cannot COPY the number ${value}`)
    return String(value)
  }
  if (typeof value === 'boolean') return value ? 't' : 'f'
  if (value instanceof Date) return value.toISOString()
  if (Array.isArray(value)) return arrayLiteral(value)
  return JSON.stringify(value)
}

/** PostgreSQL array literal: {a,"b c",NULL}. */
export function arrayLiteral(items: readonly (string | number | boolean | null)[]): string {
  return `{${items
    .map((item) => {
      if (item === null) return 'NULL'
      if (typeof item !== 'string') return scalarText(item)
      return item === '' || /[{}",\\\s]/.test(item) || item.toUpperCase() === 'NULL'
        ? `"${item.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`
        : item
    })
    .join(',')}}`
}

const COPY_SPECIAL = /[\\\t\n\r]/
const COPY_SPECIAL_ALL = /[\\\t\n\r]/g
const copyEscape = (c: string) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r')

/** Text as a COPY text field: backslash, tab, newline and carriage return escaped (a test first: most text has none). */
export function copyTextEscape(text: string): string {
  return COPY_SPECIAL.test(text) ? text.replace(COPY_SPECIAL_ALL, copyEscape) : text
}

/** One field of COPY text format. */
export function copyTextField(value: CopyValue): string {
  if (value === null || value === undefined) return '\\N'
  // numbers and booleans never need escaping
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`cannot COPY the number ${value}`)
    return String(value)
  }
  if (typeof value === 'boolean') return value ? 't' : 'f'
  return copyTextEscape(scalarText(value))
}

/** One row of COPY text format, newline-terminated. */
export function copyTextRow(values: readonly CopyValue[]): string {
  let row = values.length > 0 ? copyTextField(values[0]) : ''
  for (let i = 1; i < values.length; i++) row += '\t' + copyTextField(values[i])
  return row + '\n'
}

/** One field of CSV (COPY ... WITH (FORMAT csv)): NULL is an unquoted empty field, '' a quoted one. */
export function csvField(value: CopyValue): string {
  if (value === null || value === undefined) return ''
  const text = scalarText(value)
  return text === '' || /[",\r\n]/.test(text) || text.trim() !== text ? `"${text.replace(/"/g, '""')}"` : text
}

export function csvRow(values: readonly CopyValue[]): string {
  return `${values.map(csvField).join(',')}\n`
}

/**
 * Turns row objects into COPY chunks of about `chunkSize` characters, columns in the given order, ready to write
 * to a COPY FROM STDIN stream.
 */
export async function* encodeCopy<T extends object>(
  rows: AsyncIterable<T> | Iterable<T>,
  columns: readonly (keyof T & string)[],
  options: { format?: 'text' | 'csv'; chunkSize?: number } = {},
): AsyncGenerator<string> {
  const encode = options.format === 'csv' ? csvRow : copyTextRow
  const size = options.chunkSize ?? 1 << 16
  let chunk = ''
  for await (const row of rows) {
    chunk += encode(columns.map((c) => row[c] as CopyValue))
    if (chunk.length >= size) {
      yield chunk
      chunk = ''
    }
  }
  if (chunk) yield chunk
}
