import { CARE_MAX_HCO_RESULTS, CARE_MAX_HCP_RESULTS, CARE_SCORE_WEIGHTS, CARE_TYPICAL_CODES_PER_KIND } from '@citrus/contracts'
import {
  exactDistance,
  facilityDistanceWithin,
  findCandidates,
  inNetworkWithAny,
  type Candidates,
  type Centre,
  type FacilityPoint,
  type SpecialtyIndex,
} from '../../engines/care-select/candidate-index.js'
import { ascendingOrder, ascendingOrderU32 } from '../../engines/care-select/order.js'

/**
 * The scoring of a Care Select search over every candidate (docs/decisions/0022, 0050, 0058): pure, from the
 * specialty's candidate index and the facilities' points. Every per-candidate number is a column (typed
 * array) indexed by candidate position; nothing is allocated per candidate, and only the listed rows become
 * objects (in rankings.ts). The numbers are those of 0050's scorer to the last bit: the same sums in the same
 * order, the same percentile definition (the share of the others strictly below), the same total order.
 */

export type Kind = 'procedure' | 'icd10'
const KINDS: readonly Kind[] = ['procedure', 'icd10']

export interface ScoreInput {
  centre: Centre
  radiusM: number
  cpt: readonly string[]
  icd10: readonly string[]
  insurers: readonly string[]
  filterNpis: readonly string[]
}

export interface CountColumn {
  kind: Kind
  code: string
  counts: Float64Array
}

/**
 * One procedure's prices among the candidates priced for it: from the claims (mv_provider_prices rows, all payers), or,
 * when the search names one carrier and any candidate has that carrier's rate of the code in its payer files, from
 * those rates alone (docs/decisions/0081; a code's prices never mix the two).
 */
export interface PriceColumn {
  code: string
  source: 'claims' | 'payer_file'
  /** per candidate: its entry (position in the arrays below), -1 without a price */
  entryOf: Int32Array
  /** per entry: the price row in the index (claims; empty for payer_file), the affordability percentiles */
  row: Int32Array
  /** per entry: the carrier's negotiated dollar rate (payer_file; empty for claims) */
  rate: Float64Array
  negotiatedAff: Float64Array
  /** empty for payer_file: the patient's share under the carrier's plan is not a price the files give */
  patientAff: Float64Array
}

export interface FacilityScore {
  id: number
  npi: string | null
  distanceM: number
  quality: number
  cost: number | null
  distance: number
  final: number
  samples: number
}

export interface ScoredSearch {
  candidates: Candidates
  n: number
  inNetwork: Uint8Array | null
  distanceM: Float64Array
  distance: Float64Array
  quality: Float64Array
  /** NaN: no price */
  cost: Float64Array
  final: Float64Array
  relevantVolume: Float64Array
  pricePeersMin: Int32Array
  codesSource: 'given' | 'typical'
  typical: Record<Kind, string[]>
  relevant: Record<Kind, string[]>
  priceCodes: string[]
  givenCols: CountColumn[]
  topicalCols: CountColumn[]
  relevantCols: CountColumn[]
  /** per relevant column: the candidates' percentile ranks */
  codeRanks: Float64Array[]
  prices: PriceColumn[]
  /** the listed clinicians (candidate positions, in order; filter_npis applied before the cut) */
  listed: Int32Array
  /** the facilities listed, in order: the first CARE_MAX_HCO_RESULTS (with filter_npis, of those whose NPI is given) */
  facilities: FacilityScore[]
  /** every facility within the radius, in order (filter_npis narrows from these) */
  rankedFacilities: FacilityScore[]
  providerTypeCounts: { kind: string; count: number }[]
  /** facility types of the facilities within the radius, in the order first met */
  facilityTypes: string[]
  totalFacilities: number
}

const clamp01 = (value: number) => Math.min(1, Math.max(0, value))

function lowerBound(sorted: Float64Array, value: number): number {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if ((sorted[mid] as number) < value) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** Scratch space of the rank histograms (the process is single-threaded and the ranking synchronous). */
let smallerScratch = new Uint32Array(0)

/** Whether ranks of `count` integer keys up to `max` are cheaper by a histogram of the values than by an order. */
const histogramFits = (max: number, count: number) => max <= 4 * count + 1024

/** A histogram of the values 0..max, zeroed (the scratch space). */
function zeroedHistogram(max: number): Uint32Array {
  if (smallerScratch.length <= max) smallerScratch = new Uint32Array(Math.max(max + 1, 2 * smallerScratch.length))
  smallerScratch.fill(0, 0, max + 1)
  return smallerScratch
}

/** Turns the counts of a histogram into, per value, the number of keys strictly below it. */
function countsToSmaller(histogram: Uint32Array, max: number): void {
  let sum = 0
  for (let v = 0; v <= max; v++) {
    const count = histogram[v] as number
    histogram[v] = sum
    sum += count
  }
}

/**
 * ranksInto for non-negative integers (claim counts, the index's price ranks). When the largest key is small against
 * their number (claim counts mostly are), a histogram gives each key the number of keys strictly below it, without
 * ordering them: two passes over the keys and one over the values up to the largest. Otherwise a radix order, then a
 * walk as in ranksInto. Both give every key the same rank.
 */
function ranksIntoU32(out: Float64Array, keys: Uint32Array, positions: Uint32Array | null, below: number, scale: number): void {
  const m = keys.length
  let max = 0
  for (let j = 0; j < m; j++) if ((keys[j] as number) > max) max = keys[j] as number
  if (histogramFits(max, m)) {
    const smaller = zeroedHistogram(max)
    for (let j = 0; j < m; j++) smaller[keys[j] as number] = (smaller[keys[j] as number] as number) + 1
    countsToSmaller(smaller, max)
    for (let j = 0; j < m; j++) {
      out[positions ? (positions[j] as number) : j] = (100 * (below + (smaller[keys[j] as number] as number))) / scale
    }
    return
  }
  const order = ascendingOrderU32(keys)
  let start = 0
  let previous = -1
  for (let p = 0; p < order.length; p++) {
    const k = order[p] as number
    const v = keys[k] as number
    if (v !== previous) {
      start = p
      previous = v
    }
    out[positions ? (positions[k] as number) : k] = (100 * (below + start)) / scale
  }
}

/**
 * Writes into `out` at `positions` the percentile ranks of `values` (100 × (`below` + the number of values
 * strictly smaller) / `scale`): one radix order, then one walk that gives every run of equal values the position
 * where it starts.
 */
function ranksInto(out: Float64Array, values: Float64Array, positions: Uint32Array | null, below: number, scale: number): void {
  const order = ascendingOrder(values)
  let start = 0
  let previous = Number.NaN
  for (let p = 0; p < order.length; p++) {
    const k = order[p] as number
    const v = values[k] as number
    if (v !== previous) {
      start = p
      previous = v
    }
    out[positions ? (positions[k] as number) : k] = (100 * (below + start)) / scale
  }
}

/**
 * Percentile rank (0-100) of each value: 100 × the share of the others strictly below it (ties share the lowest
 * rank); one value alone: 100 when above zero, else 0. Columns of counts are mostly zeros: when no value is
 * negative, only the positive ones are ordered (a zero has none below it; a positive value has every zero and
 * the smaller positives below it).
 */
export function percentRanksOf(values: Float64Array): Float64Array {
  const n = values.length
  const out = new Float64Array(n)
  if (n === 0) return out
  if (n === 1) {
    out[0] = (values[0] as number) > 0 ? 100 : 0
    return out
  }
  let zeros = 0
  let positives = 0
  let nan = false
  let integers = true
  let max = 0
  for (let k = 0; k < n; k++) {
    const v = values[k] as number
    if (v > 0) {
      positives++
      if (v > max) max = v
    } else if (v === 0) zeros++
    else if (v !== v) nan = true
    if (v !== v >>> 0) integers = false
  }
  const scale = n - 1
  if (nan) {
    // not met by counts or prices; kept exact all the same (the sort and binary search of 0050)
    const sorted = Float64Array.from(values).sort()
    for (let k = 0; k < n; k++) out[k] = (100 * lowerBound(sorted, values[k] as number)) / scale
    return out
  }
  if (zeros + positives === n) {
    if (positives === 0) return out
    if (integers && histogramFits(max, positives)) {
      // counts: a histogram of the positive values, read in place (ranksIntoU32's histogram, without copying them out)
      const smaller = zeroedHistogram(max)
      for (let k = 0; k < n; k++) {
        const v = values[k] as number
        if (v > 0) smaller[v] = (smaller[v] as number) + 1
      }
      countsToSmaller(smaller, max)
      for (let k = 0; k < n; k++) {
        const v = values[k] as number
        if (v > 0) out[k] = (100 * (zeros + (smaller[v] as number))) / scale
      }
      return out
    }
    const positions = new Uint32Array(positives)
    let at = 0
    for (let k = 0; k < n; k++) if ((values[k] as number) > 0) positions[at++] = k
    if (integers) {
      // counts: integers below 2^32 (their own radix keys)
      const keys = new Uint32Array(positives)
      for (let j = 0; j < positives; j++) keys[j] = values[positions[j] as number] as number
      ranksIntoU32(out, keys, positions, zeros, scale)
    } else {
      const positive = new Float64Array(positives)
      for (let j = 0; j < positives; j++) positive[j] = values[positions[j] as number] as number
      ranksInto(out, positive, positions, zeros, scale)
    }
    return out
  }
  ranksInto(out, values, null, 0, scale)
  return out
}

/**
 * Affordability percentiles (0-100) of prices: the share of the other prices strictly above (a price alone: 100),
 * from the prices' ranks in the index (0 for the dearest of the specialty's prices of the procedure, equal prices
 * equal ranks): a price is above another exactly when its rank is below.
 */
function affordabilityOf(ranks: Uint32Array): Float64Array {
  const m = ranks.length
  const out = new Float64Array(m)
  if (m === 1) out[0] = 100
  else if (m > 1) ranksIntoU32(out, ranks, null, 0, m - 1)
  return out
}

/**
 * The typical codes of the candidates: per kind, the CARE_TYPICAL_CODES_PER_KIND codes with the most claims over
 * them (ties by code).
 */
function typicalCodesOf(index: SpecialtyIndex, members: Int32Array): Record<Kind, string[]> {
  const sums = new Float64Array(index.codes.length)
  const { volumeStart, volumeCode, volumeCount } = index
  for (let k = 0; k < members.length; k++) {
    const i = members[k] as number
    const end = volumeStart[i + 1] as number
    for (let r = volumeStart[i] as number; r < end; r++) {
      const id = volumeCode[r] as number
      sums[id] = (sums[id] as number) + (volumeCount[r] as number)
    }
  }
  const out: Record<Kind, string[]> = { procedure: [], icd10: [] }
  KINDS.forEach((kind, kindId) => {
    // the best codes so far, best first (a short insertion list: most codes fall below its last)
    const best: number[] = []
    const before = (a: number, b: number) => {
      const d = (sums[b] as number) - (sums[a] as number)
      if (d !== 0) return d < 0
      const ca = index.codeValue[a] as string
      const cb = index.codeValue[b] as string
      return ca < cb
    }
    for (let id = 0; id < sums.length; id++) {
      if (sums[id] === 0 || index.codeKind[id] !== kindId) continue
      if (best.length === CARE_TYPICAL_CODES_PER_KIND && !before(id, best[best.length - 1] as number)) continue
      let at = best.length
      while (at > 0 && before(id, best[at - 1] as number)) at--
      best.splice(at, 0, id)
      if (best.length > CARE_TYPICAL_CODES_PER_KIND) best.pop()
    }
    out[kind] = best.map((id) => index.codeValue[id] as string)
  })
  return out
}

/** Code ids whose `kind:code` key starts with the prefix (one run of the sorted keys). */
function codeIdsWithPrefix(index: SpecialtyIndex, prefix: string): number[] {
  const sorted = index.codesSorted
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if ((index.codes[sorted[mid] as number] as string) < prefix) lo = mid + 1
    else hi = mid
  }
  const ids: number[] = []
  for (let k = lo; k < sorted.length; k++) {
    const id = sorted[k] as number
    if (!(index.codes[id] as string).startsWith(prefix)) break
    ids.push(id)
  }
  return ids
}

/** Scores every candidate of the search (0022): the columns, the order of the listed, the facilities. */
export function scoreSearch(index: SpecialtyIndex, facilityIndex: Map<number, FacilityPoint>, input: ScoreInput): ScoredSearch {
  return narrowScored(scoreAll(index, facilityIndex, input), input.filterNpis)
}

/**
 * The listed clinicians and facilities of a scored search narrowed to filter_npis (before the cut). The scores
 * stay those of the full search: only the selection of what is listed depends on filter_npis, so the scoring
 * (scoreAll) is the same for every filter and can be cached without it (docs/decisions/0060). The answer
 * shares the scored search's columns; neither is changed.
 */
export function narrowScored(scored: ScoredSearch, filterNpis: readonly string[]): ScoredSearch {
  if (filterNpis.length === 0) return scored
  const filter = new Set(filterNpis)
  return {
    ...scored,
    listed: listedOf(scored, filter),
    facilities: scored.rankedFacilities.filter((f) => f.npi !== null && filter.has(f.npi)).slice(0, CARE_MAX_HCO_RESULTS),
  }
}

/**
 * The first CARE_MAX_HCP_RESULTS candidates (of those whose NPI is in `filter`, when given), in order: in network
 * first (when carriers are given), then final_score, then distance, then NPI. A total order, so they are kept with
 * a bounded heap (its root the last kept) and sorted at the end.
 */
function listedOf(
  scored: Pick<ScoredSearch, 'candidates' | 'n' | 'inNetwork' | 'final' | 'distanceM'>,
  filter: Set<string> | null,
): Int32Array {
  const { candidates, n, inNetwork, final, distanceM } = scored
  const members = candidates.members
  const npi = candidates.index.npi
  const after = (a: number, b: number): boolean => {
    if (inNetwork) {
      const net = (inNetwork[b] as number) - (inNetwork[a] as number)
      if (net !== 0) return net > 0
    }
    const f = (final[b] as number) - (final[a] as number)
    if (f !== 0) return f > 0
    const d = (distanceM[a] as number) - (distanceM[b] as number)
    if (d !== 0) return d > 0
    return (npi[members[a] as number] as string) > (npi[members[b] as number] as string)
  }
  const heap: number[] = []
  const siftDown = (from: number) => {
    let at = from
    for (;;) {
      const left = 2 * at + 1
      if (left >= heap.length) return
      const right = left + 1
      const worst = right < heap.length && after(heap[right] as number, heap[left] as number) ? right : left
      if (!after(heap[worst] as number, heap[at] as number)) return
      const t = heap[at] as number
      heap[at] = heap[worst] as number
      heap[worst] = t
      at = worst
    }
  }
  for (let c = 0; c < n; c++) {
    if (filter && !filter.has(npi[members[c] as number] as string)) continue
    if (heap.length < CARE_MAX_HCP_RESULTS) {
      heap.push(c)
      let at = heap.length - 1
      while (at > 0) {
        const parent = (at - 1) >> 1
        if (!after(heap[at] as number, heap[parent] as number)) break
        const t = heap[at] as number
        heap[at] = heap[parent] as number
        heap[parent] = t
        at = parent
      }
    } else if (after(heap[0] as number, c)) {
      heap[0] = c
      siftDown(0)
    }
  }
  return Int32Array.from(heap.sort((a, b) => (after(a, b) ? 1 : after(b, a) ? -1 : 0)))
}

/** Scores every candidate of the search without filter_npis (the part of a search that the cache keeps). */
export function scoreAll(
  index: SpecialtyIndex,
  facilityIndex: Map<number, FacilityPoint>,
  input: Omit<ScoreInput, 'filterNpis'>,
): ScoredSearch {
  const candidates = findCandidates(index, input.centre, input.radiusM)
  const { members, centre } = candidates
  const n = members.length
  const radiusM = input.radiusM
  const inNetwork = input.insurers.length > 0 ? inNetworkWithAny(candidates, input.insurers) : null

  const distanceM = new Float64Array(n)
  const distance = new Float64Array(n)
  for (let c = 0; c < n; c++) {
    const d = exactDistance(candidates, c)
    distanceM[c] = d
    distance[c] = clamp01(1 - d / radiusM)
  }

  // Volumes: the typical codes of the candidates, the given codes' counts (a code matches its sub-codes:
  // prefix-matched sums), the typical codes' counts.
  const codesSource: 'given' | 'typical' = input.cpt.length + input.icd10.length > 0 ? 'given' : 'typical'
  const typical = typicalCodesOf(index, members)
  const relevant: Record<Kind, string[]> =
    codesSource === 'given'
      ? { procedure: [...input.cpt], icd10: [...input.icd10] }
      : { procedure: [...typical.procedure], icd10: [...typical.icd10] }
  const priceCodes = input.cpt.length > 0 ? [...input.cpt] : [...typical.procedure]
  const givenCols: CountColumn[] = [
    ...input.cpt.map((code) => ({ kind: 'procedure' as Kind, code, counts: new Float64Array(n) })),
    ...input.icd10.map((code) => ({ kind: 'icd10' as Kind, code, counts: new Float64Array(n) })),
  ]
  const topicalCols: CountColumn[] = [
    ...typical.procedure.map((code) => ({ kind: 'procedure' as Kind, code, counts: new Float64Array(n) })),
    ...typical.icd10.map((code) => ({ kind: 'icd10' as Kind, code, counts: new Float64Array(n) })),
  ]
  // per code id: the topical column it fills (exact code), the given columns it adds to (prefix match)
  const codeCount = index.codes.length
  const topicalSlot = new Int32Array(codeCount).fill(-1)
  topicalCols.forEach((col, k) => {
    const id = index.codeId.get(`${col.kind}:${col.code}`)
    if (id !== undefined) topicalSlot[id] = k
  })
  const givenSlot = new Int32Array(codeCount).fill(-1)
  const givenLists: Float64Array[][] = []
  givenCols.forEach((col) => {
    for (const id of codeIdsWithPrefix(index, `${col.kind}:${col.code}`)) {
      let slot = givenSlot[id] as number
      if (slot < 0) {
        slot = givenLists.length
        givenSlot[id] = slot
        givenLists.push([])
      }
      ;(givenLists[slot] as Float64Array[]).push(col.counts)
    }
  })
  if (topicalCols.length + givenLists.length > 0) {
    const { volumeStart, volumeCode, volumeCount } = index
    for (let c = 0; c < n; c++) {
      const i = members[c] as number
      const end = volumeStart[i + 1] as number
      for (let r = volumeStart[i] as number; r < end; r++) {
        const id = volumeCode[r] as number
        const t = topicalSlot[id] as number
        const g = givenSlot[id] as number
        if (t < 0 && g < 0) continue
        const count = volumeCount[r] as number
        if (t >= 0) (topicalCols[t] as CountColumn).counts[c] = count
        if (g >= 0) for (const col of givenLists[g] as Float64Array[]) col[c] = (col[c] as number) + count
      }
    }
  }
  const relevantCols = codesSource === 'given' ? givenCols : topicalCols

  // Per-code volume percentiles among the candidates (zero for those without the code), and the quality volume.
  const relevantVolume = new Float64Array(n)
  const codeRanks = relevantCols.map((col) => {
    const counts = col.counts
    for (let c = 0; c < n; c++) relevantVolume[c] = (relevantVolume[c] as number) + (counts[c] as number)
    return percentRanksOf(counts)
  })
  const qualityRanks = percentRanksOf(relevantVolume)
  const quality = new Float64Array(n)
  for (let c = 0; c < n; c++) quality[c] = (relevantVolume[c] as number) > 0 ? clamp01((qualityRanks[c] as number) / 100) : 0

  // Prices and affordability per procedure among the candidates that billed it.
  const priceSlot = new Int32Array(index.priceCodes.length).fill(-1)
  priceCodes.forEach((code, k) => {
    const id = index.priceCodeId.get(code)
    if (id !== undefined && (priceSlot[id] as number) < 0) priceSlot[id] = k
  })
  const { priceStart, priceCode, priceNegotiatedRank, pricePatientRank } = index
  // one pass counts each procedure's entries, a second files them (candidate order, as the rows come)
  const entries = new Int32Array(priceCodes.length + 1)
  for (let c = 0; c < n; c++) {
    const i = members[c] as number
    const end = priceStart[i + 1] as number
    for (let r = priceStart[i] as number; r < end; r++) {
      const k = priceSlot[priceCode[r] as number] as number
      if (k >= 0) entries[k + 1] = (entries[k + 1] as number) + 1
    }
  }
  for (let k = 0; k < priceCodes.length; k++) entries[k + 1] = (entries[k + 1] as number) + (entries[k] as number)
  const total = entries[priceCodes.length] as number
  const entryRow = new Int32Array(total)
  const entryOwner = new Int32Array(total)
  const fill = entries.slice(0, priceCodes.length)
  if (total > 0) {
    for (let c = 0; c < n; c++) {
      const i = members[c] as number
      const end = priceStart[i + 1] as number
      for (let r = priceStart[i] as number; r < end; r++) {
        const k = priceSlot[priceCode[r] as number] as number
        if (k < 0) continue
        const at = fill[k] as number
        fill[k] = at + 1
        entryRow[at] = r
        entryOwner[at] = c
      }
    }
  }
  const costSum = new Float64Array(n)
  const costParts = new Int32Array(n)
  const pricePeersMin = new Int32Array(n)
  // The carrier's rates (docs/decisions/0081): with exactly one carrier, per price code the candidates with that
  // carrier's payer-file rate of it (candidate order) and the rates.
  const carrier = input.insurers.length === 1 ? index.payerId.get((input.insurers[0] as string).toLowerCase()) : undefined
  const carrierRates = carrier === undefined ? null : priceCodes.map(() => ({ owner: [] as number[], rate: [] as number[] }))
  if (carrierRates) {
    const { payerRateStart, payerRateCode, payerRatePayer, payerRate } = index
    for (let c = 0; c < n; c++) {
      const i = members[c] as number
      const end = payerRateStart[i + 1] as number
      for (let r = payerRateStart[i] as number; r < end; r++) {
        if (payerRatePayer[r] !== carrier) continue
        const k = priceSlot[payerRateCode[r] as number] as number
        if (k < 0) continue
        const list = carrierRates[k] as { owner: number[]; rate: number[] }
        list.owner.push(c)
        list.rate.push(payerRate[r] as number)
      }
    }
  }
  const prices: PriceColumn[] = priceCodes.map((code, k) => {
    const carried = carrierRates?.[k]
    if (carried && carried.owner.length > 0) {
      // the carrier's dollar rates: affordability = the share of the others' rates strictly above (a rate alone: 100),
      // counted once in the cost (the patient's share under the plan follows the same rate)
      const m = carried.owner.length
      const rate = Float64Array.from(carried.rate)
      const negated = rate.map((v) => -v)
      const negotiatedAff = new Float64Array(m)
      if (m === 1) negotiatedAff[0] = 100
      else ranksInto(negotiatedAff, negated, null, 0, m - 1)
      const entryOf = new Int32Array(n).fill(-1)
      for (let j = 0; j < m; j++) {
        const c = carried.owner[j] as number
        entryOf[c] = j
        costSum[c] = (costSum[c] as number) + (negotiatedAff[j] as number) / 100
        costParts[c] = (costParts[c] as number) + 1
        const peers = pricePeersMin[c] as number
        pricePeersMin[c] = peers === 0 ? m : Math.min(peers, m)
      }
      return { code, source: 'payer_file', entryOf, row: new Int32Array(0), rate, negotiatedAff, patientAff: new Float64Array(0) }
    }
    const from = entries[k] as number
    const m = (entries[k + 1] as number) - from
    const entryOf = new Int32Array(n).fill(-1)
    const row = entryRow.subarray(from, from + m)
    const negotiated = new Uint32Array(m)
    const patient = new Uint32Array(m)
    for (let j = 0; j < m; j++) {
      const r = row[j] as number
      negotiated[j] = priceNegotiatedRank[r] as number
      patient[j] = pricePatientRank[r] as number
    }
    const negotiatedAff = affordabilityOf(negotiated)
    const patientAff = affordabilityOf(patient)
    for (let j = 0; j < m; j++) {
      const c = entryOwner[from + j] as number
      entryOf[c] = j
      costSum[c] = (costSum[c] as number) + ((negotiatedAff[j] as number) + (patientAff[j] as number)) / 200
      costParts[c] = (costParts[c] as number) + 1
      const peers = pricePeersMin[c] as number
      pricePeersMin[c] = peers === 0 ? m : Math.min(peers, m)
    }
    return { code, source: 'claims', entryOf, row, rate: new Float64Array(0), negotiatedAff, patientAff }
  })
  const cost = new Float64Array(n)
  const final = new Float64Array(n)
  for (let c = 0; c < n; c++) {
    const parts = costParts[c] as number
    cost[c] = parts > 0 ? clamp01((costSum[c] as number) / parts) : Number.NaN
    const costOrHalf = parts > 0 ? (cost[c] as number) : 0.5
    final[c] = clamp01(
      CARE_SCORE_WEIGHTS.quality_of_care * (quality[c] as number) +
        CARE_SCORE_WEIGHTS.cost * costOrHalf +
        CARE_SCORE_WEIGHTS.distance * (distance[c] as number),
    )
  }

  // Order (listedOf): in network first (when carriers are given), then final_score, then distance, then NPI.
  const listed = listedOf({ candidates, n, inNetwork, final, distanceM }, null)

  // Facilities: the affiliated facilities of all candidates that lie within the radius (the totals), scored from
  // their candidates (as positions among the specialty's facilities: 0 not met, 1 outside the radius, 2 within).
  const facilityCount = index.facilityIds.length
  const facilityState = new Uint8Array(facilityCount)
  const facilityDistance = new Float64Array(facilityCount)
  const facilitySamples = new Int32Array(facilityCount)
  const facilityQuality = new Float64Array(facilityCount)
  const facilityCost = new Float64Array(facilityCount)
  const facilityCosts = new Int32Array(facilityCount)
  const facilityOrder: number[] = []
  const kindCounts = new Int32Array(index.kinds.length)
  for (let c = 0; c < n; c++) {
    const i = members[c] as number
    kindCounts[index.kind[i] as number] = (kindCounts[index.kind[i] as number] as number) + 1
    const local = index.facilityLocal[i] as number
    if (local < 0) continue
    let state = facilityState[local] as number
    if (state === 0) {
      const point = facilityIndex.get(index.facilityIds[local] as number)
      const d = point ? facilityDistanceWithin(point, centre, radiusM) : null
      state = d === null ? 1 : 2
      facilityState[local] = state
      if (d !== null) {
        facilityDistance[local] = d
        facilityOrder.push(local)
      }
    }
    if (state !== 2) continue
    facilitySamples[local] = (facilitySamples[local] as number) + 1
    facilityQuality[local] = (facilityQuality[local] as number) + (quality[c] as number)
    if (!Number.isNaN(cost[c] as number)) {
      facilityCost[local] = (facilityCost[local] as number) + (cost[c] as number)
      facilityCosts[local] = (facilityCosts[local] as number) + 1
    }
  }
  const providerTypeCounts: { kind: string; count: number }[] = []
  kindCounts.forEach((count, kind) => {
    if (count > 0) providerTypeCounts.push({ kind: index.kinds[kind] as string, count })
  })
  const facilityTypes = facilityOrder.map((local) => (facilityIndex.get(index.facilityIds[local] as number) as FacilityPoint).type)
  const facilityScores: FacilityScore[] = facilityOrder.map((local) => {
    const dM = facilityDistance[local] as number
    const samples = facilitySamples[local] as number
    const q = (facilityQuality[local] as number) / samples
    const co = (facilityCosts[local] as number) > 0 ? (facilityCost[local] as number) / (facilityCosts[local] as number) : null
    const d = clamp01(1 - dM / radiusM)
    const f = clamp01(CARE_SCORE_WEIGHTS.quality_of_care * q + CARE_SCORE_WEIGHTS.cost * (co ?? 0.5) + CARE_SCORE_WEIGHTS.distance * d)
    const id = index.facilityIds[local] as number
    const npi = (facilityIndex.get(id) as FacilityPoint).npi
    return { id, npi, distanceM: dM, quality: q, cost: co, distance: d, final: f, samples }
  })
  facilityScores.sort((a, b) => b.final - a.final || a.distanceM - b.distanceM || a.id - b.id)

  return {
    candidates,
    n,
    inNetwork,
    distanceM,
    distance,
    quality,
    cost,
    final,
    relevantVolume,
    pricePeersMin,
    codesSource,
    typical,
    relevant,
    priceCodes,
    givenCols,
    topicalCols,
    relevantCols,
    codeRanks,
    prices,
    listed,
    facilities: facilityScores.slice(0, CARE_MAX_HCO_RESULTS),
    rankedFacilities: facilityScores,
    providerTypeCounts,
    facilityTypes,
    totalFacilities: facilityOrder.length,
  }
}
