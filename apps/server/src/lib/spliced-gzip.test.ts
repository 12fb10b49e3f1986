import { gunzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { acceptsGzip, constantPiece, crc32, crc32Combine, gzipSegment, SplicedGzip } from './spliced-gzip.ts'

/** A deterministic pseudo-random sequence. */
function random(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    return seed / 2 ** 31
  }
}

describe('spliced gzip', () => {
  it('computes CRC-32 (the standard check value), and combines two CRCs into the CRC of the concatenation', () => {
    const a = Buffer.from('{"type":"Feature","id":"01001"}')
    const b = Buffer.from('Doña Ana County, NM — ✓'.repeat(50))
    // the standard check value of CRC-32 (IEEE 802.3) over the ASCII digits
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926)
    const segment = gzipSegment(b)
    expect(crc32Combine(crc32(a), segment.crc, segment.shift)).toBe(crc32(Buffer.concat([a, b])))
    expect(crc32(b, crc32(a))).toBe(crc32(Buffer.concat([a, b])))
  })

  it('writes constants, values, slots, segments and long text that gunzip back to the same text', () => {
    const next = random(7)
    const constants = [
      '{"id":',
      ',"label":',
      ',"metrics":[{"code":"patient_count","name":"Patients","value":{"v":',
      '}',
      ',',
      'x'.repeat(700),
      'ü✓',
    ].map(constantPiece)
    const labels = ['"Autauga County, AL"', '"Doña Ana County, NM"', '"Ελλάδα ✓"', '""', '"a"']
    const gzip = new SplicedGzip(64)
    let expected = ''
    for (let i = 0; i < 4000; i++) {
      const kind = next()
      if (kind < 0.45) {
        const piece = constants[Math.floor(next() * constants.length)]!
        gzip.constant(piece)
        expected += piece.text
      } else if (kind < 0.9) {
        const text = next() < 0.5 ? labels[Math.floor(next() * labels.length)]! : String(Math.floor(next() * 100_000))
        const slot = next() < 0.7 ? Math.floor(next() * 3) : -1
        gzip.value(text, slot)
        expected += text
      } else if (kind < 0.97) {
        // geometry-like text, some of it longer than the 32 KiB window so that constants fall back to literals
        const size = next() < 0.1 ? 40_000 : Math.floor(next() * 3000)
        const text = `{"type":"Polygon","coordinates":[[${Array.from({ length: size / 20 }, () => `[${(next() * 180 - 90).toFixed(5)},${(next() * 90).toFixed(5)}]`).join(',')}]]}`
        gzip.segment(gzipSegment(text))
        expected += text
      } else {
        const text = `,${JSON.stringify({ note: 'é'.repeat(Math.floor(next() * 3000)) })}`
        gzip.text(text)
        expected += text
      }
    }
    const body = gzip.finish()
    expect(gzip.length).toBe(Buffer.byteLength(expected))
    // gunzip checks the deflate stream, the CRC-32 and the length
    expect(gunzipSync(body).toString()).toBe(expected)
    expect(body.length).toBeLessThan(Buffer.byteLength(expected))
  })

  it('compresses repeated constants to back-references', () => {
    const gzip = new SplicedGzip()
    const head = constantPiece(',"fill-opacity":0.75,"stroke":"#5C5F66","score":')
    let expected = ''
    for (let i = 0; i < 1000; i++) {
      gzip.constant(head)
      gzip.value(String(i % 7), 0)
      expected += head.text + String(i % 7)
    }
    const body = gzip.finish()
    expect(gunzipSync(body).toString()).toBe(expected)
    expect(body.length).toBeLessThan(expected.length / 10)
  })

  it('an empty body is a valid gzip of nothing', () => {
    expect(gunzipSync(new SplicedGzip().finish()).length).toBe(0)
  })

  it('reads Accept-Encoding', () => {
    expect(acceptsGzip('gzip, deflate, br, zstd')).toBe(true)
    expect(acceptsGzip('br;q=1.0, gzip;q=0.8')).toBe(true)
    expect(acceptsGzip('*')).toBe(true)
    expect(acceptsGzip('gzip;q=0')).toBe(false)
    expect(acceptsGzip('identity')).toBe(false)
    expect(acceptsGzip('deflate, br')).toBe(false)
    expect(acceptsGzip(undefined)).toBe(false)
    expect(acceptsGzip(['deflate', 'GZIP'])).toBe(true)
    // RFC 9110 §12.5.3: an explicit gzip q-value wins over `*`, which counts only when gzip is not named
    expect(acceptsGzip('gzip;q=0, *')).toBe(false)
    expect(acceptsGzip('*, gzip;q=0')).toBe(false)
    expect(acceptsGzip('x-gzip;q=0, *;q=1')).toBe(false)
    expect(acceptsGzip('gzip;q=0.5')).toBe(true)
    expect(acceptsGzip('gzip;q=0.000')).toBe(false)
    expect(acceptsGzip('x-gzip')).toBe(true)
    expect(acceptsGzip('*;q=0')).toBe(false)
    expect(acceptsGzip('br, *;q=0.1')).toBe(true)
    expect(acceptsGzip('GZIP')).toBe(true)
    expect(acceptsGzip('gzip ; q=0.2')).toBe(true)
    expect(acceptsGzip('identity, gzip;q=0')).toBe(false)
  })
})
