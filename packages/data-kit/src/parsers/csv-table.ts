import { CsvHeader, readCsv, type CsvOptions } from '../io/csv.ts'
import type { TextSource } from '../io/text-source.ts'
import { reject, type ParseResult } from './result.ts'

/** A data record of a header-driven CSV file. */
export interface CsvTableRow {
  header: CsvHeader
  fields: string[]
  line: number
  text: string
  /** The trimmed value of the named column ('' when the file has no such column). */
  get(name: string): string
}

export interface CsvTableSpec<T, C> {
  /** What the file must be, for the message `not <file>: missing column(s) …` (e.g. 'a NUCC taxonomy file'). */
  file: string
  /** Columns the header must name. */
  required: readonly string[]
  csv?: CsvOptions
  /** Reads what the rows need from the header; the names it returns as `missing` are reported after `required`'s. */
  header?: (header: CsvHeader) => { context: C; missing?: readonly string[] }
  /** A row, or the reason it is rejected. */
  row: (row: CsvTableRow, context: C) => T | string
}

/**
 * A CSV file whose first record names the columns (order and extra columns do not matter): a header missing a
 * required column rejects the file at once; malformed records and rows `row` refuses are rejected with the reason.
 */
export async function* parseCsvTable<T, C = undefined>(source: TextSource, spec: CsvTableSpec<T, C>): AsyncGenerator<ParseResult<T>> {
  let header: CsvHeader | undefined
  let context: C | undefined
  for await (const item of readCsv(source, spec.csv)) {
    if ('error' in item) {
      yield reject(item.error.line, item.error.reason, item.error.text)
      continue
    }
    const { fields, line, text } = item.record
    if (!header) {
      header = new CsvHeader(fields)
      const read = spec.header?.(header)
      const missing = [...header.missing(spec.required), ...(read?.missing ?? [])]
      if (missing.length > 0) {
        yield reject(line, `not ${spec.file}: missing column(s) ${missing.join(', ')}`, text)
        return
      }
      context = read?.context
      continue
    }
    const h = header
    const result = spec.row({ header: h, fields, line, text, get: (name) => h.get(fields, name) }, context as C)
    if (typeof result === 'string') yield reject(line, result, text)
    else yield { ok: result, line }
  }
}
