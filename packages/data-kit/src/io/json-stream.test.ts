import { describe, expect, it } from 'vitest'
import { streamJsonObject, type JsonStreamEvent } from './json-stream.ts'

async function events(chunks: string[], keys: readonly string[] = ['items']): Promise<JsonStreamEvent[]> {
  const out: JsonStreamEvent[] = []
  for await (const event of streamJsonObject(chunks, keys)) out.push(event)
  return out
}

describe('streamJsonObject', () => {
  it('assembles ordinary members whole and streams the chosen arrays element by element, with their lines', async () => {
    const text =
      '\ufeff{\n  "name": "H",\n  "meta": { "a": [1, 2.5e1, null, true] },\n  "items": [\n    { "x": "a\\"b" },\n    7\n  ],\n  "tail": false\n}\n'
    expect(await events([text])).toEqual([
      { kind: 'field', key: 'name', value: 'H', line: 2 },
      { kind: 'field', key: 'meta', value: { a: [1, 25, null, true] }, line: 3 },
      { kind: 'array-start', key: 'items', line: 4 },
      { kind: 'item', key: 'items', index: 0, value: { x: 'a"b' }, line: 5 },
      { kind: 'item', key: 'items', index: 1, value: 7, line: 6 },
      { kind: 'field', key: 'tail', value: false, line: 8 },
    ])
  })

  it('reads a member named in the keys that is not an array as an ordinary field', async () => {
    expect(await events(['{"items": {"n": 1}}'])).toEqual([{ kind: 'field', key: 'items', value: { n: 1 }, line: 1 }])
  })

  it('gives the same events whatever the chunking', async () => {
    const text = '{"a": "x\\u00e9y", "items": [{"k": [1, {"z": -0.5}]}, "s"], "b": 12}'
    const whole = await events([text])
    expect(await events(Array.from(text))).toEqual(whole)
    expect(whole.filter((e) => e.kind === 'item').map((e) => e.kind === 'item' && e.value)).toEqual([{ k: [1, { z: -0.5 }] }, 's'])
  })

  it('ends with an error naming the line and the element of a syntax error', async () => {
    const out = await events(['{"items": [\n1,\n{"x": 1e}\n, 3]}'])
    expect(out.slice(0, 2)).toEqual([
      { kind: 'array-start', key: 'items', line: 1 },
      { kind: 'item', key: 'items', index: 0, value: 1, line: 2 },
    ])
    expect(out[2]).toMatchObject({ kind: 'error', line: 3 })
    expect(out[2]?.kind === 'error' && out[2].reason).toMatch(/^element 1 of items is not valid JSON: \S/)
    expect(out).toHaveLength(3)
  })

  it('refuses a document that is not an object, a truncated one and content after the end', async () => {
    expect(await events(['[1, 2]'])).toEqual([{ kind: 'error', line: 1, reason: 'the document is not a JSON object' }])
    expect(await events(['{"a": 1,\n"items": [1'])).toEqual([
      { kind: 'field', key: 'a', value: 1, line: 1 },
      { kind: 'array-start', key: 'items', line: 2 },
      { kind: 'error', line: 2, reason: 'unexpected end of the document' },
    ])
    const trailing = await events(['{"a": 1}\n{"b": 2}'])
    expect(trailing[0]).toEqual({ kind: 'field', key: 'a', value: 1, line: 1 })
    expect(trailing[1]).toMatchObject({ kind: 'error', line: 2 })
    expect(trailing).toHaveLength(2)
  })
})
