import { ATLAS_PAYER_TYPES, type TileGranularity } from '@citrus/contracts'
import type pg from 'pg'
import { primaryOf, servedInTurns } from '../../db/replicas.js'
import type { Row } from '../../db/kysely.js'
import { oneBuildAtATime } from '../../lib/build-queue.js'
import { timedBuild } from '../../lib/engine-stats.js'
import { versionedBuild, versionedEngine } from '../versioned-build.js'
import {
  codeConditionSql,
  patientConditions,
  scopeZipsSql,
  SqlParams,
  type AtlasFilters,
  type AtlasScope,
  type PayerCounts,
} from './rows.js'

/**
 * The in-process patient index of Atlas (docs/decisions/0043, 0052): mv_patient_diagnoses (one row per
 * patient and diagnosis code, refreshed by every data load) held as columns and bitsets, so that counting
 * distinct patients per region over a union of code prefixes never scans claims or the view per request.
 *
 * - patients are numbered 0..n-1 in (state, county, ZIP area, id) order, so that every region of every
 *   granularity is a few contiguous runs of numbers; per patient typed arrays of state, county, ZIP area,
 *   gender, age and payer (dictionary indexes);
 * - per ICD-10 code (sorted, so a prefix is one contiguous run of codes) its patients: a bitset over the
 *   numbers when it has at least `denseAt` of them (smaller than the list then), else the sorted numbers
 *   (postings, all in one Int32Array);
 * - bitsets of each gender, each payer and each "age ≥ a";
 * - a query ORs the codes' bitsets and postings into one bitset (the union, each patient once), ANDs the
 *   filters' bitsets, and counts per region with a popcount over each region's runs.
 *
 * Built lazily from the database (the truth) and keyed by the data version: a finished seed or import
 * makes a new version, and the next request builds a new index. Meanwhile the engine (`atlasPatients`) gives a
 * request an index of its own patients only, built by the same code from the rows the database selects for it,
 * so the same counting answers either way (docs/decisions/0080).
 */
export interface PatientIndex {
  version: string
  size: number
  /** 32-bit words of a bitset over the patients */
  words: number
  /** patient ids in number order */
  ids: Float64Array
  /** position of patient number p in id order (the drill-down index reads claims by id ranges) */
  idOrder: Int32Array
  /** dictionary of each attribute; `NONE` in a column where the value is null */
  states: string[]
  counties: string[]
  zips: string[]
  state: Uint8Array
  county: Uint16Array
  zip: Uint32Array
  gender: Uint8Array
  age: Int16Array
  payer: Uint8Array
  /** per granularity the runs of equal region: numbers runStart[r] .. runStart[r+1] are in runRegion[r] */
  runs: Record<TileGranularity, { start: Int32Array; region: Uint32Array }>
  /** ICD-10 codes in text order (the order of the view's text_pattern_ops index: bytewise) */
  codes: string[]
  /** postings of code i: patients[offsets[i] .. offsets[i+1]) (empty when the code has a bitset) */
  offsets: Uint32Array
  patients: Int32Array
  /** bitset of code i (index into `bitsets`), or -1 */
  dense: Int32Array
  bitsets: Uint32Array[]
  /** patients with any diagnosis (the union of all codes; empty in an index built without postings) */
  any: Uint32Array
  genderBits: Uint32Array[]
  payerBits: Uint32Array[]
  /** every patient has one of the payer types: a region's last payer count is its patients less the other three */
  payersPartition: boolean
  /** ageAtLeast[k]: patients aged ≥ ageLow + k (null when the ages span too much: then tested per patient) */
  ageAtLeast: Uint32Array[] | null
  ageLow: number
  ageHigh: number
  bytes: number
}

export const NONE8 = 0xff
const NONE16 = 0xffff
const NONE32 = 0xffffffff
const GENDERS = ['M', 'F'] as const
const PATIENT_RECORD = 24
const CHUNK = 250_000
/** on the embedded database (servedInTurns): each read holds every request back while it runs */
const CHUNK_IN_TURNS = 50_000
/** at most this many "age ≥ a" bitsets (ages outside a sane span are tested per patient instead) */
const MAX_AGE_BITSETS = 160

export interface PatientIndexOptions {
  /** a code gets a bitset from this share of the patients on (default 1/32: where the bitset is smaller) */
  denseShare?: number
  /** build the age bitsets (default true) */
  ageBitsets?: boolean
  /**
   * read the diagnoses' postings (default true); without them the index has no codes and an empty `any`: it only
   * holds and places its patients (the engine's rows of EVERY_PATIENT while the index builds)
   */
  postings?: boolean
  /**
   * only the patients of a request (the engine's rows while the index builds): those with a diagnosis of the
   * query's codes (any diagnosis without codes) that pass its filters and scope, with the postings of those codes
   */
  only?: PatientQuery
}

/** What a request asks the patient engine for: the patients of these filters within this region. */
export interface PatientQuery {
  filters: AtlasFilters
  scope: AtlasScope
}

/**
 * The patient engine's query of every patient of the data version, with a diagnosis or not (what Atlas's home counts):
 * the index of the version, or while it builds the same patients read by the same builder without the postings.
 */
export const EVERY_PATIENT = 'every-patient'

/** What the patient engine answers: a request's patients, or every patient. */
export type PatientRowsQuery = PatientQuery | typeof EVERY_PATIENT

/** The patients' 24-byte records (see buildPatientIndex), ORDER BY id, from a relation with the columns of patients. */
const recordsSql = (relation: string, limit: string) =>
  `SELECT string_agg(int8send(p.id) || int2send(least(greatest(p.age, -32768), 32767)::int2)
                || CASE p.gender WHEN 'M' THEN '\\x00'::bytea WHEN 'F' THEN '\\x01'::bytea ELSE '\\x02'::bytea END
                || CASE p.payer_type ${ATLAS_PAYER_TYPES.map((payer, i) => `WHEN '${payer}' THEN '\\x0${i}'::bytea`).join(' ')} ELSE '\\xff'::bytea END
                || convert_to(rpad(coalesce(p.state, '~~'), 2, '~'), 'UTF8')
                || convert_to(rpad(coalesce(p.county_fips, '~~~~~'), 5, '~'), 'UTF8')
                || convert_to(rpad(coalesce(p.zip_code, '~~~~~'), 5, '~'), 'UTF8'), ''::bytea ORDER BY p.id) AS data,
              max(p.id)::text AS last
       FROM (${relation} ORDER BY id LIMIT ${limit}) p`

function dictionary() {
  const values: string[] = []
  const index = new Map<string, number>()
  return {
    values,
    of(value: string): number {
      let i = index.get(value)
      if (i === undefined) {
        i = values.length
        values.push(value)
        index.set(value, i)
      }
      return i
    },
  }
}

/** Bytewise order (the C collation of text_pattern_ops): codes hold only [A-Z0-9.]. */
const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * Reads the patients as fixed 24-byte records (id int8, age int2, gender, payer, state 2, county 5, ZIP 5)
 * aggregated into one bytea per chunk, and the view's postings as one bytea of int8 ids per code: a few
 * large values instead of millions of rows through the driver.
 */
export async function buildPatientIndex(pool: pg.Pool, version: string, options: PatientIndexOptions = {}): Promise<PatientIndex> {
  // the request's patients (`only`) from mv_patient_diagnoses, with the attributes it copies from patients;
  // else every patient. $1 is the last id read.
  const only = new SqlParams()
  only.add(null)
  let onlyWhere = ''
  if (options.only) {
    const codes = codeConditionSql('d.icd10_code', options.only.filters, only)
    onlyWhere = [codes ?? 'true', ...patientConditions('d', options.only.filters, options.only.scope, only)].join(' AND ')
  }
  const source = options.only
    ? `SELECT DISTINCT ON (d.patient_id) d.patient_id AS id, d.age, d.gender, d.payer_type, d.state, d.county_fips, d.zip_code
       FROM mv_patient_diagnoses d WHERE d.patient_id > $1::int8 AND ${onlyWhere}`
    : 'SELECT * FROM patients WHERE id > $1::int8'
  const idsById: number[] = []
  const states = dictionary()
  const counties = dictionary()
  const zips = dictionary()
  const stateCol: number[] = []
  const countyCol: number[] = []
  const zipCol: number[] = []
  const genderCol: number[] = []
  const ageCol: number[] = []
  const payerCol: number[] = []
  let after = '-9223372036854775808'
  const chunk = servedInTurns(pool) ? CHUNK_IN_TURNS : CHUNK
  for (;;) {
    const { rows } = await pool.query<{ data: Buffer | null; last: string | null }>(recordsSql(source, String(chunk)), [
      after,
      ...only.values.slice(1),
    ])
    const data = rows[0]?.data
    if (!data || data.length === 0) break
    for (let off = 0; off + PATIENT_RECORD <= data.length; off += PATIENT_RECORD) {
      idsById.push(Number(data.readBigInt64BE(off)))
      ageCol.push(data.readInt16BE(off + 8))
      genderCol.push(data[off + 10]!)
      payerCol.push(data[off + 11]!)
      const state = data.toString('latin1', off + 12, off + 14)
      const county = data.toString('latin1', off + 14, off + 19)
      const zip = data.toString('latin1', off + 19, off + 24)
      stateCol.push(state === '~~' ? NONE8 : states.of(state))
      countyCol.push(county === '~~~~~' ? NONE16 : counties.of(county))
      zipCol.push(zip === '~~~~~' ? NONE32 : zips.of(zip))
    }
    after = rows[0]!.last!
    if (data.length < chunk * PATIENT_RECORD) break
  }
  if (states.values.length >= NONE8 || counties.values.length >= NONE16) throw new Error('Atlas index: too many states or counties')
  const size = idsById.length
  const words = (size + 31) >>> 5

  // number the patients in (state, county, ZIP area, id) order: each region is then a few runs of numbers
  const zipRank = (z: number) => (z === NONE32 ? 0x1fffff : z)
  if (zips.values.length >= 0x1fffff) throw new Error('Atlas index: too many ZIP areas')
  const keys = new Float64Array(size)
  for (let q = 0; q < size; q++) keys[q] = (stateCol[q]! * 0x10000 + countyCol[q]!) * 0x200000 + zipRank(zipCol[q]!)
  const byId = new Int32Array(size)
  for (let q = 0; q < size; q++) byId[q] = q
  byId.sort((a, b) => keys[a]! - keys[b]! || a - b)
  // byId is now the id-order position of each number: invert it
  const idOrder = byId
  const numberOf = new Int32Array(size)
  for (let p = 0; p < size; p++) numberOf[idOrder[p]!] = p
  const ids = new Float64Array(size)
  const state = new Uint8Array(size)
  const county = new Uint16Array(size)
  const zip = new Uint32Array(size)
  const gender = new Uint8Array(size)
  const age = new Int16Array(size)
  const payer = new Uint8Array(size)
  for (let p = 0; p < size; p++) {
    const q = idOrder[p]!
    ids[p] = idsById[q]!
    state[p] = stateCol[q]!
    county[p] = countyCol[q]!
    zip[p] = zipCol[q]!
    gender[p] = genderCol[q]!
    age[p] = ageCol[q]!
    payer[p] = payerCol[q]!
  }
  const runsOf = (column: ArrayLike<number>, none: number) => {
    const start: number[] = []
    const region: number[] = []
    for (let p = 0; p < size; p++) {
      if (p === 0 || column[p] !== column[p - 1]) {
        start.push(p)
        region.push(column[p] === none ? NONE32 : column[p]!)
      }
    }
    start.push(size)
    return { start: Int32Array.from(start), region: Uint32Array.from(region) }
  }
  const runs = { STATE: runsOf(state, NONE8), COUNTY: runsOf(county, NONE16), ZIP_CODE_50KM: runsOf(zip, NONE32) }
  const idToPosition = indexOfId(idsById)

  // postings: of every code; of a request's codes (or none without codes: then each of its patients has a diagnosis)
  const postings = new SqlParams()
  const postingsWhere = options.only
    ? [
        codeConditionSql('d.icd10_code', options.only.filters, postings) ?? 'true',
        ...patientConditions('d', options.only.filters, options.only.scope, postings),
      ].join(' AND ')
    : null
  const { rows: codeRows } =
    options.postings === false || (options.only && options.only.filters.codes.length === 0)
      ? { rows: [] }
      : await pool.query<{ code: Row<'mv_patient_diagnoses'>['icd10_code']; data: Buffer }>(
          `SELECT d.icd10_code AS code, string_agg(int8send(d.patient_id), ''::bytea ORDER BY d.patient_id) AS data
           FROM mv_patient_diagnoses d ${postingsWhere ? `WHERE ${postingsWhere}` : ''} GROUP BY d.icd10_code`,
          postings.values,
        )
  codeRows.sort((a, b) => byteOrder(a.code, b.code))
  const denseAt = Math.max(1, Math.ceil(size * (options.denseShare ?? 1 / 32)))
  const isDense = codeRows.map((row) => row.data.length / 8 >= denseAt)
  const total = codeRows.reduce((sum, row, i) => sum + (isDense[i] ? 0 : row.data.length / 8), 0)
  const patients = new Int32Array(total)
  const offsets = new Uint32Array(codeRows.length + 1)
  const dense = new Int32Array(codeRows.length).fill(-1)
  const bitsets: Uint32Array[] = []
  const any = new Uint32Array(words)
  let at = 0
  codeRows.forEach((row, i) => {
    offsets[i] = at
    const n = row.data.length / 8
    if (isDense[i]) {
      const bits = new Uint32Array(words)
      for (let off = 0; off < row.data.length; off += 8) {
        const p = numberOf[idToPosition(Number(row.data.readBigInt64BE(off)))]!
        bits[p >>> 5]! |= 1 << (p & 31)
      }
      dense[i] = bitsets.length
      bitsets.push(bits)
      for (let w = 0; w < words; w++) any[w]! |= bits[w]!
    } else {
      for (let off = 0; off < row.data.length; off += 8) {
        const p = numberOf[idToPosition(Number(row.data.readBigInt64BE(off)))]!
        patients[at++] = p
        any[p >>> 5]! |= 1 << (p & 31)
      }
      patients.subarray(at - n, at).sort()
    }
    row.data = Buffer.alloc(0)
  })
  offsets[codeRows.length] = at
  if (options.only && options.only.filters.codes.length === 0) setRange(any, 0, size)

  const bitsetOf = (test: (p: number) => boolean) => {
    const bits = new Uint32Array(words)
    for (let p = 0; p < size; p++) if (test(p)) bits[p >>> 5]! |= 1 << (p & 31)
    return bits
  }
  const genderBits = GENDERS.map((_, g) => bitsetOf((p) => gender[p] === g))
  const payerBits = ATLAS_PAYER_TYPES.map((_, k) => bitsetOf((p) => payer[p] === k))
  let ageLow = 0
  let ageHigh = -1
  if (size > 0) {
    ageLow = Infinity
    ageHigh = -Infinity
    for (let p = 0; p < size; p++) {
      if (age[p]! < ageLow) ageLow = age[p]!
      if (age[p]! > ageHigh) ageHigh = age[p]!
    }
  }
  let ageAtLeast: Uint32Array[] | null = null
  if ((options.ageBitsets ?? true) && ageHigh - ageLow + 1 <= MAX_AGE_BITSETS) {
    // age ≥ ageLow + k, from the oldest down: each one the previous plus the patients of that age
    const span = ageHigh - ageLow + 1
    const byAgeStart = new Int32Array(span + 1)
    for (let p = 0; p < size; p++) byAgeStart[age[p]! - ageLow + 1]!++
    for (let k = 0; k < span; k++) byAgeStart[k + 1]! += byAgeStart[k]!
    const ofAge = new Int32Array(size)
    const fill = byAgeStart.slice(0, span)
    for (let p = 0; p < size; p++) ofAge[fill[age[p]! - ageLow]!++] = p
    const byAge: Uint32Array[] = new Array<Uint32Array>(span)
    for (let k = span - 1; k >= 0; k--) {
      const bits = k === span - 1 ? new Uint32Array(words) : Uint32Array.from(byAge[k + 1]!)
      for (let i = byAgeStart[k]!; i < byAgeStart[k + 1]!; i++) {
        const p = ofAge[i]!
        bits[p >>> 5]! |= 1 << (p & 31)
      }
      byAge[k] = bits
    }
    ageAtLeast = byAge
  }

  const bitsetBytes = words * 4 * (bitsets.length + 1 + genderBits.length + payerBits.length + (ageAtLeast?.length ?? 0))
  return {
    version,
    size,
    words,
    ids,
    idOrder,
    states: states.values,
    counties: counties.values,
    zips: zips.values,
    state,
    county,
    zip,
    gender,
    age,
    payer,
    runs,
    codes: codeRows.map((row) => row.code),
    offsets,
    patients,
    dense,
    bitsets,
    any,
    genderBits,
    payerBits,
    payersPartition: payer.every((k) => k < ATLAS_PAYER_TYPES.length),
    ageAtLeast,
    ageLow,
    ageHigh,
    bytes:
      size * (8 + 4 + 1 + 2 + 4 + 1 + 2 + 1) +
      patients.byteLength +
      offsets.byteLength +
      dense.byteLength +
      bitsetBytes +
      Object.values(runs).reduce((sum, r) => sum + r.start.byteLength + r.region.byteLength, 0),
  }
}

/** id → position in id order: an offset table when the ids are dense enough, else a binary search. */
function indexOfId(ids: readonly number[]): (id: number) => number {
  const size = ids.length
  if (size === 0) return () => -1
  const base = ids[0]!
  const span = ids[size - 1]! - base + 1
  if (span <= 4 * size + 1024) {
    const table = new Int32Array(span).fill(-1)
    ids.forEach((id, i) => (table[id - base] = i))
    return (id) => {
      const i = table[id - base]
      if (i === undefined || i < 0) throw new Error(`Atlas index: patient ${id} of mv_patient_diagnoses is not in patients`)
      return i
    }
  }
  const sorted = Float64Array.from(ids)
  return (id) => {
    let lo = 0
    let hi = size - 1
    while (lo <= hi) {
      const mid = (lo + hi) >> 1
      const v = sorted[mid]!
      if (v === id) return mid
      if (v < id) lo = mid + 1
      else hi = mid - 1
    }
    throw new Error(`Atlas index: patient ${id} of mv_patient_diagnoses is not in patients`)
  }
}

/** First code ≥ `key` in bytewise order. */
function lowerBound(codes: readonly string[], key: string): number {
  let lo = 0
  let hi = codes.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (codes[mid]! < key) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** The codes that start with any of the prefixes (E11 matches E11 and E11.65): [first, end) per prefix. */
export function codeRuns(index: PatientIndex, codes: readonly string[]): [number, number][] {
  return codes.map((prefix) => [lowerBound(index.codes, prefix), lowerBound(index.codes, `${prefix}~`)])
}

/** The patient filter of a query, on the index's columns; null when nothing can match. */
export interface PatientFilter {
  gender: number
  minAge: number
  maxAge: number
  state: number
  /** ZIP dictionary indexes in scope (ZIP_CODE_50KM) */
  zipMask: Uint8Array | null
}

export async function patientFilter(
  pool: pg.Pool,
  index: PatientIndex,
  filters: AtlasFilters,
  scope: AtlasScope,
): Promise<PatientFilter | null> {
  let state = -1
  if (scope.type === 'STATE') {
    state = index.states.indexOf(scope.state!)
    if (state < 0) return null
  }
  let zipMask: Uint8Array | null = null
  if (scope.type === 'ZIP_CODE_50KM') {
    const params = new SqlParams()
    const { rows } = await pool.query<Pick<Row<'zips'>, 'zip'>>(scopeZipsSql(scope, params), params.values)
    zipMask = new Uint8Array(index.zips.length)
    const position = new Map(index.zips.map((zip, i) => [zip, i]))
    for (const { zip } of rows) {
      const i = position.get(zip)
      if (i !== undefined) zipMask[i] = 1
    }
  }
  return {
    gender: filters.gender === null ? -1 : GENDERS.indexOf(filters.gender),
    minAge: filters.minAge ?? -Infinity,
    maxAge: filters.maxAge ?? Infinity,
    state,
    zipMask,
  }
}

/** Sets bits start .. end-1. */
function setRange(bits: Uint32Array, start: number, end: number): void {
  if (start >= end) return
  const first = start >>> 5
  const last = (end - 1) >>> 5
  const head = ~0 << (start & 31)
  const tail = ~0 >>> (31 - ((end - 1) & 31))
  if (first === last) {
    bits[first]! |= head & tail
    return
  }
  bits[first]! |= head
  for (let w = first + 1; w < last; w++) bits[w] = ~0
  bits[last]! |= tail
}

function and(target: Uint32Array, mask: Uint32Array): void {
  for (let w = 0; w < target.length; w++) target[w]! &= mask[w]!
}

/** Keeps the patients of the runs whose region passes `keep`. */
function keepRuns(
  index: PatientIndex,
  target: Uint32Array,
  runs: { start: Int32Array; region: Uint32Array },
  keep: (region: number) => boolean,
) {
  const mask = new Uint32Array(index.words)
  for (let r = 0; r < runs.region.length; r++)
    if (runs.region[r] !== NONE32 && keep(runs.region[r]!)) setRange(mask, runs.start[r]!, runs.start[r + 1]!)
  and(target, mask)
}

/**
 * The patients of the query as a bitset over the patient numbers: any of the code prefixes (every patient
 * with a diagnosis when there are none), passing the filter. The codes' bitsets are ORed word by word, the
 * postings of the others set bit by bit; the filters are ANDed (gender, age ≥ min, not age ≥ max + 1, the
 * runs of the state or of the ZIP areas in scope). No list of patients is materialised.
 */
export function selectPatients(index: PatientIndex, codes: readonly string[], filter: PatientFilter): Uint32Array {
  const union = codeUnion(index, codes)
  const minAge = Math.ceil(filter.minAge)
  const maxAge = Math.floor(filter.maxAge)
  const ageFiltered = minAge > index.ageLow || maxAge < index.ageHigh
  if (ageFiltered && (minAge > index.ageHigh || maxAge < index.ageLow || minAge > maxAge)) return new Uint32Array(union.length)
  // the union copied through the masks that apply (gender, age ≥ min, not age ≥ max + 1) in one pass
  const all = index.any
  const gender = filter.gender >= 0 ? index.genderBits[filter.gender]! : all
  const ages = ageFiltered ? index.ageAtLeast : null
  const atLeast = ages && minAge > index.ageLow ? ages[minAge - index.ageLow]! : all
  const above = ages && maxAge < index.ageHigh ? ages[maxAge + 1 - index.ageLow]! : null
  const out = new Uint32Array(union.length)
  if (above) for (let w = 0; w < out.length; w++) out[w] = union[w]! & gender[w]! & atLeast[w]! & ~above[w]!
  else for (let w = 0; w < out.length; w++) out[w] = union[w]! & gender[w]! & atLeast[w]!
  if (ageFiltered && !index.ageAtLeast) {
    const { age } = index
    forEachBit(out, (p) => {
      if (age[p]! < minAge || age[p]! > maxAge) out[p >>> 5]! &= ~(1 << (p & 31))
    })
  }
  if (filter.state >= 0) keepRuns(index, out, index.runs.STATE, (s) => s === filter.state)
  const { zipMask } = filter
  if (zipMask) keepRuns(index, out, index.runs.ZIP_CODE_50KM, (z) => zipMask[z] === 1)
  return out
}

/**
 * The patients with any of the code prefixes (every patient with a diagnosis when there are none), as a bitset.
 * The union of a code set is kept with the index, for the last `CODE_UNIONS_KEPT` code sets
 * (docs/decisions/0066): a query of the same conditions with other demographics, another scope or granularity,
 * its tiles and its drill-downs then start from it instead of ORing the codes' bitsets and postings again (about
 * 5 ms for ten common codes at the full scale). The index never changes, so neither does a union; callers copy it.
 */
function codeUnion(index: PatientIndex, codes: readonly string[]): Uint32Array {
  if (codes.length === 0) return index.any
  const key = [...new Set(codes)].sort().join(',')
  let unions = codeUnions.get(index)
  if (!unions) codeUnions.set(index, (unions = new Map()))
  const kept = unions.get(key)
  if (kept) {
    unions.delete(key)
    unions.set(key, kept)
    return kept
  }
  const { words, dense, bitsets, offsets, patients } = index
  const out = new Uint32Array(words)
  for (const [first, end] of codeRuns(index, codes)) {
    for (let i = first; i < end; i++) {
      const d = dense[i]!
      if (d >= 0) {
        const bits = bitsets[d]!
        for (let w = 0; w < words; w++) out[w]! |= bits[w]!
      } else {
        for (let k = offsets[i]!, stop = offsets[i + 1]!; k < stop; k++) {
          const p = patients[k]!
          out[p >>> 5]! |= 1 << (p & 31)
        }
      }
    }
  }
  unions.set(key, out)
  while (unions.size > CODE_UNIONS_KEPT) unions.delete(unions.keys().next().value as string)
  return out
}
/** 16 unions: 4 MiB at the full scale (2 M patients: 244 KiB a bitset) */
const CODE_UNIONS_KEPT = 16
const codeUnions = new WeakMap<PatientIndex, Map<string, Uint32Array>>()

/** Calls `visit` for every set bit, in increasing order. */
export function forEachBit(bits: Uint32Array, visit: (p: number) => void): void {
  for (let w = 0; w < bits.length; w++) {
    let word = bits[w]!
    while (word !== 0) {
      const low = word & -word
      visit((w << 5) + 31 - Math.clz32(low))
      word ^= low
    }
  }
}

/** Set bits of each 16-bit value: a table look-up counts a word in two reads (about twice the speed of SWAR here). */
const POPCOUNT16 = new Uint8Array(1 << 16)
for (let v = 1; v < POPCOUNT16.length; v++) POPCOUNT16[v] = (v & 1) + POPCOUNT16[v >>> 1]!

/** Set bits of a 32-bit word. */
export function popcount(v: number): number {
  return POPCOUNT16[v & 0xffff]! + POPCOUNT16[v >>> 16]!
}

/**
 * Patients per region: `counts` holds for each of `names` [patients, then one count per payer type
 * (ATLAS_PAYER_TYPES order)]; a region not named, or counted 0, has none.
 */
export interface RegionCounts {
  names: readonly string[]
  counts: Uint32Array
}

const positionsByNames = new WeakMap<readonly string[], Map<string, number>>()

/** Each name's position (kept per names array: the index's region names never change). */
export function regionPositions(names: readonly string[]): ReadonlyMap<string, number> {
  let positions = positionsByNames.get(names)
  if (!positions) positionsByNames.set(names, (positions = new Map(names.map((name, i) => [name, i]))))
  return positions
}

/** Distinct patients per region of the granularity with their payers (services/atlas/generic.ts countByRegion). */
export function countWithIndex(
  index: PatientIndex,
  filters: AtlasFilters,
  filter: PatientFilter,
  granularity: TileGranularity,
): RegionCounts {
  const names = granularity === 'STATE' ? index.states : granularity === 'COUNTY' ? index.counties : index.zips
  return { names, counts: countRuns(index, selectPatients(index, filters.codes, filter), granularity) }
}

/** The regions with patients as a map (the tests compare it with a recount in SQL). */
export function regionCountsMap({ names, counts }: RegionCounts): Map<string, { patients: number; payers: PayerCounts }> {
  const width = ATLAS_PAYER_TYPES.length + 1
  const result = new Map<string, { patients: number; payers: PayerCounts }>()
  names.forEach((name, i) => {
    const n = counts[i * width]!
    if (n === 0) return
    const payers = { commercial: 0, medicare: 0, medicaid: 0, other: 0 }
    ATLAS_PAYER_TYPES.forEach((type, k) => (payers[type] = counts[i * width + 1 + k]!))
    result.set(name, { patients: n, payers })
  })
  return result
}

/**
 * Per region of the granularity [patients, then one count per payer type]: the popcount of the selection
 * (and of the selection AND each payer's bitset) over each run of the region.
 */
export function countRuns(index: PatientIndex, selected: Uint32Array, granularity: TileGranularity): Uint32Array {
  const names = granularity === 'STATE' ? index.states : granularity === 'COUNTY' ? index.counties : index.zips
  const width = ATLAS_PAYER_TYPES.length + 1
  const counts = new Uint32Array(names.length * width)
  const { start, region } = index.runs[granularity]
  const [p0, p1, p2, p3] = index.payerBits as [Uint32Array, Uint32Array, Uint32Array, Uint32Array]
  if (ATLAS_PAYER_TYPES.length !== 4) throw new Error('Atlas index: four payer types expected')
  const partition = index.payersPartition
  for (let r = 0; r < region.length; r++) {
    const g = region[r]!
    if (g === NONE32) continue
    const s = start[r]!
    const e = start[r + 1]!
    const first = s >>> 5
    const last = (e - 1) >>> 5
    let n = 0
    let c0 = 0
    let c1 = 0
    let c2 = 0
    let c3 = 0
    for (let w = first; w <= last; w++) {
      let word = selected[w]!
      if (word === 0) continue
      if (w === first) word &= ~0 << (s & 31)
      if (w === last) word &= ~0 >>> (31 - ((e - 1) & 31))
      if (word === 0) continue
      n += popcount(word)
      c0 += popcount(word & p0[w]!)
      c1 += popcount(word & p1[w]!)
      c2 += popcount(word & p2[w]!)
      if (!partition) c3 += popcount(word & p3[w]!)
    }
    if (partition) c3 = n - c0 - c1 - c2
    if (n === 0) continue
    const at = g * width
    counts[at]! += n
    counts[at + 1]! += c0
    counts[at + 2]! += c1
    counts[at + 3]! += c2
    counts[at + 4]! += c3
  }
  return counts
}

/**
 * The index of the current data version, or null while it is being built (the engine's rows come from the
 * database meanwhile). `wait` awaits the build instead (tests, the bench's warm-up).
 */
export const currentPatientIndex = versionedBuild(
  (pool, version) =>
    oneBuildAtATime(() =>
      timedBuild('atlas_patient_index', buildPatientIndex(pool, version)).then((index) => {
        // from now on the index answers EVERY_PATIENT: the rows kept while it built are let go
        if (everyPatient?.primary === primaryOf(pool) && everyPatient.version === version) everyPatient = null
        return index
      }),
    ),
  'atlas_patient_index',
)

/**
 * The Atlas patient engine (docs/decisions/0080): while the index builds, an index of the request's patients only,
 * read from the database (`pool`: the request's reader, a replica at its data version or the primary) by the same
 * builder. countWithIndex counts either; patients outside the request are never selected by it. EVERY_PATIENT reads
 * the whole patients table as the build does, without the postings and age bitsets: its only use is `size`.
 */
export const atlasPatients = versionedEngine('atlas_patient_index', currentPatientIndex, (pool, version, query: PatientRowsQuery) =>
  query === EVERY_PATIENT ? everyPatientRows(pool, version) : buildPatientIndex(pool, version, { only: query }),
)

/**
 * EVERY_PATIENT's rows read from the database, kept for their data version while its index builds: at the full scale
 * they are the whole patients table (about 48 MB without postings), so the Atlas home's requests during a build
 * share one read instead of each making its own. Let go when the version's index is built (currentPatientIndex).
 */
let everyPatient: { primary: pg.Pool; version: string; rows: Promise<PatientIndex> } | null = null

function everyPatientRows(pool: pg.Pool, version: string): Promise<PatientIndex> {
  const primary = primaryOf(pool)
  if (everyPatient?.primary === primary && everyPatient.version === version) return everyPatient.rows
  const rows = buildPatientIndex(pool, version, { postings: false, ageBitsets: false })
  const kept = { primary, version, rows }
  everyPatient = kept
  rows.catch(() => {
    if (everyPatient === kept) everyPatient = null
  })
  return rows
}

/** The ids of the selected patients, ascending (for reading their claims). */
export function selectedIds(index: PatientIndex, selected: Uint32Array): number[] {
  const ids: number[] = []
  forEachBit(selected, (p) => ids.push(index.ids[p]!))
  return ids.sort((a, b) => a - b)
}
