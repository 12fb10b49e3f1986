import { CARE_MAX_HCO_RESULTS, CARE_MAX_HCP_RESULTS, CARE_SCORE_WEIGHTS, CARE_TYPICAL_CODES_PER_KIND } from '@citrus/contracts'
import { describe, expect, it } from 'vitest'
import {
  indexFromRows,
  type FacilityPoint,
  type PriceRow,
  type ProviderRow,
  type VolumeRow,
} from '../../engines/care-select/candidate-index.ts'
import { reducedLatitude, spheroidDistance, toRadians } from '../../engines/care-select/geodesic.ts'
import { percentRanksOf, scoreSearch, type ScoreInput, type ScoredSearch } from './score.ts'

/**
 * The column scorer (score.ts) against a plain recount of 0022's method on a generated specialty: every
 * candidate found by its own spheroid distance, every percentile counted directly (the share of the others
 * strictly below), the typical codes by a full sort, the order by a full sort. Many ties on purpose: shared
 * points, few distinct claim counts and prices, clones that differ only by NPI.
 */

function random(seed: number) {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const CENTRE = { lat: 40.65, lng: -73.93 }
const PROCEDURES = ['99213', '99214', '99203', '90471', 'J1100', '99215', '93000']
const DIAGNOSES = ['E11.9', 'E11.65', 'E11', 'I10', 'J45.909', 'Z00.00', 'E78.5', 'M54.5']
const INSURERS = ['Aetna', 'Cigna', 'Humana']
const KINDS = ['individual', 'organization', 'nurse_practitioner']

interface Dataset {
  providers: ProviderRow[]
  volumes: VolumeRow[]
  prices: PriceRow[]
  facilities: Map<number, FacilityPoint>
}

function dataset(seed: number, size: number): Dataset {
  const next = random(seed)
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)] as T
  const providers: ProviderRow[] = []
  const volumes: VolumeRow[] = []
  const prices: PriceRow[] = []
  const points: [number, number][] = []
  for (let k = 0; k < size; k++) {
    const npi = String(1_000_000_000 + Math.floor(next() * 8_999_999_999)).padStart(10, '0')
    // a fifth share a point with an earlier provider; the rest spread over about ±60 km
    const shared = points.length > 0 && next() < 0.2
    const [latitude, longitude] = shared ? pick(points) : [CENTRE.lat + (next() - 0.5) * 1.1, CENTRE.lng + (next() - 0.5) * 1.4]
    points.push([latitude, longitude])
    const networks: Record<string, boolean> = {}
    for (const name of INSURERS) if (next() < 0.7) networks[name] = next() < 0.5
    providers.push({
      npi,
      latitude,
      longitude,
      provider_kind: pick(KINDS),
      facility_id: next() < 0.3 ? null : 1 + Math.floor(next() * 60),
      accepting_new_patients: next() < 0.5,
      networks: next() < 0.1 ? null : networks,
    })
    if (next() < 0.15) continue // no claims, no prices
    for (const code of PROCEDURES) if (next() < 0.5) volumes.push([npi, 'procedure', code, 1 + Math.floor(next() * 4) * 10])
    for (const code of DIAGNOSES) if (next() < 0.4) volumes.push([npi, 'icd10', code, 1 + Math.floor(next() * 3) * 5])
    if (next() < 0.3) volumes.push([npi, 'hcpcs', pick(PROCEDURES), 7])
    for (const code of PROCEDURES) {
      if (next() < 0.35) {
        const list = pick([200, 250, 300])
        prices.push([
          npi,
          code,
          1 + Math.floor(next() * 9),
          list.toFixed(2),
          pick(['120.00', '150.50', '99.99']),
          '80.00',
          pick(['20.00', '35.25', '0.00']),
        ])
      }
    }
  }
  // clones: the same point, claims and prices under another NPI (ties down to the NPI)
  for (let k = 0; k < 12; k++) {
    const source = providers[k] as ProviderRow
    const npi = String(Number(source.npi) + 1).padStart(10, '0')
    if (providers.some((p) => p.npi === npi)) continue
    providers.push({ ...source, npi })
    for (const row of volumes.filter((v) => v[0] === source.npi)) volumes.push([npi, row[1], row[2], row[3]])
    for (const row of prices.filter((v) => v[0] === source.npi)) prices.push([npi, ...row.slice(1)] as PriceRow)
  }
  providers.sort((a, b) => a.latitude - b.latitude || (a.npi < b.npi ? -1 : a.npi > b.npi ? 1 : 0))
  const facilities = new Map<number, FacilityPoint>()
  for (let id = 1; id <= 60; id++) {
    if (id % 17 === 0) continue // a facility without a point
    const lat = CENTRE.lat + (next() - 0.5) * 1.2
    const lng = CENTRE.lng + (next() - 0.5) * 1.5
    const u = reducedLatitude(lat)
    facilities.set(id, {
      lat,
      lng,
      latRad: toRadians(lat),
      lngRad: toRadians(lng),
      cosLat: Math.cos(toRadians(lat)),
      sinU: Math.sin(u),
      cosU: Math.cos(u),
      type: pick(['Hospital', 'Clinic', 'Ambulatory Surgery Center']),
      npi: id % 5 === 0 ? null : String(1_900_000_000 + id),
    })
  }
  return { providers, volumes, prices, facilities }
}

const clamp01 = (value: number) => Math.min(1, Math.max(0, value))
/** 100 × the share of the others strictly below; alone: 100 when above zero. */
const ranks = (values: number[]) =>
  values.length === 1 ? [values[0]! > 0 ? 100 : 0] : values.map((v) => (100 * values.filter((w) => w < v).length) / (values.length - 1))
const affordability = (prices: number[]) =>
  prices.length === 1 ? [100] : prices.map((p) => (100 * prices.filter((q) => q > p).length) / (prices.length - 1))

interface Expected {
  npi: string
  distanceM: number
  distance: number
  quality: number
  cost: number | null
  final: number
  relevantVolume: number
  pricePeersMin: number
  inNetwork: boolean | null
  given: Record<string, number>
  topical: Record<string, number>
  codeRanks: Record<string, number>
  prices: Record<string, { negotiatedAff: number; patientAff: number; negotiated: number }>
}

/** 0022 recounted row by row (objects per candidate, direct counts, full sorts). */
function recount(data: Dataset, input: ScoreInput) {
  const candidates = data.providers
    .map((p) => ({ p, d: spheroidDistance(input.centre.lat, input.centre.lng, p.latitude, p.longitude) }))
    .filter(({ d }) => d <= input.radiusM)
  const volumesOf = (npi: string) => data.volumes.filter((v) => v[0] === npi)
  const sums = new Map<string, number>()
  for (const { p } of candidates)
    for (const [, kind, code, n] of volumesOf(p.npi)) sums.set(`${kind}:${code}`, (sums.get(`${kind}:${code}`) ?? 0) + n)
  const typicalOf = (kind: string) =>
    [...sums.entries()]
      .filter(([key, sum]) => key.startsWith(`${kind}:`) && sum !== 0)
      .map(([key, sum]) => ({ code: key.slice(kind.length + 1), sum }))
      .sort((a, b) => b.sum - a.sum || (a.code < b.code ? -1 : 1))
      .slice(0, CARE_TYPICAL_CODES_PER_KIND)
      .map((e) => e.code)
  const typical = { procedure: typicalOf('procedure'), icd10: typicalOf('icd10') }
  const given = input.cpt.length + input.icd10.length > 0
  const givenCodes = [...input.cpt.map((c) => ['procedure', c]), ...input.icd10.map((c) => ['icd10', c])] as [string, string][]
  const topicalCodes = [...typical.procedure.map((c) => ['procedure', c]), ...typical.icd10.map((c) => ['icd10', c])] as [string, string][]
  const relevantCodes = given ? givenCodes : topicalCodes
  const countOf = (npi: string, kind: string, code: string, prefix: boolean) =>
    volumesOf(npi)
      .filter((v) => v[1] === kind && (prefix ? v[2].startsWith(code) : v[2] === code))
      .reduce((sum, v) => sum + v[3], 0)
  const relevantCounts = relevantCodes.map(([kind, code]) => candidates.map(({ p }) => countOf(p.npi, kind, code, given)))
  const volume = candidates.map((_, c) => relevantCounts.reduce((sum, counts) => sum + counts[c]!, 0))
  const volumeRanks = ranks(volume)
  const priceCodes = input.cpt.length > 0 ? [...input.cpt] : typical.procedure
  const priced = priceCodes.map((code, k) => {
    if (priceCodes.indexOf(code) !== k)
      return new Map<string, { negotiatedAff: number; patientAff: number; negotiated: number; peers: number }>()
    const rows = candidates.flatMap(({ p }) => data.prices.filter((r) => r[0] === p.npi && r[1] === code))
    const n = affordability(rows.map((r) => Number(r[4])))
    const pa = affordability(rows.map((r) => Number(r[6])))
    return new Map(rows.map((r, j) => [r[0], { negotiatedAff: n[j]!, patientAff: pa[j]!, negotiated: Number(r[4]), peers: rows.length }]))
  })
  const networks = (p: ProviderRow) => input.insurers.some((name) => p.networks?.[name] === true)
  const expected: Expected[] = candidates.map(({ p, d }, c) => {
    let costSum = 0
    let parts = 0
    let peers = 0
    const prices: Expected['prices'] = {}
    priced.forEach((map, k) => {
      const entry = map.get(p.npi)
      if (!entry) return
      costSum += (entry.negotiatedAff + entry.patientAff) / 200
      parts++
      peers = peers === 0 ? entry.peers : Math.min(peers, entry.peers)
      prices[priceCodes[k]!] = entry
    })
    const cost = parts > 0 ? clamp01(costSum / parts) : null
    const quality = volume[c]! > 0 ? clamp01(volumeRanks[c]! / 100) : 0
    const distance = clamp01(1 - d / input.radiusM)
    const codeRanks: Record<string, number> = {}
    relevantCodes.forEach(([kind, code], k) => {
      if (relevantCounts[k]![c]! > 0) codeRanks[`${kind}:${code}`] = ranks(relevantCounts[k]!)[c]!
    })
    return {
      npi: p.npi,
      distanceM: d,
      distance,
      quality,
      cost,
      final: clamp01(
        CARE_SCORE_WEIGHTS.quality_of_care * quality + CARE_SCORE_WEIGHTS.cost * (cost ?? 0.5) + CARE_SCORE_WEIGHTS.distance * distance,
      ),
      relevantVolume: volume[c]!,
      pricePeersMin: peers,
      inNetwork: input.insurers.length > 0 ? networks(p) : null,
      given: Object.fromEntries(givenCodes.map(([kind, code]) => [`${kind}:${code}`, countOf(p.npi, kind, code, true)])),
      topical: Object.fromEntries(topicalCodes.map(([kind, code]) => [`${kind}:${code}`, countOf(p.npi, kind, code, false)])),
      codeRanks,
      prices,
    }
  })
  const order = [...expected]
    .filter((e) => input.filterNpis.length === 0 || input.filterNpis.includes(e.npi))
    .sort(
      (a, b) =>
        Number(b.inNetwork ?? 0) - Number(a.inNetwork ?? 0) || b.final - a.final || a.distanceM - b.distanceM || (a.npi < b.npi ? -1 : 1),
    )
    .slice(0, CARE_MAX_HCP_RESULTS)
    .map((e) => e.npi)
  // facilities within the radius, from their candidates
  const facilityIds = [...new Set(candidates.flatMap(({ p }) => (p.facility_id === null ? [] : [p.facility_id])))]
  const facilities = facilityIds.flatMap((id) => {
    const point = data.facilities.get(id)
    if (!point) return []
    const d = spheroidDistance(input.centre.lat, input.centre.lng, point.lat, point.lng)
    if (d > input.radiusM) return []
    const own = expected.filter((_, c) => candidates[c]!.p.facility_id === id)
    const quality = own.reduce((sum, e) => sum + e.quality, 0) / own.length
    const priced = own.filter((e) => e.cost !== null)
    const cost = priced.length > 0 ? priced.reduce((sum, e) => sum + e.cost!, 0) / priced.length : null
    const distance = clamp01(1 - d / input.radiusM)
    const final = clamp01(
      CARE_SCORE_WEIGHTS.quality_of_care * quality + CARE_SCORE_WEIGHTS.cost * (cost ?? 0.5) + CARE_SCORE_WEIGHTS.distance * distance,
    )
    return [{ id, npi: point.npi, distanceM: d, quality, cost, distance, final, samples: own.length, type: point.type }]
  })
  const facilityTypes = facilities.map((f) => f.type)
  const rankedFacilities = [...facilities]
    .sort((a, b) => b.final - a.final || a.distanceM - b.distanceM || a.id - b.id)
    .map(({ type: _type, ...f }) => f)
  return {
    expected,
    typical,
    order,
    facilities: rankedFacilities
      .filter((f) => {
        const npi = data.facilities.get(f.id)!.npi
        return input.filterNpis.length === 0 || (npi !== null && input.filterNpis.includes(npi))
      })
      .slice(0, CARE_MAX_HCO_RESULTS),
    facilityTypes,
    kinds: candidates.map(({ p }) => p.provider_kind),
  }
}

/** The scorer's columns as the same per-candidate rows. */
function rowsOf(scored: ScoredSearch): Expected[] {
  const { index, members } = scored.candidates
  return Array.from(members, (i, c) => {
    const npi = index.npi[i]!
    const codeRanks: Record<string, number> = {}
    scored.relevantCols.forEach((col, k) => {
      if (col.counts[c]! > 0) codeRanks[`${col.kind}:${col.code}`] = scored.codeRanks[k]![c]!
    })
    const prices: Expected['prices'] = {}
    for (const column of scored.prices) {
      const entry = column.entryOf[c]!
      if (entry < 0) continue
      const negotiated = index.priceNegotiated[column.row[entry]!]!
      prices[column.code] = { negotiatedAff: column.negotiatedAff[entry]!, patientAff: column.patientAff[entry]!, negotiated }
    }
    return {
      npi,
      distanceM: scored.distanceM[c]!,
      distance: scored.distance[c]!,
      quality: scored.quality[c]!,
      cost: Number.isNaN(scored.cost[c]!) ? null : scored.cost[c]!,
      final: scored.final[c]!,
      relevantVolume: scored.relevantVolume[c]!,
      pricePeersMin: scored.pricePeersMin[c]!,
      inNetwork: scored.inNetwork ? scored.inNetwork[c] === 1 : null,
      given: Object.fromEntries(scored.givenCols.map((col) => [`${col.kind}:${col.code}`, col.counts[c]!])),
      topical: Object.fromEntries(scored.topicalCols.map((col) => [`${col.kind}:${col.code}`, col.counts[c]!])),
      codeRanks,
      prices,
    }
  })
}

describe('scoreSearch (every candidate, in columns) against a plain recount of 0022', () => {
  const data = dataset(20261126, 1_400)
  const index = indexFromRows('207Q00000X', data.providers, data.volumes, data.prices)
  const someNpis = [
    ...data.providers.filter((_, k) => k % 9 === 0).map((p) => p.npi),
    ...[...data.facilities.values()].filter((_, k) => k % 3 === 0).flatMap((f) => (f.npi ? [f.npi] : [])),
  ]
  const searches: [string, ScoreInput][] = [
    ['typical codes', { centre: CENTRE, radiusM: 40_000, cpt: [], icd10: [], insurers: [], filterNpis: [] }],
    [
      'given codes (a category matches its sub-codes) and a carrier',
      { centre: CENTRE, radiusM: 48_280, cpt: ['99213', '90471'], icd10: ['E11', 'I10'], insurers: ['Cigna'], filterNpis: [] },
    ],
    [
      'a repeated code and two carriers',
      { centre: CENTRE, radiusM: 25_000, cpt: ['99214', '99214'], icd10: [], insurers: ['Aetna', 'Humana'], filterNpis: [] },
    ],
    ['filter_npis', { centre: CENTRE, radiusM: 48_280, cpt: [], icd10: ['E11.9'], insurers: [], filterNpis: someNpis }],
    ['a small radius', { centre: { lat: 40.8, lng: -73.7 }, radiusM: 3_000, cpt: [], icd10: [], insurers: ['Aetna'], filterNpis: [] }],
    ['no candidate', { centre: { lat: 35, lng: -100 }, radiusM: 10_000, cpt: ['99213'], icd10: [], insurers: [], filterNpis: [] }],
  ]

  it.each(searches)('%s: the same numbers for every candidate, the same order and facilities', { timeout: 120_000 }, (_name, input) => {
    const scored = scoreSearch(index, data.facilities, input)
    const want = recount(data, input)
    const got = rowsOf(scored)
    expect(got.length).toBe(want.expected.length)
    const wanted = new Map(want.expected.map((e) => [e.npi, e]))
    for (const row of got) {
      const e = wanted.get(row.npi)!
      const { prices: gotPrices, ...gotRest } = row
      const { prices: wantPrices, ...wantRest } = e
      expect(gotRest).toEqual(wantRest)
      expect(Object.keys(gotPrices)).toEqual(Object.keys(wantPrices))
      for (const code of Object.keys(wantPrices)) {
        expect(gotPrices[code]!.negotiatedAff).toBe(wantPrices[code]!.negotiatedAff)
        expect(gotPrices[code]!.patientAff).toBe(wantPrices[code]!.patientAff)
        expect(gotPrices[code]!.negotiated).toBe(wantPrices[code]!.negotiated)
      }
    }
    expect(scored.typical).toEqual(want.typical)
    expect(Array.from(scored.listed, (c) => index.npi[scored.candidates.members[c]!])).toEqual(want.order)
    expect(scored.facilities).toEqual(want.facilities)
    expect(scored.facilityTypes).toEqual(want.facilityTypes)
    expect(scored.totalFacilities).toBe(want.facilityTypes.length)
    const kinds: Record<string, number> = {}
    for (const kind of want.kinds) kinds[kind] = (kinds[kind] ?? 0) + 1
    expect(Object.fromEntries(scored.providerTypeCounts.map((k) => [k.kind, k.count]))).toEqual(kinds)
  })

  it('the dataset has the ties the comparison is about', () => {
    const input = searches[0]![1]
    const scored = scoreSearch(index, data.facilities, input)
    const finals = Array.from(scored.final)
    expect(scored.n).toBeGreaterThan(CARE_MAX_HCP_RESULTS)
    expect(new Set(finals).size).toBeLessThan(finals.length) // equal final scores
    const pairs = new Set(finals.map((f, c) => `${f}:${scored.distanceM[c]}`))
    expect(pairs.size).toBeLessThan(finals.length) // equal final and distance: the NPI decides
  })
})

describe('percentRanksOf', () => {
  it('is the share of the others strictly below, zeros and negatives included', () => {
    const next = random(7)
    for (const size of [1, 2, 3, 10, 257]) {
      for (const spread of [
        [0, 1, 2, 3],
        [0, 0, 0, 5],
        [-2, -1, 0, 1],
        [-3.5, -1.25],
        // integers: a histogram when the largest is small against their number, else a radix order
        [0, 3, 3, 7, 900],
        [0, 1, 5000, 70_000, 2 ** 31],
      ]) {
        const values = Array.from({ length: size }, () => spread[Math.floor(next() * spread.length)]!)
        expect(Array.from(percentRanksOf(Float64Array.from(values)))).toEqual(ranks(values))
      }
    }
  })
})

describe("a carrier's payer-file rates (docs/decisions/0081)", () => {
  // five clinicians at one point; claims prices of 99213 for all; Acme's payer-file rates of 99213 for three of them
  const provider = (k: number): ProviderRow => ({
    npi: `100000000${k}`,
    latitude: CENTRE.lat,
    longitude: CENTRE.lng,
    provider_kind: 'individual',
    facility_id: null,
    accepting_new_patients: true,
    networks: { Acme: true },
  })
  const providers = [0, 1, 2, 3, 4].map(provider)
  const volumes: VolumeRow[] = providers.map((p) => [p.npi, 'procedure', '99213', 10])
  // claims: cheapest first (0 the cheapest)
  const prices: PriceRow[] = providers.map((p, k) => [p.npi, '99213', 10, 100 + k, 60 + k, 40 + k, 20 + k])
  type Rows = Parameters<typeof indexFromRows>[4]
  const rate = (code: string, payer: string, plan: string, amount: number, type = 'negotiated'): NonNullable<Rows>[number][1][number] => [
    code,
    payer,
    plan,
    null,
    null,
    amount,
    null,
    null,
    null,
    `payer file: ${type}`,
  ]
  const payerRates: NonNullable<Rows> = [
    // two plan rows: their mean (listedNegotiatedRate), to the cent
    [providers[2]!.npi, [rate('99213', 'Acme', 'Gold', 50), rate('99213', 'Acme', 'Silver', 70.015)]],
    [providers[3]!.npi, [rate('99213', 'ACME', '', 90), rate('99213', 'Other', '', 10)]],
    [providers[4]!.npi, [rate('99213', 'Acme', '', 90), rate('99214', 'Acme', '', 5)]],
  ]
  const index = indexFromRows('207Q00000X', providers, volumes, prices, payerRates)
  const input = (insurers: string[]): ScoreInput => ({
    centre: CENTRE,
    radiusM: 10_000,
    cpt: ['99213'],
    icd10: [],
    insurers,
    filterNpis: [],
  })
  const column = (scored: ScoredSearch) => {
    const col = scored.prices[0]!
    const byNpi = new Map<string, { rate: number; aff: number; cost: number }>()
    for (let c = 0; c < scored.n; c++) {
      const e = col.entryOf[c]!
      if (e < 0) continue
      const npi = index.npi[scored.candidates.members[c]!]!
      byNpi.set(npi, { rate: col.rate[e]!, aff: col.negotiatedAff[e]!, cost: scored.cost[c]! })
    }
    return { source: col.source, byNpi }
  }

  it('holds each clinician’s rate per code and payer as the pricing module computes it', () => {
    expect(index.payers).toEqual(['acme', 'other'])
    const at = (k: number) => {
      const i = index.npi.indexOf(providers[k]!.npi)
      const out: Record<string, number> = {}
      for (let r = index.payerRateStart[i]!; r < index.payerRateStart[i + 1]!; r++)
        out[`${index.priceCodes[index.payerRateCode[r]!]}|${index.payers[index.payerRatePayer[r]!]}`] = index.payerRate[r]!
      return out
    }
    expect(at(0)).toEqual({})
    expect(at(2)).toEqual({ '99213|acme': 60.01 })
    expect(at(3)).toEqual({ '99213|acme': 90, '99213|other': 10 })
    // a code only a payer file prices joins the index's price codes
    expect(at(4)).toEqual({ '99213|acme': 90, '99214|acme': 5 })
  })

  it("ranks a code by the one carrier's rates alone when any candidate has one", () => {
    const scored = scoreSearch(index, new Map(), input(['Acme']))
    const { source, byNpi } = column(scored)
    expect(source).toBe('payer_file')
    // 60.01 is below both 90s; the 90s tie (none of the others strictly above them)
    expect(Object.fromEntries(byNpi)).toEqual({
      [providers[2]!.npi]: { rate: 60.01, aff: 100, cost: 1 },
      [providers[3]!.npi]: { rate: 90, aff: 0, cost: 0 },
      [providers[4]!.npi]: { rate: 90, aff: 0, cost: 0 },
    })
    // candidates without a rate of the code have no price for it (not ranked against contract rates)
    expect(scored.cost.filter((c) => Number.isNaN(c)).length).toBe(2)
  })

  it("keeps the claims' prices without a carrier, with several, or without that carrier's rates", () => {
    const claims = column(scoreSearch(index, new Map(), input([])))
    expect(claims.source).toBe('claims')
    expect(claims.byNpi.size).toBe(5)
    expect(column(scoreSearch(index, new Map(), input(['Acme', 'Other']))).source).toBe('claims')
    expect(column(scoreSearch(index, new Map(), input(['Nobody']))).source).toBe('claims')
    // the carrier's rates of another code do not touch 99213's claims prices
    const other = scoreSearch(index, new Map(), { ...input(['Acme']), cpt: ['99214'] })
    expect(column(other).source).toBe('payer_file')
    expect([...column(other).byNpi.keys()]).toEqual([providers[4]!.npi])
  })
})
