import { decodeText, type TextSource } from './text-source.ts'

export type JsonStreamEvent =
  | { kind: 'field'; key: string; value: unknown; line: number }
  | { kind: 'array-start'; key: string; line: number }
  | { kind: 'item'; key: string; index: number; value: unknown; line: number }
  | { kind: 'error'; line: number; reason: string; fatal: boolean }

/**
 * Streams a JSON document whose top level is an object, without holding it all in memory: ordinary top-level
 * members are parsed whole ('field'), while the members named in `streamKeys` that hold arrays are emitted one
 * element at a time ('item'). An element that is not valid JSON is reported and skipped; a broken document
 * structure ends the stream with a fatal error.
 */
export async function* streamJsonObject(source: TextSource, streamKeys: readonly string[]): AsyncGenerator<JsonStreamEvent> {
  let buf = ''
  let pos = 0
  let line = 1
  let phase: 'start' | 'key' | 'array' | 'end' = 'start'
  // the phase changes inside step(); read it through a function so the compiler does not narrow it
  const ended = () => phase === 'end'
  let arrayKey = ''
  let index = 0
  let first = true

  const advance = (to: number) => {
    for (let i = buf.indexOf('\n', pos); i !== -1 && i < to; i = buf.indexOf('\n', i + 1)) line++
    pos = to
  }
  const skipWs = (commas: boolean) => {
    let i = pos
    while (i < buf.length) {
      const c = buf.charCodeAt(i)
      if (c === 32 || c === 9 || c === 10 || c === 13 || (commas && c === 44)) i++
      else break
    }
    advance(i)
  }

  function* step(final: boolean): Generator<JsonStreamEvent, boolean> {
    for (;;) {
      if (phase === 'end') return true
      skipWs(phase !== 'start')
      if (pos >= buf.length) return false
      const c = buf[pos]
      if (phase === 'start') {
        if (c !== '{') {
          yield { kind: 'error', line, reason: 'the document is not a JSON object', fatal: true }
          phase = 'end'
          return true
        }
        advance(pos + 1)
        phase = 'key'
        continue
      }
      if (phase === 'array') {
        if (c === ']') {
          advance(pos + 1)
          phase = 'key'
          continue
        }
        const end = valueEnd(buf, pos, final)
        if (end === -1) return false
        if (end === -2) {
          yield { kind: 'error', line, reason: `malformed element ${index} of ${arrayKey}`, fatal: true }
          phase = 'end'
          return true
        }
        const startLine = line
        const text = buf.slice(pos, end)
        advance(end)
        try {
          yield { kind: 'item', key: arrayKey, index, value: JSON.parse(text), line: startLine }
        } catch (error) {
          yield { kind: 'error', line: startLine, reason: `element ${index} of ${arrayKey} is not valid JSON: ${(error as Error).message}`, fatal: false }
        }
        index++
        continue
      }
      // phase 'key'
      if (c === '}') {
        advance(pos + 1)
        phase = 'end'
        return true
      }
      if (c !== '"') {
        yield { kind: 'error', line, reason: `expected a member name, found '${c}'`, fatal: true }
        phase = 'end'
        return true
      }
      const keyEnd = stringEnd(buf, pos)
      if (keyEnd === -1) return false
      let i = keyEnd
      while (i < buf.length && /\s/.test(buf[i] ?? '')) i++
      if (i >= buf.length) return false
      if (buf[i] !== ':') {
        yield { kind: 'error', line, reason: 'expected a colon after a member name', fatal: true }
        phase = 'end'
        return true
      }
      i++
      while (i < buf.length && /\s/.test(buf[i] ?? '')) i++
      if (i >= buf.length) return false
      const key = JSON.parse(buf.slice(pos, keyEnd)) as string
      if (streamKeys.includes(key) && buf[i] === '[') {
        const startLine = line
        advance(i + 1)
        phase = 'array'
        arrayKey = key
        index = 0
        yield { kind: 'array-start', key, line: startLine }
        continue
      }
      const end = valueEnd(buf, i, final)
      if (end === -1) return false
      if (end === -2) {
        yield { kind: 'error', line, reason: `malformed value of ${key}`, fatal: true }
        phase = 'end'
        return true
      }
      const startLine = line
      const text = buf.slice(i, end)
      advance(end)
      try {
        yield { kind: 'field', key, value: JSON.parse(text), line: startLine }
      } catch (error) {
        yield { kind: 'error', line: startLine, reason: `value of ${key} is not valid JSON: ${(error as Error).message}`, fatal: false }
      }
    }
  }

  for await (let chunk of decodeText(source)) {
    if (first && chunk.length > 0) {
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1)
      first = false
    }
    buf = buf.slice(pos) + chunk
    pos = 0
    if ((yield* step(false)) && ended()) return
  }
  yield* step(true)
  if (!ended()) yield { kind: 'error', line, reason: 'unexpected end of the document', fatal: true }
}

/** Index just past the string starting at `start` (a quote), or -1 when the buffer ends first. */
function stringEnd(s: string, start: number): number {
  let i = start + 1
  for (;;) {
    const q = s.indexOf('"', i)
    if (q === -1) return -1
    let backslashes = 0
    for (let k = q - 1; k > start && s[k] === '\\'; k--) backslashes++
    if (backslashes % 2 === 0) return q + 1
    i = q + 1
  }
}

/** Index just past the JSON value starting at `start`; -1 when incomplete, -2 when unbalanced. */
function valueEnd(s: string, start: number, final: boolean): number {
  const c = s[start]
  if (c === '"') return stringEnd(s, start)
  if (c === '{' || c === '[') {
    let depth = 0
    let i = start
    while (i < s.length) {
      const ch = s[i]
      if (ch === '"') {
        const e = stringEnd(s, i)
        if (e === -1) return -1
        i = e
        continue
      }
      if (ch === '{' || ch === '[') depth++
      else if (ch === '}' || ch === ']') {
        depth--
        if (depth === 0) return i + 1
        if (depth < 0) return -2
      }
      i++
    }
    return -1
  }
  let i = start
  while (i < s.length && !',}]\r\n\t '.includes(s[i] ?? '')) i++
  if (i >= s.length && !final) return -1
  return i === start ? -2 : i
}
