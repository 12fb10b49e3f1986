import { ATLAS_PAYER_TYPES } from '@citrus/contracts'
import type pg from 'pg'
import { servedInTurns } from '../../db/replicas.js'
import { kyselyOf, type Row } from '../../db/kysely.js'
import { oneBuildAtATime } from '../../lib/build-queue.js'
import { timedBuild } from '../../lib/engine-stats.js'
import { versionedBuild, versionedEngine } from '../versioned-build.js'
import {
  atlasPatients,
  countRuns,
  currentPatientIndex,
  NONE8,
  patientFilter,
  popcount,
  selectedIds,
  selectPatients,
  type PatientIndex,
} from './patient-index.js'
import { emptyMetrics, scopeZipsSql, SqlParams, type AtlasFilters, type AtlasScope, type GroupMetrics } from './rows.js'

/**
 * The drill-down index of Atlas (docs/decisions/0043, 0052): the claims grouped by (patient, facility,
 * rendering provider, set of diagnosis codes) with their number, rows of a patient together in patient-number
 * order (the numbers of the patient index, so the patients of a region are adjacent). A drill-down takes the patients of the query from the patient index
 * and walks their rows: a row counts when its code set holds a code of the query, so distinct claims,
 * patients, providers, facilities and health systems per state, facility or provider are exact without
 * scanning claims per request.
 */
export interface ClaimIndex {
  version: string
  people: PatientIndex
  /** rows of patient p: rowStart[p] .. rowStart[p+1] */
  rowStart: Uint32Array
  facility: Int32Array
  provider: Int32Array
  /** 16 bits when every value fits (the usual case), else 32 */
  codeSet: Uint16Array | Uint32Array
  claims: Uint16Array | Uint32Array
  /** code sets (codes of a claim, sorted; empty for a claim without a diagnosis) */
  sets: string[][]
  /**
   * The rows with a facility again, ordered by (facility, patient) (docs/decisions/0057): rows of facility f are
   * byFacility.start[f] .. start[f+1], so a drill-down over the facilities of a state, a ZIP area or one facility
   * walks only their rows instead of the rows of every selected patient.
   */
  byFacility: {
    start: Uint32Array
    patient: Uint32Array
    provider: Int32Array
    codeSet: Uint16Array | Uint32Array
    claims: Uint16Array | Uint32Array
  }
  /** per patient state the STATE drill-down's counts without a walk (docs/decisions/0061); null: too many codes */
  stateSummary: StateSummary | null
  facilityIds: Int32Array
  facilityState: string[]
  facilityZip: string[]
  facilitySystem: Int32Array
  /**
   * The claims' providers (about a million at full scale) in columns outside the JavaScript heap, so that they
   * add nothing to a garbage collection's marking (docs/decisions/0068): NPIs as 10 latin1 bytes each (`npiOf`),
   * state and ZIP as numbers into `stateNames` and `zipNames`.
   */
  providers: ProviderColumns
  /** stamps of the distinct counts (one query at a time: the walk is synchronous) */
  providerStamp: Uint32Array
  facilityStamp: Uint32Array
  systemStamp: Uint32Array
  stamp: number
  bytes: number
}

/** A row of the claims read (rowMode 'array'): patient, facility (-1: none), rendering NPI, code set, claims. */
type ClaimRow = [Row<'claims'>['patient_id'], number, Row<'claims'>['rendering_npi'], string, number]

/** NPIs are CHAR(10) */
const NPI_BYTES = 10

export interface ProviderColumns {
  count: number
  /** NPI of provider n: bytes n·10 .. n·10+10 */
  npi: Buffer
  /** 0: the NPI is not in providers (such claims never reach a PROVIDER drill-down, which joins providers); else 1 + its index in stateNames */
  state: Uint8Array
  stateNames: string[]
  /** -1 when not in providers, else its index in zipNames */
  zip: Int32Array
  zipNames: string[]
}

/** The NPI of a claim-index provider. */
export const npiOf = (index: Pick<ClaimIndex, 'providers'>, n: number): string =>
  index.providers.npi.toString('latin1', n * NPI_BYTES, (n + 1) * NPI_BYTES)

const CHUNK = 100_000
/** on the embedded database (servedInTurns): each read holds every request back while it runs */
const CHUNK_IN_TURNS = 20_000

/**
 * Builds the drill-down index over the claims of every patient of `people`, or (`only`: the engine's rows while the
 * index builds) of those patients only (ids ascending): the same rows of theirs as the whole index holds.
 */
export async function buildClaimIndex(pool: pg.Pool, people: PatientIndex, only?: { patients: readonly number[] }): Promise<ClaimIndex> {
  const facilities = {
    rows: await kyselyOf(pool).selectFrom('facilities').select(['id', 'state', 'zip_code', 'health_system_id']).orderBy('id').execute(),
  }
  const facilityNumber = new Map(facilities.rows.map((row, i) => [row.id, i]))
  const npiNumber = new Map<string, number>()
  const setNumber = new Map<string, number>()
  const sets: string[][] = []
  let chunkFacility: number[] = []
  let chunkProvider: number[] = []
  let chunkCodeSet: number[] = []
  let chunkClaims: number[] = []
  const columns = { facility: [] as Int32Array[], provider: [] as Int32Array[], codeSet: [] as Uint32Array[], claims: [] as Uint32Array[] }
  const flush = () => {
    columns.facility.push(Int32Array.from(chunkFacility))
    columns.provider.push(Int32Array.from(chunkProvider))
    columns.codeSet.push(Uint32Array.from(chunkCodeSet))
    columns.claims.push(Uint32Array.from(chunkClaims))
    chunkFacility = []
    chunkProvider = []
    chunkCodeSet = []
    chunkClaims = []
  }
  let rows = 0
  let maxClaims = 0
  // rows arrive by patient id; rowStartById[q] is the first row of the q-th patient in id order
  const size = people.size
  const idsById = new Float64Array(size)
  for (let p = 0; p < size; p++) idsById[people.idOrder[p]!] = people.ids[p]!
  const rowStartById = new Uint32Array(size + 1)
  let q = 0
  const ranges: [number, number][] = []
  const chunk = servedInTurns(pool) ? CHUNK_IN_TURNS : CHUNK
  for (let first = 0; first < size; first += chunk) ranges.push([idsById[first]!, idsById[Math.min(first + chunk, size) - 1]!])
  // a request's patients: their ids, a chunk at a time
  const idChunks: (readonly number[])[] = []
  if (only) for (let first = 0; first < only.patients.length; first += chunk) idChunks.push(only.patients.slice(first, first + chunk))
  // two chunks in flight: the database groups the next one while this process decodes the last
  const fetchChunk = ([low, high]: [number, number]) => {
    const promise = pool.query<ClaimRow>({
      text: `WITH cd AS (
               SELECT d.patient_id, d.claim_id, string_agg(DISTINCT d.icd10_code, ',' ORDER BY d.icd10_code) AS codes
               FROM claim_diagnoses d JOIN claims c ON c.id = d.claim_id AND c.patient_id = d.patient_id
               WHERE c.patient_id BETWEEN $1::int8 AND $2::int8 GROUP BY d.patient_id, d.claim_id)
             SELECT c.patient_id, coalesce(c.facility_id, -1), c.rendering_npi, coalesce(cd.codes, ''), count(*)::int
             FROM claims c LEFT JOIN cd ON cd.claim_id = c.id AND cd.patient_id = c.patient_id
             WHERE c.patient_id BETWEEN $1::int8 AND $2::int8
             GROUP BY c.patient_id, 2, c.rendering_npi, 4 ORDER BY c.patient_id`,
      values: [low, high],
      rowMode: 'array',
    })
    promise.catch(() => undefined) // awaited later: not an unhandled rejection meanwhile
    return promise
  }
  // the same rows of the given patients
  const fetchIds = (ids: readonly number[]) => {
    const promise = pool.query<ClaimRow>({
      text: `WITH cd AS (
               SELECT d.patient_id, d.claim_id, string_agg(DISTINCT d.icd10_code, ',' ORDER BY d.icd10_code) AS codes
               FROM claim_diagnoses d JOIN claims c ON c.id = d.claim_id AND c.patient_id = d.patient_id
               WHERE c.patient_id = ANY($1::int8[]) GROUP BY d.patient_id, d.claim_id)
             SELECT c.patient_id, coalesce(c.facility_id, -1), c.rendering_npi, coalesce(cd.codes, ''), count(*)::int
             FROM claims c LEFT JOIN cd ON cd.claim_id = c.id AND cd.patient_id = c.patient_id
             WHERE c.patient_id = ANY($1::int8[])
             GROUP BY c.patient_id, 2, c.rendering_npi, 4 ORDER BY c.patient_id`,
      values: [ids],
      rowMode: 'array',
    })
    promise.catch(() => undefined)
    return promise
  }
  const chunks = only ? idChunks.length : ranges.length
  const fetchAt = (c: number) => (only ? fetchIds(idChunks[c]!) : fetchChunk(ranges[c]!))
  let pending = chunks > 0 ? fetchAt(0) : null
  for (let c = 0; c < chunks; c++) {
    const result = await pending!
    pending = c + 1 < chunks ? fetchAt(c + 1) : null
    for (const [patientId, facilityId, npi, codes, count] of result.rows) {
      const id = Number(patientId)
      while (q < size && idsById[q]! < id) rowStartById[++q] = rows
      if (idsById[q] !== id) throw new Error(`Atlas index: claims of patient ${id}, who is not in patients`)
      chunkFacility.push(facilityId < 0 ? -1 : (facilityNumber.get(facilityId) ?? -1))
      let n = npiNumber.get(npi)
      if (n === undefined) {
        if (npi.length !== NPI_BYTES) throw new Error(`Atlas index: the NPI ${JSON.stringify(npi)} is not ${NPI_BYTES} characters`)
        n = npiNumber.size
        npiNumber.set(npi, n)
      }
      chunkProvider.push(n)
      let s = setNumber.get(codes)
      if (s === undefined) {
        s = sets.length
        sets.push(codes === '' ? [] : codes.split(','))
        setNumber.set(codes, s)
      }
      chunkCodeSet.push(s)
      chunkClaims.push(count)
      if (count > maxClaims) maxClaims = count
      rows++
    }
    flush()
  }
  while (q < size) rowStartById[++q] = rows
  const concat = <T extends Int32Array | Uint32Array | Uint16Array>(parts: ArrayLike<number>[], make: (n: number) => T): T => {
    const out = make(rows)
    let at = 0
    for (const part of parts) {
      out.set(part, at)
      at += part.length
    }
    return out
  }
  // provider n is the n-th NPI met (the map keeps insertion order)
  const providerCount = npiNumber.size
  const npis = [...npiNumber.keys()]
  const providers: ProviderColumns = {
    count: providerCount,
    npi: Buffer.from(npis.join(''), 'latin1'),
    state: new Uint8Array(providerCount),
    stateNames: [],
    zip: new Int32Array(providerCount).fill(-1),
    zipNames: [],
  }
  const known = await pool.query<[Row<'providers'>['npi'], Row<'providers'>['state'], Row<'providers'>['zip_code']]>({
    text: 'SELECT npi, state, zip_code FROM providers WHERE npi = ANY($1::text[])',
    values: [npis],
    rowMode: 'array',
  })
  const stateCode = new Map<string, number>()
  const zipCode = new Map<string, number>()
  for (const [npi, state, zip] of known.rows) {
    const n = npiNumber.get(npi)!
    let st = stateCode.get(state)
    if (st === undefined) {
      st = providers.stateNames.push(state)
      if (st > 255) throw new Error('Atlas index: more than 255 provider states')
      stateCode.set(state, st)
    }
    providers.state[n] = st
    let z = zipCode.get(zip)
    if (z === undefined) {
      z = providers.zipNames.push(zip) - 1
      zipCode.set(zip, z)
    }
    providers.zip[n] = z
  }
  npiNumber.clear()
  // rows into patient-number order (region order), so a region's patients are walked sequentially
  const rowStart = new Uint32Array(size + 1)
  for (let p = 0; p < size; p++) {
    const qp = people.idOrder[p]!
    rowStart[p + 1] = rowStart[p]! + rowStartById[qp + 1]! - rowStartById[qp]!
  }
  const permute = <T extends Int32Array | Uint32Array | Uint16Array>(parts: ArrayLike<number>[], make: (n: number) => T): T => {
    const byId = concat(parts, make)
    parts.length = 0
    const out = make(rows)
    for (let p = 0, at = 0; p < size; p++) {
      const qp = people.idOrder[p]!
      for (let r = rowStartById[qp]!, end = rowStartById[qp + 1]!; r < end; r++) out[at++] = byId[r]!
    }
    return out
  }
  const facility = permute(columns.facility, (n) => new Int32Array(n))
  const provider = permute(columns.provider, (n) => new Int32Array(n))
  const codeSet = permute(columns.codeSet, (n) => (sets.length <= 0xffff ? new Uint16Array(n) : new Uint32Array(n)))
  const claims = permute(columns.claims, (n) => (maxClaims <= 0xffff ? new Uint16Array(n) : new Uint32Array(n)))
  const index: ClaimIndex = {
    version: people.version,
    people,
    rowStart,
    facility,
    provider,
    codeSet,
    claims,
    byFacility: facilityOrder(facilities.rows.length, rowStart, facility, provider, codeSet, claims),
    stateSummary: stateSummaryOf(
      people,
      { rowStart, facility, provider, codeSet, claims, sets },
      providerCount,
      Int32Array.from(facilities.rows.map((row) => row.health_system_id ?? -1)),
    ),
    sets,
    facilityIds: Int32Array.from(facilities.rows.map((row) => row.id)),
    facilityState: facilities.rows.map((row) => row.state),
    facilityZip: facilities.rows.map((row) => row.zip_code),
    facilitySystem: Int32Array.from(facilities.rows.map((row) => row.health_system_id ?? -1)),
    providers,
    providerStamp: new Uint32Array(providerCount),
    facilityStamp: new Uint32Array(facilities.rows.length),
    systemStamp: new Uint32Array(1 + Math.max(0, ...facilities.rows.map((row) => row.health_system_id ?? 0))),
    stamp: 0,
    bytes: 0,
  }
  index.bytes =
    byteLengths(rowStart, ...Object.values(index.byFacility), index.facility, index.provider, index.codeSet, index.claims) +
    2 * byteLengths(index.providerStamp, index.facilityStamp) +
    (index.stateSummary?.bytes ?? 0) +
    byteLengths(providers.npi, providers.state, providers.zip) +
    facilities.rows.length * 40
  return index
}

/** The bytes the typed arrays hold (an index's weight). */
const byteLengths = (...views: ArrayBufferView[]) => views.reduce((sum, view) => sum + view.byteLength, 0)

/** The rows with a facility in (facility, patient) order: a counting sort of the patient-ordered rows. */
function facilityOrder(
  facilities: number,
  rowStart: Uint32Array,
  facility: Int32Array,
  provider: Int32Array,
  codeSet: Uint16Array | Uint32Array,
  claims: Uint16Array | Uint32Array,
): ClaimIndex['byFacility'] {
  const start = new Uint32Array(facilities + 1)
  for (let r = 0; r < facility.length; r++) if (facility[r]! >= 0) start[facility[r]! + 1]!++
  for (let f = 0; f < facilities; f++) start[f + 1]! += start[f]!
  const rows = start[facilities]!
  const out = {
    start,
    patient: new Uint32Array(rows),
    provider: new Int32Array(rows),
    codeSet: codeSet instanceof Uint16Array ? new Uint16Array(rows) : new Uint32Array(rows),
    claims: claims instanceof Uint16Array ? new Uint16Array(rows) : new Uint32Array(rows),
  }
  const next = start.slice(0, facilities)
  const patients = rowStart.length - 1
  for (let p = 0; p < patients; p++) {
    for (let r = rowStart[p]!, end = rowStart[p + 1]!; r < end; r++) {
      const f = facility[r]!
      if (f < 0) continue
      const at = next[f]!++
      out.patient[at] = p
      out.provider[at] = provider[r]!
      out.codeSet[at] = codeSet[r]!
      out.claims[at] = claims[r]!
    }
  }
  return out
}

/**
 * What a STATE drill-down counts when its patients are every patient of whole states with a matching diagnosis
 * (no gender, age, ZIP-area, facility or health-system filter; docs/decisions/0061), per patient state and
 * independent of the query: the claims per code set, and per provider, facility and health system the union of
 * the codes of its rows (a bit mask over the claim-level codes plus one bit for "no diagnosis"). Only patients
 * with a diagnosis contribute: without codes a drill-down selects exactly them; with codes a matching row's
 * patient has that diagnosis (mv_patient_diagnoses is built from the same claims), so the others' rows never
 * match. A provider then counts in a state when its mask meets the query's, the claims are the sums of the
 * matching sets, and the patients and payers are popcounts of the selection: no claim row is walked.
 */
export interface StateSummary {
  /** 32-bit words per mask */
  words: number
  /** the claim-level codes, in bytewise order: bit i of a mask; bit codes.length: a claim without a diagnosis */
  codes: string[]
  /** per code set its mask (`words` words each) */
  setMask: Uint32Array
  /** claims of state s per code set: entries start[s] .. start[s+1] */
  claims: { start: Uint32Array; set: Uint32Array; sum: Float64Array }
  /** per state its providers', facilities' and health systems' code masks, bit-sliced (see SlicedBlocks) */
  providers: SlicedBlocks
  facilities: SlicedBlocks
  systems: SlicedBlocks
  bytes: number
}

/**
 * The entities (providers, facilities or health systems) with rows in each state, as one bitset per state and
 * code bit over the state's entities: state s has start[s+1] - start[s] entities, `width(s)` = that / 32
 * rounded up words per bitset, and the bitset of code bit c is bits[offset[s] + c * width(s) ..]. A query ORs
 * the bitsets of its codes' bits and popcounts: it reads only its codes' bits, not every entity's mask.
 */
export interface SlicedBlocks {
  start: Uint32Array
  offset: Float64Array
  bits: Uint32Array
}

/** beyond this many mask words (255 codes) the summary would outgrow the walk: STATE drill-downs walk the rows */
const MAX_MASK_WORDS = 8

export function stateSummaryOf(
  people: PatientIndex,
  rows: {
    rowStart: Uint32Array
    facility: Int32Array
    provider: Int32Array
    codeSet: Uint16Array | Uint32Array
    claims: Uint16Array | Uint32Array
    sets: string[][]
  },
  providerCount: number,
  facilitySystem: Int32Array,
): StateSummary | null {
  const { rowStart, facility, provider, codeSet, claims, sets } = rows
  const codes = [...new Set(sets.flat())].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const words = (codes.length + 1 + 31) >>> 5
  if (words > MAX_MASK_WORDS) return null
  const bit = new Map(codes.map((code, i) => [code, i]))
  const setMask = new Uint32Array(sets.length * words)
  sets.forEach((set, k) => {
    for (const b of set.length === 0 ? [codes.length] : set.map((code) => bit.get(code)!)) setMask[k * words + (b >>> 5)]! |= 1 << (b & 31)
  })
  const stateCount = people.states.length
  const systemCount = 1 + Math.max(0, ...facilitySystem)
  // blocks of the current state per entity: entity → block, valid while owner[entity] is the current state
  const blocks = (entities: number) => ({
    start: new Uint32Array(stateCount + 1),
    mask: [] as number[],
    block: new Int32Array(entities),
    owner: new Int32Array(entities).fill(-1),
  })
  const byProvider = blocks(providerCount)
  const byFacility = blocks(facilitySystem.length)
  const bySystem = blocks(systemCount)
  const claimStart = new Uint32Array(stateCount + 1)
  const claimSet: number[] = []
  const claimSum: number[] = []
  const sums = new Float64Array(sets.length)
  const touched: number[] = []
  const add = (b: ReturnType<typeof blocks>, entity: number, s: number, k: number) => {
    let at: number
    if (b.owner[entity] !== s) {
      b.owner[entity] = s
      at = b.block[entity] = b.mask.length / words
      for (let w = 0; w < words; w++) b.mask.push(0)
    } else at = b.block[entity]!
    for (let w = 0; w < words; w++) b.mask[at * words + w]! |= setMask[k * words + w]!
  }
  const flushClaims = () => {
    for (const k of touched) {
      claimSet.push(k)
      claimSum.push(sums[k]!)
      sums[k] = 0
    }
    touched.length = 0
  }
  // patients are numbered in state order, so each state's patients (and rows) come together, states ascending
  let current = -1
  const enter = (s: number) => {
    flushClaims()
    for (let t = current + 1; t <= s; t++) {
      claimStart[t] = claimSet.length
      byProvider.start[t] = byProvider.mask.length / words
      byFacility.start[t] = byFacility.mask.length / words
      bySystem.start[t] = bySystem.mask.length / words
    }
    current = s
  }
  const { any, state } = people
  for (let p = 0; p < people.size; p++) {
    const s = state[p]!
    if (s === NONE8 || (any[p >>> 5]! & (1 << (p & 31))) === 0) continue
    if (s < current) return null // not in state order: the walk answers
    if (s !== current) enter(s)
    for (let r = rowStart[p]!, end = rowStart[p + 1]!; r < end; r++) {
      const k = codeSet[r]!
      if (sums[k] === 0) touched.push(k)
      sums[k]! += claims[r]!
      add(byProvider, provider[r]!, s, k)
      const f = facility[r]!
      if (f < 0) continue
      add(byFacility, f, s, k)
      const h = facilitySystem[f]!
      if (h >= 0) add(bySystem, h, s, k)
    }
  }
  enter(stateCount)
  const bitCount = codes.length + 1
  const done = (b: ReturnType<typeof blocks>): SlicedBlocks => {
    const offset = new Float64Array(stateCount + 1)
    for (let t = 0; t < stateCount; t++) offset[t + 1] = offset[t]! + bitCount * ((b.start[t + 1]! - b.start[t]! + 31) >>> 5)
    const bits = new Uint32Array(offset[stateCount]!)
    for (let t = 0; t < stateCount; t++) {
      const first = b.start[t]!
      const width = (b.start[t + 1]! - first + 31) >>> 5
      for (let e = first; e < b.start[t + 1]!; e++) {
        const k = e - first
        for (let c = 0; c < bitCount; c++)
          if (b.mask[e * words + (c >>> 5)]! & (1 << (c & 31))) bits[offset[t]! + c * width + (k >>> 5)]! |= 1 << (k & 31)
      }
    }
    return { start: b.start, offset, bits }
  }
  const summary = {
    words,
    codes,
    setMask,
    claims: { start: claimStart, set: Uint32Array.from(claimSet), sum: Float64Array.from(claimSum) },
    providers: done(byProvider),
    facilities: done(byFacility),
    systems: done(bySystem),
    bytes: 0,
  }
  summary.bytes =
    byteLengths(setMask, summary.claims.set, summary.claims.sum, summary.providers.bits, summary.facilities.bits, summary.systems.bits) +
    4 * 4 * (stateCount + 1)
  return summary
}

/** What a drill-down groups by: the whole region, the patients' states, facilities or rendering providers. */
export type DrillGroup = 'COUNTRY' | 'STATE' | 'FACILITY' | 'PROVIDER'

export interface DrillQuery {
  group: DrillGroup
  filters: AtlasFilters
  scope: AtlasScope
  facilityId: number | null
  healthSystemId: number | null
  /** STATE: the patients' state; FACILITY: the facility's; PROVIDER: the provider's */
  state: string | null
  /** STATE: count only the groups of these states (the page's; docs/decisions/0057) */
  states?: readonly string[] | null
}

/** One group of a drill-down: the facility id, the NPI, the state or 'all'. */
export interface DrillCount {
  key: string
  metrics: GroupMetrics
}

/**
 * The metrics of each group: the one count of every drill-down figure, over the index or a request's rows (the
 * tests recount them in SQL over the claims). For FACILITY and PROVIDER groups the facility, health system and
 * state counts are not computed (no card shows them).
 */
export async function drillWithIndex(
  pool: pg.Pool,
  index: ClaimIndex,
  q: DrillQuery,
  options: { walk?: boolean } = {},
): Promise<DrillCount[]> {
  const people = index.people
  const onPatients = q.group === 'COUNTRY' || q.group === 'STATE'
  const scopeZips = q.scope.type === 'ZIP_CODE_50KM' && !onPatients ? await zipsOf(pool, q.scope) : null
  const selection = patientQueryOf(q)
  const filter = await patientFilter(pool, people, selection.filters, selection.scope)
  if (!filter) return []
  if (q.group === 'STATE' && q.state !== null) {
    const s = people.states.indexOf(q.state)
    if (s < 0 || (filter.state >= 0 && filter.state !== s)) return []
    filter.state = s
  }
  // code sets of the query: any code starting with a prefix; all of them (with claims without a diagnosis) without codes
  const prefixes = q.filters.codes
  const setMatch = setMatchOf(index, prefixes)
  // facilities and providers a row may have (scope, state, health system, facility filters)
  const needsFacility = q.group === 'FACILITY' || q.facilityId !== null || q.healthSystemId !== null
  // (plain loops: TypedArray.from with a mapping function costs ~100 ns an element, 6 ms for 52,000 facilities)
  let facilityOk: Uint8Array | null = null
  if (needsFacility) {
    const { facilityIds, facilitySystem, facilityState, facilityZip } = index
    const scopeState = q.group === 'FACILITY' && q.scope.type === 'STATE' ? q.scope.state : null
    const ok = (facilityOk = new Uint8Array(facilityIds.length))
    for (let f = 0; f < ok.length; f++) {
      if (q.facilityId !== null && facilityIds[f] !== q.facilityId) continue
      if (q.healthSystemId !== null && facilitySystem[f] !== q.healthSystemId) continue
      if (q.group === 'FACILITY') {
        if (scopeState !== null && facilityState[f] !== scopeState) continue
        if (scopeZips && !scopeZips.has(facilityZip[f]!)) continue
        if (q.state !== null && facilityState[f] !== q.state) continue
      }
      ok[f] = 1
    }
  }
  let providerOk: Uint8Array | null = null
  if (q.group === 'PROVIDER') {
    const { state, stateNames, zip, zipNames } = index.providers
    // states as their codes in the columns (-1: no condition; 0, never a known provider's: a state none has)
    const codeOf = (name: string | null) => (name === null ? -1 : stateNames.indexOf(name) + 1)
    const scopeState = codeOf(q.scope.type === 'STATE' ? q.scope.state : null)
    const queryState = codeOf(q.state)
    const zipOk = scopeZips ? Uint8Array.from(zipNames, (name) => (scopeZips.has(name) ? 1 : 0)) : null
    const ok = (providerOk = new Uint8Array(index.providers.count))
    for (let n = 0; n < ok.length; n++) {
      const st = state[n]!
      if (st === 0) continue
      if (scopeState >= 0 && st !== scopeState) continue
      if (zipOk && zipOk[zip[n]!] !== 1) continue
      if (queryState >= 0 && st !== queryState) continue
      ok[n] = 1
    }
  }
  let patients = selectPatients(people, prefixes, filter)
  if (q.group === 'STATE' && q.states) patients = onlyStates(people, patients, q.states)
  // whole states' patients with a matching diagnosis: from the per-state summary, without walking the rows (0061)
  const summary = index.stateSummary
  if (
    q.group === 'STATE' &&
    summary &&
    !options.walk &&
    !facilityOk &&
    filter.zipMask === null &&
    filter.gender < 0 &&
    Math.ceil(filter.minAge) <= people.ageLow &&
    Math.floor(filter.maxAge) >= people.ageHigh
  )
    return countStatesFromSummary(people, summary, patients, prefixes, setMatch)
  if (onPatients) return countByPatientState(index, patients, q.group === 'COUNTRY', setMatch, facilityOk)
  // facilities of a state, a ZIP area or one facility: their rows only (a provider's patients are deduped per
  // facility walk, so PROVIDER groups take this path only within one facility)
  if (facilityOk && (q.group === 'FACILITY' || q.facilityId !== null))
    return countByFacilityRows(index, patients, q.group === 'FACILITY', setMatch, facilityOk, providerOk)
  return countByEntity(index, patients, q.group === 'FACILITY', setMatch, facilityOk, providerOk)
}

/** The entities of state s with a code bit among `bits`: the popcount of the OR of those bits' bitsets. */
function meeting(blocks: SlicedBlocks, s: number, codeBits: readonly number[]): number {
  const width = (blocks.start[s + 1]! - blocks.start[s]! + 31) >>> 5
  const base = blocks.offset[s]!
  const { bits } = blocks
  let n = 0
  for (let w = 0; w < width; w++) {
    let word = 0
    for (let k = 0; k < codeBits.length; k++) word |= bits[base + codeBits[k]! * width + w]!
    n += popcount(word)
  }
  return n
}

/**
 * STATE groups from the per-state summary (docs/decisions/0061): patients and payers are popcounts of the
 * selection over each state's runs; claims the sums of the state's matching code sets; providers, facilities
 * and health systems the blocks of the state whose code mask meets the query's. The same counts, in the same
 * order, as countByPatientState over whole states.
 */
function countStatesFromSummary(
  people: PatientIndex,
  summary: StateSummary,
  patients: Uint32Array,
  prefixes: readonly string[],
  setMatch: Uint8Array,
): DrillCount[] {
  // the code bits of the query (every bit without codes: then each entity of the state counts, as each has a row)
  const queryBits: number[] = []
  summary.codes.forEach((code, b) => {
    if (prefixes.some((prefix) => code.startsWith(prefix))) queryBits.push(b)
  })
  const meets = (blocks: SlicedBlocks, s: number) =>
    prefixes.length === 0 ? blocks.start[s + 1]! - blocks.start[s]! : meeting(blocks, s, queryBits)
  const width = ATLAS_PAYER_TYPES.length + 1
  const counts = countRuns(people, patients, 'STATE')
  const out: DrillCount[] = []
  for (let s = 0; s < people.states.length; s++) {
    const n = counts[s * width]!
    if (n === 0) continue
    const m = emptyMetrics()
    m.patients = n
    const { start, set, sum } = summary.claims
    for (let e = start[s]!, end = start[s + 1]!; e < end; e++) if (setMatch[set[e]!]) m.claims += sum[e]!
    m.providers = meets(summary.providers, s)
    m.facilities = meets(summary.facilities, s)
    m.health_systems = meets(summary.systems, s)
    m.states = 1
    ATLAS_PAYER_TYPES.forEach((type, k) => (m[type] = counts[s * width + 1 + k]!))
    out.push({ key: people.states[s]!, metrics: m })
  }
  return out
}

/** The selection restricted to the patients of some states: their runs of numbers copied (patients are in state order). */
function onlyStates(people: PatientIndex, selected: Uint32Array, states: readonly string[]): Uint32Array {
  const keep = new Uint8Array(people.states.length)
  for (const state of states) {
    const s = people.states.indexOf(state)
    if (s >= 0) keep[s] = 1
  }
  const out = new Uint32Array(selected.length)
  const { start, region } = people.runs.STATE
  for (let r = 0; r < region.length; r++) {
    const g = region[r]!
    if (g >= keep.length || !keep[g]) continue
    const s = start[r]!
    const e = start[r + 1]!
    if (e <= s) continue
    const first = s >>> 5
    const last = (e - 1) >>> 5
    for (let w = first; w <= last; w++) {
      let word = selected[w]!
      if (w === first) word &= ~0 << (s & 31)
      if (w === last) word &= ~0 >>> (31 - ((e - 1) & 31))
      out[w]! |= word
    }
  }
  return out
}

const SET_MATCH_LIMIT = 50
const setMatches = new WeakMap<ClaimIndex, Map<string, Uint8Array>>()

/** Per code set whether it holds a code of the prefixes (all of them without prefixes), kept per index and prefixes. */
function setMatchOf(index: ClaimIndex, prefixes: readonly string[]): Uint8Array {
  let cache = setMatches.get(index)
  if (!cache) setMatches.set(index, (cache = new Map()))
  const key = prefixes.join(',')
  let match = cache.get(key)
  if (match) {
    cache.delete(key)
    cache.set(key, match)
    return match
  }
  match = Uint8Array.from(index.sets, (codes) =>
    prefixes.length === 0 || codes.some((code) => prefixes.some((prefix) => code.startsWith(prefix))) ? 1 : 0,
  )
  cache.set(key, match)
  while (cache.size > SET_MATCH_LIMIT) cache.delete(cache.keys().next().value as string)
  return match
}

async function zipsOf(pool: pg.Pool, scope: AtlasScope): Promise<Set<string>> {
  const params = new SqlParams()
  const { rows } = await pool.query<Pick<Row<'zips'>, 'zip'>>(scopeZipsSql(scope, params), params.values)
  return new Set(rows.map((row) => row.zip))
}

function nextStamp(index: ClaimIndex): number {
  if (++index.stamp >= 0xffffffff) {
    index.providerStamp.fill(0)
    index.facilityStamp.fill(0)
    index.systemStamp.fill(0)
    index.stamp = 1
  }
  return index.stamp
}

/**
 * COUNTRY (one group) or STATE (the patients' states). Patient numbers are in state order, so the selected
 * patients come state by state and a stamp per group dedupes providers, facilities and health systems.
 */
function countByPatientState(
  index: ClaimIndex,
  patients: Uint32Array,
  single: boolean,
  setMatch: Uint8Array,
  facilityOk: Uint8Array | null,
): DrillCount[] {
  const people = index.people
  const out: DrillCount[] = []
  const { rowStart, facility, provider, codeSet, claims, facilitySystem, providerStamp, facilityStamp, systemStamp } = index
  const statesSeen = new Uint8Array(256)
  let m = emptyMetrics()
  let group = -1
  let stamp = nextStamp(index)
  const close = () => {
    if (group >= 0 && m.patients > 0) out.push({ key: single ? 'all' : people.states[group]!, metrics: m })
  }
  for (let w = 0; w < patients.length; w++) {
    let word = patients[w]!
    while (word !== 0) {
      const low = word & -word
      word ^= low
      const p = (w << 5) + 31 - Math.clz32(low)
      const s = people.state[p]!
      if (!single) {
        if (s === NONE8) continue
        if (s !== group) {
          close()
          m = emptyMetrics()
          group = s
          stamp = nextStamp(index)
        }
      } else group = 0
      let counted = false
      for (let r = rowStart[p]!, end = rowStart[p + 1]!; r < end; r++) {
        if (!setMatch[codeSet[r]!]) continue
        const f = facility[r]!
        if (facilityOk && (f < 0 || !facilityOk[f])) continue
        counted = true
        m.claims += claims[r]!
        const n = provider[r]!
        if (providerStamp[n] !== stamp) {
          providerStamp[n] = stamp
          m.providers++
        }
        if (f >= 0 && facilityStamp[f] !== stamp) {
          facilityStamp[f] = stamp
          m.facilities++
          const h = facilitySystem[f]!
          if (h >= 0 && systemStamp[h] !== stamp) {
            systemStamp[h] = stamp
            m.health_systems++
          }
        }
      }
      if (counted) {
        m.patients++
        const kind = people.payer[p]!
        if (kind !== NONE8) m[ATLAS_PAYER_TYPES[kind]!]++
        if (s !== NONE8 && !statesSeen[s]) {
          statesSeen[s] = 1
          m.states++
        }
      }
    }
  }
  close()
  return out
}

/** FACILITY or PROVIDER groups: rows of one patient are together, so the last patient per group dedupes patients. */
function countByEntity(
  index: ClaimIndex,
  patients: Uint32Array,
  byFacility: boolean,
  setMatch: Uint8Array,
  facilityOk: Uint8Array | null,
  providerOk: Uint8Array | null,
): DrillCount[] {
  const people = index.people
  const { rowStart, facility, provider, codeSet, claims } = index
  const groups = byFacility ? index.facilityIds.length : index.providers.count
  const width = 3 + ATLAS_PAYER_TYPES.length
  // per group: patients, claims, providers, payers; the last patient counted
  const counts = new Float64Array(groups * width)
  const lastPatient = new Int32Array(groups).fill(-1)
  const pairs: number[] = []
  let lastPair = -1
  const providerCount = index.providers.count
  for (let w = 0; w < patients.length; w++) {
    let word = patients[w]!
    while (word !== 0) {
      const low = word & -word
      word ^= low
      const p = (w << 5) + 31 - Math.clz32(low)
      const kind = people.payer[p]!
      for (let r = rowStart[p]!, end = rowStart[p + 1]!; r < end; r++) {
        if (!setMatch[codeSet[r]!]) continue
        const f = facility[r]!
        const n = provider[r]!
        if (facilityOk && (f < 0 || !facilityOk[f])) continue
        if (providerOk && !providerOk[n]) continue
        const g = byFacility ? f : n
        const at = g * width
        counts[at + 1]! += claims[r]!
        if (lastPatient[g] !== p) {
          lastPatient[g] = p
          counts[at]!++
          if (kind !== NONE8) counts[at + 3 + kind]!++
        }
        if (byFacility) {
          const pair = g * providerCount + n
          if (pair !== lastPair) pairs.push((lastPair = pair))
        }
      }
    }
  }
  if (byFacility) {
    // distinct providers per facility: sort the (facility, provider) pairs
    const sorted = Float64Array.from(pairs).sort()
    for (let i = 0; i < sorted.length; i++) {
      if (i > 0 && sorted[i] === sorted[i - 1]) continue
      counts[Math.floor(sorted[i]! / providerCount) * width + 2]!++
    }
  }
  const out: DrillCount[] = []
  for (let g = 0; g < groups; g++) {
    const at = g * width
    if (counts[at] === 0) continue
    const m = emptyMetrics()
    m.patients = counts[at]!
    m.claims = counts[at + 1]!
    m.providers = byFacility ? counts[at + 2]! : 1
    ATLAS_PAYER_TYPES.forEach((type, k) => (m[type] = counts[at + 3 + k]!))
    out.push({ key: byFacility ? String(index.facilityIds[g]) : npiOf(index, g), metrics: m })
  }
  return out
}

const providerGroups = new WeakMap<ClaimIndex, Int32Array>()

/**
 * FACILITY groups, or PROVIDER groups within one facility, from the facility-ordered rows: only the rows of
 * the facilities that pass are read; a row counts when its patient is selected and its code set matches. Rows
 * of a facility are in patient order, so the last patient per group dedupes patients and a stamp per
 * facility dedupes its providers. The same counts as countByEntity.
 */
function countByFacilityRows(
  index: ClaimIndex,
  patients: Uint32Array,
  byFacility: boolean,
  setMatch: Uint8Array,
  facilityOk: Uint8Array,
  providerOk: Uint8Array | null,
): DrillCount[] {
  const people = index.people
  const { start, patient, provider, codeSet, claims } = index.byFacility
  const { providerStamp } = index
  const width = 3 + ATLAS_PAYER_TYPES.length
  // per group (facility number, or provider number in first-seen order): patients, claims, providers, payers
  const counts: number[] = []
  const keys: number[] = []
  const lastPatient: number[] = []
  const newGroup = (key: number) => {
    keys.push(key)
    lastPatient.push(-1)
    for (let k = 0; k < width; k++) counts.push(0)
    return keys.length - 1
  }
  // PROVIDER groups: a provider's group number, valid while its stamp is this query's (no lookup per row in a Map)
  let providerGroup = providerGroups.get(index)
  if (!providerGroup) providerGroups.set(index, (providerGroup = new Int32Array(providerStamp.length)))
  const queryStamp = byFacility ? 0 : nextStamp(index)
  for (let f = 0; f < facilityOk.length; f++) {
    if (!facilityOk[f]) continue
    const stamp = byFacility ? nextStamp(index) : queryStamp
    let facilityGroup = -1
    for (let r = start[f]!, end = start[f + 1]!; r < end; r++) {
      const p = patient[r]!
      if ((patients[p >>> 5]! & (1 << (p & 31))) === 0) continue
      if (!setMatch[codeSet[r]!]) continue
      const n = provider[r]!
      if (providerOk && !providerOk[n]) continue
      let g: number
      if (byFacility) {
        if (facilityGroup < 0) facilityGroup = newGroup(f)
        g = facilityGroup
      } else if (providerStamp[n] !== stamp) {
        providerStamp[n] = stamp
        g = providerGroup[n] = newGroup(n)
      } else g = providerGroup[n]!
      const at = g * width
      counts[at + 1]! += claims[r]!
      if (lastPatient[g] !== p) {
        lastPatient[g] = p
        counts[at]!++
        const kind = people.payer[p]!
        if (kind !== NONE8) counts[at + 3 + kind]!++
      }
      if (byFacility && providerStamp[n] !== stamp) {
        providerStamp[n] = stamp
        counts[at + 2]!++
      }
    }
  }
  const order = keys.map((_, g) => g).sort((a, b) => keys[a]! - keys[b]!)
  return order.map((g) => {
    const at = g * width
    const m = emptyMetrics()
    m.patients = counts[at]!
    m.claims = counts[at + 1]!
    m.providers = byFacility ? counts[at + 2]! : 1
    ATLAS_PAYER_TYPES.forEach((type, k) => (m[type] = counts[at + 3 + k]!))
    return { key: byFacility ? String(index.facilityIds[keys[g]!]) : npiOf(index, keys[g]!), metrics: m }
  })
}

/** The drill-down index of the data version, or null while it (or the patient index) is being built. */
export const currentClaimIndex = versionedBuild(
  (pool, version) =>
    currentPatientIndex(pool, version, true).then((people) =>
      oneBuildAtATime(() => timedBuild('atlas_claim_index', buildClaimIndex(pool, people!))),
    ),
  'atlas_claim_index',
)

/**
 * The Atlas claim engine (docs/decisions/0080): while the index builds, an index of the claims of the drill-down's
 * patients only (the patient engine's, selected as drillWithIndex selects them), read from the database by the same
 * builder. drillWithIndex counts either: a row it walks is a row of a selected patient, which both hold alike.
 */
export const atlasClaims = versionedEngine('atlas_claim_index', currentClaimIndex, async (pool, version, q: DrillQuery) => {
  const query = patientQueryOf(q)
  const people = await atlasPatients.rows(pool, version, query)
  const filter = await patientFilter(pool, people, query.filters, query.scope)
  const patients = filter ? selectedIds(people, selectPatients(people, q.filters.codes, filter)) : []
  return buildClaimIndex(pool, people, { patients })
})

/** The patients a drill-down walks: in its region (COUNTRY, STATE groups) or anywhere (FACILITY, PROVIDER: their own region). */
function patientQueryOf(q: DrillQuery): { filters: AtlasFilters; scope: AtlasScope } {
  const onPatients = q.group === 'COUNTRY' || q.group === 'STATE'
  return { filters: q.filters, scope: onPatients ? q.scope : { ...q.scope, type: 'COUNTRY', state: null } }
}
