import { describe, expect, it } from 'vitest'
import { readCsv, type CsvItem } from './csv.ts'

async function all(chunks: string[] | Uint8Array[], options = {}): Promise<CsvItem[]> {
  const out: CsvItem[] = []
  for await (const item of readCsv(chunks, options)) out.push(item)
  return out
}
const fieldsOf = (items: CsvItem[]) => items.flatMap((i) => ('record' in i ? [i.record.fields] : []))

describe('readCsv', () => {
  it('parses quotes, doubled quotes, embedded newlines, CRLF and a BOM', async () => {
    const text = '\uFEFFa,b,c\r\n"x, y","he said ""hi""","line1\r\nline2"\r\n1,,3\r\n'
    const items = await all([text])
    expect(fieldsOf(items)).toEqual([
      ['a', 'b', 'c'],
      ['x, y', 'he said "hi"', 'line1\r\nline2'],
      ['1', '', '3'],
    ])
    const lines = items.map((i) => ('record' in i ? i.record.line : -1))
    expect(lines).toEqual([1, 2, 4])
  })

  it('gives the same records whatever the chunk boundaries', async () => {
    const text = 'h1,h2\n"a""b","c\nd"\r\ne,f\r\n"g",h'
    const whole = fieldsOf(await all([text]))
    for (let size = 1; size <= 7; size++) {
      const chunks: string[] = []
      for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size))
      expect(fieldsOf(await all(chunks))).toEqual(whole)
    }
    expect(whole).toEqual([
      ['h1', 'h2'],
      ['a"b', 'c\nd'],
      ['e', 'f'],
      ['g', 'h'],
    ])
  })

  it('decodes bytes split inside a multi-byte character', async () => {
    const bytes = new TextEncoder().encode('name\nDoña Ana\n')
    const cut = bytes.indexOf(0xc3) + 1
    expect(fieldsOf(await all([bytes.slice(0, cut), bytes.slice(cut)]))).toEqual([['name'], ['Doña Ana']])
  })

  it('rejects text after a closing quote but keeps the following rows', async () => {
    const items = await all(['a,b\n"x"y,z\nok,1\n'])
    expect(items[1]).toEqual({ error: { line: 2, reason: 'unexpected text after a closing quote in field 1', text: '"x"y,z' } })
    expect(fieldsOf(items)).toEqual([
      ['a', 'b'],
      ['ok', '1'],
    ])
  })

  it('rejects the line of an unterminated quote and resumes on the next line', async () => {
    const items = await all(['a,b\n1,"oops\n2,good\n3,fine\n'])
    expect(items.filter((i) => 'error' in i)).toEqual([{ error: { line: 2, reason: 'unterminated quoted field', text: '1,"oops' } }])
    expect(fieldsOf(items)).toEqual([
      ['a', 'b'],
      ['2', 'good'],
      ['3', 'fine'],
    ])
  })

  it('caps record length so an unbalanced quote cannot swallow a stream', async () => {
    const chunks = ['a\n"never closed\n', ...Array.from({ length: 50 }, (_, i) => `row${i}\n`)]
    const items = await all(chunks, { maxRecordLength: 64 })
    expect(items.filter((i) => 'error' in i)).toHaveLength(1)
    expect(fieldsOf(items).length).toBeGreaterThan(40)
  })

  it('supports another delimiter and skips blank lines', async () => {
    expect(fieldsOf(await all(['x\ty\n\n1\t2\n'], { delimiter: '\t' }))).toEqual([
      ['x', 'y'],
      ['1', '2'],
    ])
  })
})
