/** One outcome of a streaming parser: a good row, or a rejected input line with the reason. */
/** `line` (1-based, first physical line of the record) when the format has lines. */
export type ParseResult<T> = { ok: T; line?: number } | { rejected: Rejection }

export interface Rejection {
  /** 1-based line number of the (first physical) line of the rejected record. */
  line: number
  reason: string
  /** The offending input, cut to 500 characters. */
  text?: string
}

export function reject(line: number, reason: string, text?: string): { rejected: Rejection } {
  return { rejected: text === undefined ? { line, reason } : { line, reason, text: text.length > 500 ? `${text.slice(0, 500)}…` : text } }
}

export function isOk<T>(result: ParseResult<T>): result is { ok: T } {
  return 'ok' in result
}

/** Collects a parser's output (tests and small files). */
export async function collect<T>(results: AsyncIterable<ParseResult<T>>): Promise<{ rows: T[]; rejected: Rejection[] }> {
  const rows: T[] = []
  const rejected: Rejection[] = []
  for await (const result of results) {
    if ('ok' in result) rows.push(result.ok)
    else rejected.push(result.rejected)
  }
  return { rows, rejected }
}
