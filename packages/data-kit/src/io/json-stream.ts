import { getManyValues, isMany, none, type Many } from 'stream-chain/core'
import Assembler from 'stream-json/assembler.js'
import { jsonParser, type Token } from 'stream-json/parser.js'
import { decodeText, type TextSource } from './text-source.ts'

export type JsonStreamEvent =
  | { kind: 'field'; key: string; value: unknown; line: number }
  | { kind: 'array-start'; key: string; line: number }
  | { kind: 'item'; key: string; index: number; value: unknown; line: number }
  /** the document is not valid JSON (or not an object): always the last event */
  | { kind: 'error'; line: number; reason: string }

/**
 * Streams a JSON document whose top level is an object, without holding it all in memory: ordinary top-level
 * members are assembled whole ('field'), while the members named in `streamKeys` that hold arrays are emitted one
 * element at a time ('item'). Tokenising is stream-json's; this adds the line each value starts on (the text is
 * fed to the tokenizer a line at a time). A syntax error ends the stream with an 'error' event: a JSON document
 * has no record boundaries to resume from, so the elements before the error are all that can be trusted.
 */
export async function* streamJsonObject(source: TextSource, streamKeys: readonly string[]): AsyncGenerator<JsonStreamEvent> {
  // the tokenizer is flushable: called with `none` at the end of the text (its type names only text)
  const tokenize = jsonParser({ packValues: true, streamValues: false }) as (text: string | typeof none) => Many<Token> | typeof none
  let line = 1
  let first = true
  // changed inside consume(): typed by assertion so that the checks after the loop are not narrowed away
  let phase = 'start' as 'start' | 'key' | 'value' | 'array' | 'element' | 'end'
  let key = ''
  let index = 0
  let valueLine = 1
  let assembler = new Assembler()

  // Consumes one token; returns an event when a value is complete, or an error reason.
  const consume = (token: Token): JsonStreamEvent | string | null => {
    switch (phase) {
      case 'start':
        if (token.name !== 'startObject') return 'the document is not a JSON object'
        phase = 'key'
        return null
      case 'key':
        if (token.name === 'endObject') {
          phase = 'end'
          return null
        }
        if (token.name !== 'keyValue') return `expected a member name, found ${token.name}`
        key = token.value
        phase = 'value'
        valueLine = line
        assembler = new Assembler()
        return null
      case 'value':
        if (token.name === 'startArray' && streamKeys.includes(key)) {
          phase = 'array'
          index = 0
          return { kind: 'array-start', key, line: valueLine }
        }
        assembler.consume(token)
        if (!assembler.done) return null
        phase = 'key'
        return { kind: 'field', key, value: assembler.current, line: valueLine }
      case 'array':
        if (token.name === 'endArray') {
          phase = 'key'
          return null
        }
        phase = 'element'
        valueLine = line
        assembler = new Assembler()
        return consume(token)
      case 'element':
        assembler.consume(token)
        if (!assembler.done) return null
        phase = 'array'
        return { kind: 'item', key, index: index++, value: assembler.current, line: valueLine }
      case 'end':
        return 'unexpected content after the document'
    }
  }

  function* feed(text: string | typeof none): Generator<JsonStreamEvent, boolean> {
    let output
    try {
      output = tokenize(text)
    } catch (error) {
      // the tokens of this line before the error are lost with it: in 'array', the element it starts is at fault
      const where =
        phase === 'element' || phase === 'array' ? `element ${index} of ${key}` : phase === 'value' ? `the value of ${key}` : 'the document'
      const reason = text === none ? 'unexpected end of the document' : `${where} is not valid JSON: ${(error as Error).message}`
      yield { kind: 'error', line, reason }
      return false
    }
    if (output === none) return true
    for (const token of isMany(output) ? getManyValues(output) : []) {
      const event = consume(token)
      if (event === null) continue
      if (typeof event === 'string') {
        yield { kind: 'error', line, reason: event }
        return false
      }
      yield event
    }
    return true
  }

  for await (let chunk of decodeText(source)) {
    if (first && chunk.length > 0) {
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1)
      first = false
    }
    // a line at a time, so that every token is known to come from `line`
    let start = 0
    for (let newline = chunk.indexOf('\n'); newline !== -1; newline = chunk.indexOf('\n', start)) {
      if (!(yield* feed(chunk.slice(start, newline + 1)))) return
      line++
      start = newline + 1
    }
    if (start < chunk.length && !(yield* feed(start === 0 ? chunk : chunk.slice(start)))) return
  }
  if (!(yield* feed(none))) return
  if (phase !== 'end') yield { kind: 'error', line, reason: 'unexpected end of the document' }
}
