import { describe, expect, it } from 'vitest'
import { AnswerBuffers } from './answer-buffers.ts'

const text = (head: string, parts: string[], separator: string, tail: string) => head + parts.join(separator) + tail

describe('AnswerBuffers', () => {
  it('writes the head, the parts between separators and the tail as UTF-8', () => {
    const buffers = new AnswerBuffers()
    const parts = ['{"a":1}', '{"name":"Zoë Ångström"}', '{"city":"東京"}', '{"emoji":"🩺"}']
    const { bytes, release } = buffers.join('{"entry":[', parts, ',', ']}')
    expect(bytes.toString('utf8')).toBe(text('{"entry":[', parts, ',', ']}'))
    expect(JSON.parse(bytes.toString('utf8'))).toEqual({ entry: [{ a: 1 }, { name: 'Zoë Ångström' }, { city: '東京' }, { emoji: '🩺' }] })
    release()
    expect(buffers.join('[', [], ',', ']').bytes.toString()).toBe('[]')
  })

  it('grows the buffer when multi-byte characters need more than the text has units', () => {
    const buffers = new AnswerBuffers()
    // 3 bytes for each unit: three times the room the text's length asks for, past the 1,024 bytes of slack
    const parts = Array.from({ length: 50 }, (_, i) => `${i}:${'東'.repeat(200)}`)
    const { bytes } = buffers.join('<', parts, '|', '>')
    expect(bytes.length).toBe(Buffer.byteLength(text('<', parts, '|', '>')))
    expect(bytes.toString('utf8')).toBe(text('<', parts, '|', '>'))
  })

  it('reuses a released buffer for the next answer, and only a released one', () => {
    const buffers = new AnswerBuffers()
    const first = buffers.join('', ['a'.repeat(10_000)], ',', '')
    const second = buffers.join('', ['b'.repeat(10_000)], ',', '')
    // both in flight: two buffers, neither overwritten
    expect(second.bytes.buffer).not.toBe(first.bytes.buffer)
    expect(first.bytes.toString()).toBe('a'.repeat(10_000))
    first.release()
    first.release() // a second release gives nothing back twice
    expect(buffers.held().count).toBe(1)
    const third = buffers.join('', ['c'.repeat(5_000)], ',', '')
    expect(third.bytes.buffer).toBe(first.bytes.buffer)
    expect(third.bytes.toString()).toBe('c'.repeat(5_000))
    expect(second.bytes.toString()).toBe('b'.repeat(10_000))
    expect(buffers.held().count).toBe(0)
  })

  it('keeps at most `keep` buffers, the larger ones, and none above `largest`', () => {
    const buffers = new AnswerBuffers(2, 50_000)
    const answers = [1_000, 20_000, 10_000, 60_000].map((size) => buffers.join('', ['x'.repeat(size)], '', ''))
    for (const answer of answers) answer.release()
    const held = buffers.held()
    expect(held.count).toBe(2)
    // the 60,000-byte one is above `largest`; of the rest the two larger are kept
    expect(held.bytes).toBe(20_000 + 1024 + 10_000 + 1024)
  })
})
