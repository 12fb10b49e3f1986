import { ATLAS_PAYER_TYPES, type TileGranularity } from '@citrus/contracts'
import type pg from 'pg'
import type { PayerCounts } from './generic.js'
import { scopeZipsSql, SqlParams, type AtlasFilters, type AtlasScope } from './query.js'
import { versionedBuild } from './versioned-build.js'

/**
 * The in-process patient index of Atlas (docs/decisions/0043): mv_patient_diagnoses (one row per patient
 * and diagnosis code, refreshed by every data load) held as columns, so that counting distinct patients per
 * region over a union of code prefixes never scans claims or the view per request.
 *
 * - patients are numbered 0..n-1 in id order; per patient typed arrays of state, county, ZIP area, gender,
 *   age and payer (dictionary indexes);
 * - per ICD-10 code (sorted, so a prefix is one contiguous run of codes) the sorted patient numbers that
 *   carry it (postings, all in one Int32Array);
 * - a query marks the patients of the codes' postings with a generation stamp (the union, each patient
 *   once), tests the filters on the typed arrays and counts per region and payer.
 *
 * Built lazily from the database (the truth) and keyed by the data version: a finished seed or import
 * makes a new version, and the next request builds a new index while the old one (or SQL) still answers.
 */
export interface PatientIndex {
  version: string
  size: number
  /** patient ids in number order */
  ids: Float64Array
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
  /** ICD-10 codes in text order (the order of the view's text_pattern_ops index: bytewise) */
  codes: string[]
  /** postings of code i: patients[offsets[i] .. offsets[i+1]) */
  offsets: Uint32Array
  patients: Int32Array
  /** patients with any diagnosis (the union of all postings) */
  any: Int32Array
  /** generation stamps of the union (a query runs synchronously, so one array serves every query) */
  mark: Uint32Array
  generation: number
  bytes: number
}

export const NONE8 = 0xff
const NONE16 = 0xffff
const NONE32 = 0xffffffff
const GENDERS = ['M', 'F'] as const
const PATIENT_RECORD = 24
const CHUNK = 250_000

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
export async function buildPatientIndex(pool: pg.Pool, version: string): Promise<PatientIndex> {
  const ids: number[] = []
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
  for (;;) {
    const { rows } = await pool.query<{ data: Buffer | null; last: string | null }>(
      `SELECT string_agg(int8send(p.id) || int2send(least(greatest(p.age, -32768), 32767)::int2)
                || CASE p.gender WHEN 'M' THEN '\\x00'::bytea WHEN 'F' THEN '\\x01'::bytea ELSE '\\x02'::bytea END
                || CASE p.payer_type ${ATLAS_PAYER_TYPES.map((payer, i) => `WHEN '${payer}' THEN '\\x0${i}'::bytea`).join(' ')} ELSE '\\xff'::bytea END
                || convert_to(rpad(coalesce(p.state, '~~'), 2, '~'), 'UTF8')
                || convert_to(rpad(coalesce(p.county_fips, '~~~~~'), 5, '~'), 'UTF8')
                || convert_to(rpad(coalesce(p.zip_code, '~~~~~'), 5, '~'), 'UTF8'), ''::bytea ORDER BY p.id) AS data,
              max(p.id)::text AS last
       FROM (SELECT * FROM patients WHERE id > $1::int8 ORDER BY id LIMIT ${CHUNK}) p`,
      [after],
    )
    const data = rows[0]?.data
    if (!data || data.length === 0) break
    for (let off = 0; off + PATIENT_RECORD <= data.length; off += PATIENT_RECORD) {
      ids.push(Number(data.readBigInt64BE(off)))
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
    if (data.length < CHUNK * PATIENT_RECORD) break
  }
  if (states.values.length >= NONE8 || counties.values.length >= NONE16) throw new Error('Atlas index: too many states or counties')
  const size = ids.length
  const idToIndex = indexOfId(ids)

  const { rows: codeRows } = await pool.query<{ code: string; data: Buffer }>(
    `SELECT icd10_code AS code, string_agg(int8send(patient_id), ''::bytea ORDER BY patient_id) AS data
     FROM mv_patient_diagnoses GROUP BY icd10_code`,
  )
  codeRows.sort((a, b) => byteOrder(a.code, b.code))
  const total = codeRows.reduce((sum, row) => sum + row.data.length / 8, 0)
  const patients = new Int32Array(total)
  const offsets = new Uint32Array(codeRows.length + 1)
  const seen = new Uint8Array(size)
  let anyCount = 0
  let at = 0
  codeRows.forEach((row, i) => {
    offsets[i] = at
    for (let off = 0; off < row.data.length; off += 8) {
      const p = idToIndex(Number(row.data.readBigInt64BE(off)))
      patients[at++] = p
      if (!seen[p]) {
        seen[p] = 1
        anyCount++
      }
    }
    row.data = Buffer.alloc(0)
  })
  offsets[codeRows.length] = at
  const any = new Int32Array(anyCount)
  for (let p = 0, k = 0; p < size; p++) if (seen[p]) any[k++] = p

  const index: PatientIndex = {
    version,
    size,
    ids: Float64Array.from(ids),
    states: states.values,
    counties: counties.values,
    zips: zips.values,
    state: Uint8Array.from(stateCol),
    county: Uint16Array.from(countyCol),
    zip: Uint32Array.from(zipCol),
    gender: Uint8Array.from(genderCol),
    age: Int16Array.from(ageCol),
    payer: Uint8Array.from(payerCol),
    codes: codeRows.map((row) => row.code),
    offsets,
    patients,
    any,
    mark: new Uint32Array(size),
    generation: 0,
    bytes: 0,
  }
  index.bytes = size * (8 + 1 + 2 + 4 + 1 + 2 + 1 + 4 + 4) + patients.byteLength + offsets.byteLength + any.byteLength
  return index
}

/** id → patient number: an offset table when the ids are dense enough, else a binary search. */
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

/** The runs of postings of the codes that start with any of the prefixes (E11 matches E11 and E11.65). */
export function postingRuns(index: PatientIndex, codes: readonly string[]): [number, number][] {
  return codes.map((prefix) => {
    const first = lowerBound(index.codes, prefix)
    const end = lowerBound(index.codes, `${prefix}~`)
    return [index.offsets[first]!, index.offsets[end]!]
  })
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
    const { rows } = await pool.query<{ zip: string }>(scopeZipsSql(scope, params), params.values)
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

/**
 * Calls `visit` once for every patient of the query: any of the code prefixes (every patient with a
 * diagnosis when there are none), passing the filter.
 */
export function forEachPatient(index: PatientIndex, codes: readonly string[], filter: PatientFilter, visit: (p: number) => void): void {
  const passes = passesFilter(index, filter)
  if (codes.length === 0) {
    for (const p of index.any) if (passes(p)) visit(p)
    return
  }
  const runs = postingRuns(index, codes)
  if (++index.generation >= NONE32) {
    index.mark.fill(0)
    index.generation = 1
  }
  const g = index.generation
  const { mark, patients } = index
  for (const [start, end] of runs) {
    for (let k = start; k < end; k++) {
      const p = patients[k]!
      if (mark[p] === g) continue
      mark[p] = g
      if (passes(p)) visit(p)
    }
  }
}

/** The filter as a predicate on a patient number. */
export function passesFilter(index: PatientIndex, filter: PatientFilter): (p: number) => boolean {
  const { gender, age, state, zip } = index
  const { zipMask } = filter
  return (p) =>
    (filter.gender < 0 || gender[p] === filter.gender) &&
    age[p]! >= filter.minAge &&
    age[p]! <= filter.maxAge &&
    (filter.state < 0 || state[p] === filter.state) &&
    (zipMask === null || (zip[p] !== NONE32 && zipMask[zip[p]!] === 1))
}

/** Distinct patients per region of the granularity with their payers: what countByRegion counts in SQL. */
export function countWithIndex(
  index: PatientIndex,
  filters: AtlasFilters,
  filter: PatientFilter,
  granularity: TileGranularity,
): Map<string, { patients: number; payers: PayerCounts }> {
  const [column, names, none] =
    granularity === 'STATE'
      ? [index.state, index.states, NONE8]
      : granularity === 'COUNTY'
        ? [index.county, index.counties, NONE16]
        : [index.zip, index.zips, NONE32]
  const width = ATLAS_PAYER_TYPES.length + 1
  const counts = new Uint32Array(names.length * width)
  const { payer } = index
  forEachPatient(index, filters.codes, filter, (p) => {
    const region = column[p]!
    if (region === none) return
    counts[region * width]! += 1
    const kind = payer[p]!
    if (kind !== NONE8) counts[region * width + 1 + kind]! += 1
  })
  const result = new Map<string, { patients: number; payers: PayerCounts }>()
  names.forEach((name, i) => {
    const n = counts[i * width]!
    if (n === 0) return
    const payers = Object.fromEntries(ATLAS_PAYER_TYPES.map((type, k) => [type, counts[i * width + 1 + k]!])) as unknown as PayerCounts
    result.set(name, { patients: n, payers })
  })
  return result
}

/**
 * The index of the current data version, or null while it is being built (the caller answers from SQL
 * meanwhile). `wait` awaits the build instead (tests, the bench's warm-up).
 */
export const currentPatientIndex = versionedBuild(buildPatientIndex)
