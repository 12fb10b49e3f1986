import { existsSync, readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { REPO_ROOT } from '../../runtime.ts'
import { JsonPositionError, JsonStream, type PathItem } from './json-stream.ts'

const EXAMPLES = path.resolve(REPO_ROOT, '../shared/data/tic-price-transparency/examples')

/** Captures every element of every top-level array; returns [path, value] pairs. */
function read(text: string, chunk: number, capture = (p: readonly PathItem[]) => p.length === 2) {
  const stream = new JsonStream(capture)
  const out: [string, unknown][] = []
  for (let i = 0; i < text.length; i += chunk) {
    stream.write(text.slice(i, i + chunk))
    for (const e of stream.drain()) if (e.kind === 'value') out.push([JSON.stringify(e.path), e.value])
  }
  stream.end()
  for (const e of stream.drain()) if (e.kind === 'value') out.push([JSON.stringify(e.path), e.value])
  return out
}

/** The same pairs from JSON.parse (the oracle). */
function oracle(text: string): [string, unknown][] {
  const doc = JSON.parse(text) as Record<string, unknown>
  const out: [string, unknown][] = []
  for (const [key, value] of Object.entries(doc)) {
    if (Array.isArray(value)) value.forEach((v, i) => out.push([JSON.stringify([key, i]), v]))
    else if (value === null || typeof value !== 'object') out.push([JSON.stringify([key]), value])
  }
  return out
}

describe('JsonStream', () => {
  // the CMS examples live beside the repository (../shared/data, SOURCES.md §7): skipped when absent
  it.skipIf(!existsSync(EXAMPLES))('reads every CMS example like JSON.parse, whatever the chunk boundaries', () => {
    for (const name of readdirSync(EXAMPLES)) {
      const text = readFileSync(path.join(EXAMPLES, name), 'utf8')
      const expected = oracle(text).sort((a, b) => a[0].localeCompare(b[0]))
      for (const chunk of [1, 2, 3, 7, 64, 1 << 20]) expect(read(text, chunk).sort((a, b) => a[0].localeCompare(b[0])), `${name} by ${chunk}`).toEqual(expected)
    }
  })

  it('decodes escapes, unicode and numbers split across chunks', () => {
    const text = '{"a":["x\\"y\\\\","\\u00e9\\n", -1.5e3, 0, true, false, null, {"b\\"c": [[]]}]}'
    for (const chunk of [1, 2, 5, 100]) expect(read(text, chunk)).toEqual(oracle(text))
  })

  it('names the line, column and path of malformed input', () => {
    const cases: [string, RegExp][] = [
      ['{"a": [1, 2,]}', /line 1, column 13 .*\$\.a\[2\]: expected a value, found '\]'/],
      ['{\n  "a": 01}', /line 2, column 8 .*malformed number '01'/],
      ['{"a": "x\ny"}', /line 1, column 9 .*line break inside a string/],
      ['{"a": [1, 2]', /unexpected end of file/],
      ['{"a": nul}', /unexpected characters 'nul'/],
      ['{"a": 1} {}', /after the end of the document/],
      ['{"a" 1}', /expected ':'/],
      ['{"a": "\\x"}', /invalid escape/],
    ]
    for (const [text, message] of cases) {
      expect(() => read(text, 3), text).toThrow(JsonPositionError)
      expect(() => read(text, 3), text).toThrow(message)
    }
  })

  it('enforces its limits: depth, string length, captured size', () => {
    expect(() => new JsonStream(() => false, { maxDepth: 3 }).write('[[[[1]]]]')).toThrow(/nesting deeper than 3/)
    expect(() => new JsonStream(() => false, { maxStringChars: 10 }).write('["01234567890"]')).toThrow(/string longer than 10/)
    expect(() => new JsonStream((p) => p.length === 1, { maxCapturedChars: 20 }).write(`[[${'1,'.repeat(30)}1]]`)).toThrow(/value larger than 20/)
  })
})
