import { gunzipSync } from 'node:zlib'
import { afterEach, describe, expect, it } from 'vitest'
import { GenericBodyWriter, KEPT_CATALOGS, WORKER_MIN_REGIONS } from './body-writer.ts'
import {
  genericResponseGzip,
  genericResponseJson,
  share,
  shareText,
  SHARE_TEXTS,
  resultOfRegions,
  type GenericResult,
  type ResponseOptions,
} from './generic.ts'
import type { Region } from './regions.ts'

/** A COUNTY-like result: long polygon texts (compressed segments), short ones, non-ASCII labels, nulls. */
function syntheticResult(count: number, seed: number): GenericResult {
  let state = seed
  const random = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
  const catalog = new Map<string, Region>()
  for (let i = 0; i < count; i++) {
    const ring = Array.from(
      { length: i % 7 === 0 ? 3 : 40 },
      () => `[${(-120 + random() * 50).toFixed(5)},${(25 + random() * 20).toFixed(5)}]`,
    )
    const id = String(1000 + i).padStart(5, '0')
    catalog.set(id, {
      id,
      label: i % 11 === 0 ? `Doña Ana ${i}, NM` : `County ${i}, TX`,
      state: i % 2 ? 'TX' : 'NM',
      population: i % 13 === 0 ? null : Math.round(random() * 1e6),
      latitude: 25 + random() * 20,
      longitude: -120 + random() * 50,
      geometry: `{"type":"Polygon","coordinates":[[${ring.join(',')}]]}`,
    })
  }
  const regions = [...catalog.values()].map((region, i) => {
    const patients = Math.round(random() * 5000)
    return {
      region,
      patients,
      payers: {
        commercial: Math.round(patients * 0.4),
        medicare: Math.round(patients * 0.3),
        medicaid: Math.round(patients * 0.2),
        other: 7,
      },
      prevalence: region.population ? (patients / region.population) * 100_000 : null,
      hotspot: i % 17 === 0 ? null : random() * 6 - 3,
      score: null,
      fill: ['#FFF5EB', '#FDD0A2', '#FD8D3C', '#D94801'][i % 4]!,
    }
  })
  // the score is the one of the Gi* value (regionAt derives it)
  return resultOfRegions(
    {
      granularity: 'COUNTY',
      scope: { type: 'COUNTRY', value: 'US', state: null, zips: [], name: 'United States' },
      filters: { codes: ['E11'], gender: null, minAge: null, maxAge: null },
      legend: { title: 'Patients', items: [] } as unknown as GenericResult['legend'],
      total: regions.reduce((sum, r) => sum + r.patients, 0),
      hotspotVariable: 'prevalence',
      catalog,
    },
    regions,
  )
}

const options = (census: boolean): ResponseOptions => ({ tier: 'ENTERPRISE', census, points: [] })

describe('GenericBodyWriter', () => {
  const writers: GenericBodyWriter[] = []
  afterEach(async () => {
    for (const writer of writers.splice(0)) await writer.close()
  })

  it('writes large bodies on its thread, the same bytes as the event loop writes', async () => {
    const warnings: string[] = []
    const writer = new GenericBodyWriter((message) => warnings.push(message))
    writers.push(writer)
    const big = syntheticResult(WORKER_MIN_REGIONS + 100, 7)
    const other = syntheticResult(WORKER_MIN_REGIONS + 3, 11)
    // concurrent jobs over two catalogs, with and without census figures
    const jobs = [
      [big, options(false)],
      [other, options(true)],
      [big, options(true)],
    ] as const
    const bodies = await Promise.all(jobs.map(([result, o]) => writer.gzip(result, o)))
    expect(writer.written.worker).toBe(3)
    jobs.forEach(([result, o], i) => {
      expect(bodies[i]!.equals(genericResponseGzip(result, o))).toBe(true)
      expect(gunzipSync(bodies[i]!).equals(genericResponseJson(result, o))).toBe(true)
    })
    // closing is not a failure
    await writer.close()
    expect(warnings).toEqual([])
  })

  it('writes small bodies on the event loop, and every body there once the thread is gone', async () => {
    const writer = new GenericBodyWriter()
    writers.push(writer)
    const small = syntheticResult(WORKER_MIN_REGIONS - 1, 3)
    expect((await writer.gzip(small, options(false))).equals(genericResponseGzip(small, options(false)))).toBe(true)
    expect(writer.written).toEqual({ worker: 0, eventLoop: 1 })
    const big = syntheticResult(WORKER_MIN_REGIONS + 10, 5)
    // a job in flight when the thread ends is written on the event loop
    const inFlight = writer.gzip(big, options(false))
    await writer.close()
    expect((await inFlight).equals(genericResponseGzip(big, options(false)))).toBe(true)
    expect((await writer.gzip(big, options(true))).equals(genericResponseGzip(big, options(true)))).toBe(true)
    expect(writer.written).toEqual({ worker: 0, eventLoop: 3 })
  })

  it('warns once when its thread ends unexpectedly, and writes the job in flight and the next on the event loop', async () => {
    const warnings: string[] = []
    const writer = new GenericBodyWriter((message) => warnings.push(message))
    writers.push(writer)
    const big = syntheticResult(WORKER_MIN_REGIONS + 20, 9)
    const inFlight = writer.gzip(big, options(false))
    // the thread ends without close(): as a crash would end it
    await (writer as unknown as { worker: { terminate: () => Promise<number> } }).worker.terminate()
    expect((await inFlight).equals(genericResponseGzip(big, options(false)))).toBe(true)
    expect((await writer.gzip(big, options(true))).equals(genericResponseGzip(big, options(true)))).toBe(true)
    expect(writer.written).toEqual({ worker: 0, eventLoop: 2 })
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/^Atlas body thread stopped \(exit code \d+\): bodies are written on the event loop$/)
  })

  it('looks up the text of every share the writers write: JSON.stringify(share(part, total)), for every part of totals up to 3,000 and larger', () => {
    SHARE_TEXTS.forEach((text, k) => expect(text).toBe(JSON.stringify(k / 10_000)))
    let mismatches = 0
    for (let total = 0; total <= 3_000; total++)
      for (let part = 0; part <= total; part++) if (shareText(part, total) !== JSON.stringify(share(part, total))) mismatches++
    for (const total of [65_537, 1_234_567, 2_000_000])
      for (let part = 0; part <= total; part += 97) if (shareText(part, total) !== JSON.stringify(share(part, total))) mismatches++
    expect(mismatches).toBe(0)
  })

  it('sends a catalog again after the thread dropped it, and never writes with a catalog it lacks', async () => {
    const warnings: string[] = []
    const writer = new GenericBodyWriter((message) => warnings.push(message))
    writers.push(writer)
    // one more catalog than the thread keeps (new data versions), then the first again
    const results = Array.from({ length: KEPT_CATALOGS + 1 }, (_, i) => syntheticResult(WORKER_MIN_REGIONS + i, 100 + i))
    for (const result of [...results, results[0]!, results[KEPT_CATALOGS]!]) {
      expect((await writer.gzip(result, options(false))).equals(genericResponseGzip(result, options(false)))).toBe(true)
    }
    expect(writer.written).toEqual({ worker: KEPT_CATALOGS + 3, eventLoop: 0 })
    expect(warnings).toEqual([])
  })
})
