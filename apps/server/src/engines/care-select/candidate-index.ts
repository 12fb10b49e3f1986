import type pg from 'pg'
import { kyselyOf, type Row } from '../../db/kysely.js'
import { readPool, servedInTurns } from '../../db/replicas.js'
import { boundingBox } from '../../lib/bounding-box.js'
import { compareDataVersions, readDataVersion } from '../../lib/versioned-cache.js'
import { holdEngine, releaseEngine, touchEngine } from '../../lib/engine-budget.js'
import { oneBuildAtATime } from '../../lib/build-queue.js'
import { reportEngineMemory, timedBuild } from '../../lib/engine-stats.js'
import { haversineTerm, haversineTermOf, reducedLatitude, SPHERE_MARGIN, spheroidDistanceReduced, toRadians } from './geodesic.js'
import { ascendingOrder } from './order.js'
import { clinicianPriceRows, payerFileRates, PRICE_ROWS_JSON, type PriceRow as PricingRow } from '../../services/pricing/pricing.js'
import type { Engine } from '../engine.js'

/**
 * The in-process candidate index of Care Select (docs/decisions/0050): per specialty, the providers' point,
 * kind, facility, new-patient flag and networks as columns sorted by latitude, their code volumes
 * (mv_provider_code_volume), prices (mv_provider_prices) and carrier rates (payers' files, docs/decisions/0081); and
 * every facility's point and type. A search finds its candidates (exactly those whose spheroid distance to the ZIP
 * centroid is within the radius, as ST_Distance measures it) and scores every one of them without reading the
 * providers table or the views.
 *
 * Built from the database (the truth) on the first search of a specialty and kept per data version: a finished
 * seed or import makes a new version, whose first search builds afresh. Versions move forward only
 * (compareDataVersions): a search that read an older version than the one held is answered from what is held, or
 * from an index built for it alone, and never replaces the newer indexes. At most
 * CANDIDATE_INDEX_MAX_PROVIDERS providers are held (least recently used specialties go first).
 *
 * The engine (engines/engine.ts, docs/decisions/0080) is `careSelectCandidates`: its rows for a search are the
 * specialty's index and the facilities' points. A specialty searched for the first time (or after an eviction, or
 * at a new data version) is read from the database (its providers, volumes and prices) and indexed by
 * indexFromRows, the same function for every source, then held; the scoring (services/care-select/score.ts) is one
 * function over those columns.
 */

export const CANDIDATE_INDEX_MAX_PROVIDERS = 1_500_000

/** The bound on held providers (CANDIDATE_INDEX_MAX_PROVIDERS; tests lower it). */
let maxProviders = CANDIDATE_INDEX_MAX_PROVIDERS

/** Sets the bound on held providers (tests); returns the previous one. */
export function setCandidateIndexMaxProviders(max: number): number {
  const previous = maxProviders
  maxProviders = max
  return previous
}

export interface SpecialtyIndex {
  taxonomy: string
  size: number
  /** NPIs in latitude order (the order of every column) */
  npi: string[]
  lat: Float64Array
  lng: Float64Array
  latRad: Float64Array
  lngRad: Float64Array
  cosLat: Float64Array
  /** sine and cosine of the reduced latitude (the spheroid distance's per-point terms) */
  sinU: Float64Array
  cosU: Float64Array
  kinds: string[]
  kind: Uint8Array
  /** affiliated facility id, -1 without */
  facility: Int32Array
  /** the affiliated facility as a position in `facilityIds` (the specialty's distinct facilities), -1 without */
  facilityLocal: Int32Array
  facilityIds: Int32Array
  accepting: Uint8Array
  /** insurer name → bit of `networks` (words per provider: `words`) */
  insurerBit: Map<string, number>
  words: number
  networks: Uint32Array
  /**
   * Code volumes (mv_provider_code_volume) of the specialty's providers: provider i's rows are
   * volumeCode/volumeCount[volumeStart[i] .. volumeStart[i + 1]); codes[id] is `kind:code`.
   */
  codes: string[]
  /** `kind:code` → its id in `codes` */
  codeId: Map<string, number>
  /** per code id: 0 procedure, 1 icd10, 2 other kind; and the code without its kind */
  codeKind: Uint8Array
  codeValue: string[]
  /** code ids in the order of their `kind:code` keys (a prefix's codes are one run) */
  codesSorted: Int32Array
  volumeStart: Int32Array
  volumeCode: Int32Array
  volumeCount: Int32Array
  /**
   * Prices (mv_provider_prices) of the specialty's providers: provider i's rows are
   * price*[priceStart[i] .. priceStart[i + 1]); priceCodes[id] is the procedure code.
   */
  priceCodes: string[]
  priceCodeId: Map<string, number>
  priceStart: Int32Array
  priceCode: Int32Array
  priceList: Float64Array
  priceNegotiated: Float64Array
  priceInsurer: Float64Array
  pricePatient: Float64Array
  /**
   * Per price row, the rank of its negotiated and of its patient price among the specialty's rows of the same
   * procedure, dearest first (equal prices, equal ranks): affordability among any subset is counted on these.
   */
  priceNegotiatedRank: Uint32Array
  pricePatientRank: Uint32Array
  /**
   * Carrier prices (docs/decisions/0081): each provider's negotiated dollar rate of a code for a payer from the payers'
   * Transparency-in-Coverage files, as the pricing module computes it (payerFileRates over the rows PAYER_RATE_SQL
   * reads): provider i's are payerRate*[payerRateStart[i] .. payerRateStart[i + 1]); the code is an id of
   * `priceCodes`, the payer an id of `payers` (lower-cased names).
   */
  payers: string[]
  payerId: Map<string, number>
  payerRateStart: Int32Array
  payerRateCode: Int32Array
  payerRatePayer: Int32Array
  payerRate: Float64Array
}

/** A facility's location with the terms its distances share (as a search's centre has them). */
export interface FacilityPoint extends CentreTerms {
  type: string
  npi: string | null
}

interface HeldSpecialty {
  size: number
  promise: Promise<SpecialtyIndex>
  /** the index once built */
  index: SpecialtyIndex | null
}

interface Held {
  version: string
  specialties: Map<string, HeldSpecialty>
  facilities: Promise<Map<number, FacilityPoint>> | null
  /** the facilities' points once read */
  facilityIndex: Map<number, FacilityPoint> | null
}

const held = new WeakMap<pg.Pool, Held>()

/**
 * What is held for `version`: a newer version than the one held replaces it (its indexes are dropped); the held
 * version itself; or, for an older one, `stale` (the held state of the newer version, to be read, never changed).
 */
function slotOf(pool: pg.Pool, version: string): { slot: Held; stale: boolean } {
  let slot = held.get(pool)
  if (slot && compareDataVersions(version, slot.version) < 0) return { slot, stale: true }
  if (!slot || slot.version !== version) {
    for (const e of slot?.specialties.values() ?? []) releaseEngine(e)
    slot = { version, specialties: new Map(), facilities: null, facilityIndex: null }
    held.set(pool, slot)
  }
  return { slot, stale: false }
}

const evictionListeners = new WeakMap<pg.Pool, (index: SpecialtyIndex) => void>()

/** Calls `listener` with every index the bound evicts (the result cache drops its entries on it). */
export function onSpecialtyEvicted(pool: pg.Pool, listener: (index: SpecialtyIndex) => void): void {
  evictionListeners.set(pool, listener)
}

/**
 * Bytes of the specialty indexes held for a pool (GET /metrics): their typed arrays, and their string arrays at 32
 * bytes a string plus 2 a character (an estimate).
 */
export function indexBytes(index: SpecialtyIndex): number {
  let bytes = 0
  for (const value of Object.values(index)) {
    if (ArrayBuffer.isView(value)) bytes += value.byteLength
    else if (Array.isArray(value)) for (const item of value) bytes += typeof item === 'string' ? 32 + item.length * 2 : 8
  }
  return bytes
}
/** Bytes of the specialty indexes held for a pool. */
function heldBytes(pool: pg.Pool): number {
  return [...(held.get(pool)?.specialties.values() ?? [])].reduce((sum, e) => sum + (e.index ? indexBytes(e.index) : 0), 0)
}
reportEngineMemory('care_select_candidates', heldBytes)

/** The bound on held providers now (CANDIDATE_INDEX_MAX_PROVIDERS unless a test lowered it). */
export function candidateIndexMaxProviders(): number {
  return maxProviders
}

/**
 * The specialty's index when it is built and held for exactly `version`, else null; never starts a build and does not
 * mark it used (the warm-up's and the tests' check, services/care-select/warm.ts).
 */
export function heldSpecialtyIndex(pool: pg.Pool, version: string, taxonomy: string): SpecialtyIndex | null {
  const slot = held.get(pool)
  return slot?.version === version ? (slot.specialties.get(taxonomy)?.index ?? null) : null
}

/** Providers held (or being built) for `version` over every specialty: what counts against the bound. */
export function heldProviders(pool: pg.Pool, version: string): number {
  const slot = held.get(pool)
  if (slot?.version !== version) return 0
  let total = 0
  for (const e of slot.specialties.values()) total += e.size
  return total
}

/** Indexes of a search's area (readSpecialtyRows with an area): private to the scoring made from them. */
const areaIndexes = new WeakSet<SpecialtyIndex>()

/** Whether `index` holds one search's area only (made while the specialty's index built), not a whole specialty. */
export function isAreaIndex(index: SpecialtyIndex): boolean {
  return areaIndexes.has(index)
}

/** Whether `index` is the index held now for its specialty (not evicted, not of a replaced data version). */
export function isHeldIndex(pool: pg.Pool, index: SpecialtyIndex): boolean {
  return held.get(pool)?.specialties.get(index.taxonomy)?.index === index
}

const SPECIALTY_SQL = `
SELECT p.npi, p.latitude, p.longitude, p.provider_kind, p.facility_id, p.accepting_new_patients,
       p.aggregated_insurance_networks_v1 AS networks
FROM providers p
WHERE p.primary_taxonomy_code = $1
ORDER BY p.latitude, p.npi`

/** A provider of the specialty as SPECIALTY_SQL reads it (its networks: aggregated_insurance_networks_v1). */
export type ProviderRow = Pick<
  Row<'providers'>,
  'npi' | 'latitude' | 'longitude' | 'provider_kind' | 'facility_id' | 'accepting_new_patients'
> & {
  // jsonb (unknown in Row<'providers'>): the insurer → in-network object the loads write
  networks: Record<string, boolean> | null
}
type Volume = Row<'mv_provider_code_volume'>
/** A row of mv_provider_code_volume (VOLUME_SQL, array mode): npi, code kind, code, claim count. */
export type VolumeRow = [Volume['npi'], Volume['code_kind'], Volume['code'], Volume['claim_count']]
type Prices = Row<'mv_provider_prices'>
/** An average amount of PRICE_SQL: numeric, text from the database, never NULL where line_count > 0 (a number in tests' rows). */
type AverageAmount = NonNullable<Prices['avg_list_amount']> | number
/**
 * A row of mv_provider_prices (PRICE_SQL, array mode): npi, procedure code, line count, the average list, negotiated,
 * insurer and patient amounts.
 */
export type PriceRow = [
  Prices['npi'],
  Prices['procedure_code'],
  Prices['line_count'],
  AverageAmount,
  AverageAmount,
  AverageAmount,
  AverageAmount,
]
/** A provider's payer-file rows (PAYER_RATE_SQL, array mode): npi, its rows as the pricing module reads them. */
export type PayerRateRow = [NonNullable<Row<'tic_rates'>['npi']>, PricingRow[]]

/** A specialty's rows as the database holds them: what indexFromRows indexes. */
export interface SpecialtyRows {
  providers: ProviderRow[]
  volumes: VolumeRow[]
  prices: PriceRow[]
  payerRates: PayerRateRow[]
}

/**
 * Reads the specialty's providers, code volumes, prices and payer-file rates in one snapshot (a read-only REPEATABLE READ
 * transaction), so a load that finishes meanwhile cannot pair one version's providers with another's volumes. On the
 * embedded database (servedInTurns) a transaction would hold every request back for the four reads: they run as
 * statements of their own there, and again when a data load finished in between.
 */
export async function readSpecialtyRows(pool: pg.Pool, taxonomy: string, area?: Area): Promise<SpecialtyRows> {
  // a read replica that has replayed what the primary holds now (the request's version or newer), else the primary
  const reader = await readPool(pool)
  if (servedInTurns(reader)) {
    for (;;) {
      const before = await readDataVersion(reader)
      const rows = await readRows(reader, taxonomy, area)
      if ((await readDataVersion(reader)) === before) return rows
    }
  }
  const client = await reader.connect()
  let failed = true
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
    const rows = await readRows(client, taxonomy, area)
    await client.query('COMMIT')
    failed = false
    return rows
  } finally {
    if (failed) await client.query('ROLLBACK').catch(() => undefined)
    client.release()
  }
}

/**
 * A search's part of a specialty: its providers within `radiusM` of the point (and a margin: a superset, which
 * findCandidates narrows to exactly the radius as it does on the whole specialty's index).
 */
export interface Area {
  lat: number
  lng: number
  radiusM: number
}

/** The area's margin over the radius: the statement's box or geography test may round otherwise than findCandidates. */
const AREA_MARGIN_M = 100

type RowStatements = Record<'providers' | 'volumes' | 'prices' | 'payerRates', string>
const areaStatements = new Map<'box' | 'distance', RowStatements>()

/**
 * Each statement of the specialty's rows with its provider test ($1 the taxonomy). For an area, the providers are
 * those in a latitude/longitude box around it ($2-$5: south, north, west, east), a superset of the radius that
 * findCandidates narrows exactly, as it does on the whole specialty's index: the (primary_taxonomy_code, latitude,
 * longitude) index finds them (the geography index would read every provider of a metro, 0.3 M rows in 30 miles of
 * Brooklyn, to AND with the specialty's). Where no box bounds the radius (a pole, the antimeridian), ST_DWithin
 * ($2-$4: latitude, longitude, metres). The other three read the rows of the NPIs found ($2).
 */
function rowStatements(area: 'box' | 'distance' | null): RowStatements {
  if (!area) return { providers: SPECIALTY_SQL, volumes: VOLUME_SQL, prices: PRICE_SQL, payerRates: PAYER_RATE_SQL }
  let statements = areaStatements.get(area)
  if (!statements) {
    const test = 'p.primary_taxonomy_code = $1'
    const where =
      area === 'box'
        ? 'p.latitude BETWEEN $2 AND $3 AND p.longitude BETWEEN $4 AND $5'
        : 'ST_DWithin(p.geog, ST_SetSRID(ST_MakePoint($3, $2), 4326)::geography, $4)'
    statements = {
      providers: SPECIALTY_SQL.replace(test, `${test} AND ${where}`),
      volumes: VOLUME_SQL.replace(test, `${test} AND p.npi = ANY($2::bpchar[])`),
      prices: PRICE_SQL.replace(test, `${test} AND p.npi = ANY($2::bpchar[])`),
      payerRates: PAYER_RATE_SQL.replace(test, `${test} AND p.npi = ANY($2::bpchar[])`),
    }
    areaStatements.set(area, statements)
  }
  return statements
}

async function readRows(db: pg.Pool | pg.PoolClient, taxonomy: string, area?: Area): Promise<SpecialtyRows> {
  const reach = area ? area.radiusM + AREA_MARGIN_M : 0
  const box = area ? boundingBox(area.lat, area.lng, reach) : null
  const sql = rowStatements(!area ? null : box ? 'box' : 'distance')
  const values = !area ? [taxonomy] : box ? [taxonomy, ...box] : [taxonomy, area.lat, area.lng, reach]
  const { rows: providers } = await db.query<ProviderRow>(sql.providers, values)
  const rowValues = area ? [taxonomy, providers.map((p) => p.npi)] : values
  const array = (text: string) => db.query({ text, values: rowValues, rowMode: 'array' } as pg.QueryConfig<unknown[]>)
  const volumes = (await array(sql.volumes)).rows as unknown as VolumeRow[]
  const prices = (await array(sql.prices)).rows as unknown as PriceRow[]
  const payerRates = (await array(sql.payerRates)).rows as unknown as PayerRateRow[]
  return { providers, volumes, prices, payerRates }
}

/**
 * The specialty's index from its rows read from the database (readSpecialtyRows, then indexFromRows); with an area,
 * the index of the area's providers only (what a search reads while its specialty's index builds).
 */
async function buildSpecialty(pool: pg.Pool, taxonomy: string, area?: Area): Promise<SpecialtyIndex> {
  const { providers, volumes, prices, payerRates } = await readSpecialtyRows(pool, taxonomy, area)
  const index = indexFromRows(taxonomy, providers, volumes, prices, payerRates)
  if (area) areaIndexes.add(index)
  return index
}

/** A specialty index from rows as the build reads them (providers in latitude order, then NPI). */
export function indexFromRows(
  taxonomy: string,
  providers: ProviderRow[],
  volumes: VolumeRow[],
  prices: PriceRow[],
  payerRates: PayerRateRow[] = [],
): SpecialtyIndex {
  const index = providerColumns(taxonomy, providers)
  const position = positionsOf(index)
  fillVolumes(index, position, volumes)
  fillPrices(index, position, prices)
  fillPayerRates(index, position, payerRates)
  describeCodes(index)
  return index
}

function positionsOf(index: SpecialtyIndex): Map<string, number> {
  const position = new Map<string, number>()
  index.npi.forEach((npi, i) => position.set(npi, i))
  return position
}

function providerColumns(taxonomy: string, rows: ProviderRow[]): SpecialtyIndex {
  const size = rows.length
  const insurerBit = new Map<string, number>()
  for (const row of rows)
    for (const name of Object.keys(row.networks ?? {})) if (!insurerBit.has(name)) insurerBit.set(name, insurerBit.size)
  const words = Math.max(1, Math.ceil(insurerBit.size / 32))
  const index: SpecialtyIndex = {
    taxonomy,
    size,
    npi: new Array<string>(size),
    lat: new Float64Array(size),
    lng: new Float64Array(size),
    latRad: new Float64Array(size),
    lngRad: new Float64Array(size),
    cosLat: new Float64Array(size),
    sinU: new Float64Array(size),
    cosU: new Float64Array(size),
    kinds: [],
    kind: new Uint8Array(size),
    facility: new Int32Array(size),
    facilityLocal: new Int32Array(size),
    facilityIds: new Int32Array(0),
    accepting: new Uint8Array(size),
    insurerBit,
    words,
    networks: new Uint32Array(size * words),
    codes: [],
    codeId: new Map(),
    codeKind: new Uint8Array(0),
    codeValue: [],
    codesSorted: new Int32Array(0),
    volumeStart: new Int32Array(size + 1),
    volumeCode: new Int32Array(0),
    volumeCount: new Int32Array(0),
    priceCodes: [],
    priceCodeId: new Map(),
    priceStart: new Int32Array(size + 1),
    priceCode: new Int32Array(0),
    priceList: new Float64Array(0),
    priceNegotiated: new Float64Array(0),
    priceInsurer: new Float64Array(0),
    pricePatient: new Float64Array(0),
    priceNegotiatedRank: new Uint32Array(0),
    pricePatientRank: new Uint32Array(0),
    payers: [],
    payerId: new Map(),
    payerRateStart: new Int32Array(size + 1),
    payerRateCode: new Int32Array(0),
    payerRatePayer: new Int32Array(0),
    payerRate: new Float64Array(0),
  }
  const kindOf = new Map<string, number>()
  const facilityLocalOf = new Map<number, number>()
  const facilityIds: number[] = []
  rows.forEach((row, i) => {
    index.npi[i] = row.npi
    index.lat[i] = row.latitude
    index.lng[i] = row.longitude
    index.latRad[i] = toRadians(row.latitude)
    index.lngRad[i] = toRadians(row.longitude)
    index.cosLat[i] = Math.cos(toRadians(row.latitude))
    const u = reducedLatitude(row.latitude)
    index.sinU[i] = Math.sin(u)
    index.cosU[i] = Math.cos(u)
    let kind = kindOf.get(row.provider_kind)
    if (kind === undefined) {
      kind = index.kinds.length
      kindOf.set(row.provider_kind, kind)
      index.kinds.push(row.provider_kind)
    }
    index.kind[i] = kind
    index.facility[i] = row.facility_id ?? -1
    if (row.facility_id === null) index.facilityLocal[i] = -1
    else {
      let local = facilityLocalOf.get(row.facility_id)
      if (local === undefined) {
        local = facilityIds.length
        facilityLocalOf.set(row.facility_id, local)
        facilityIds.push(row.facility_id)
      }
      index.facilityLocal[i] = local
    }
    index.accepting[i] = row.accepting_new_patients ? 1 : 0
    for (const [name, inNetwork] of Object.entries(row.networks ?? {})) {
      if (inNetwork !== true) continue
      const bit = insurerBit.get(name) as number
      const word = i * words + (bit >>> 5)
      index.networks[word] = (index.networks[word] as number) | (1 << (bit & 31))
    }
  })
  if (index.kinds.length > 255) throw new Error('more than 255 provider kinds')
  index.facilityIds = Int32Array.from(facilityIds)
  return index
}

/** Per code id its kind and bare code, and the ids in key order (for prefix matches by range). */
function describeCodes(index: SpecialtyIndex): void {
  const count = index.codes.length
  index.codeKind = new Uint8Array(count)
  index.codeValue = new Array<string>(count)
  for (let id = 0; id < count; id++) {
    const key = index.codes[id] as string
    const colon = key.indexOf(':')
    const kind = key.slice(0, colon)
    index.codeKind[id] = kind === 'procedure' ? 0 : kind === 'icd10' ? 1 : 2
    index.codeValue[id] = key.slice(colon + 1)
  }
  index.codesSorted = Int32Array.from(
    Array.from({ length: count }, (_, id) => id).sort((a, b) => {
      const ka = index.codes[a] as string
      const kb = index.codes[b] as string
      return ka < kb ? -1 : ka > kb ? 1 : 0
    }),
  )
}

const VOLUME_SQL = `
SELECT v.npi, v.code_kind, v.code, v.claim_count
FROM providers p JOIN mv_provider_code_volume v ON v.npi = p.npi
WHERE p.primary_taxonomy_code = $1`

/** The specialty's code volumes, as per-provider runs of (code id, claim count). */
function fillVolumes(index: SpecialtyIndex, position: Map<string, number>, rows: VolumeRow[]): void {
  const codeId = index.codeId
  const counts = new Int32Array(index.size + 1)
  const owner = new Int32Array(rows.length)
  const code = new Int32Array(rows.length)
  const count = new Int32Array(rows.length)
  rows.forEach((raw, r) => {
    const [npi, kind, value, claims] = raw
    const i = position.get(npi) as number
    const key = `${kind}:${value}`
    let id = codeId.get(key)
    if (id === undefined) {
      id = index.codes.length
      codeId.set(key, id)
      index.codes.push(key)
    }
    owner[r] = i
    code[r] = id
    count[r] = claims
    counts[i + 1] = (counts[i + 1] as number) + 1
  })
  for (let i = 0; i < index.size; i++) counts[i + 1] = (counts[i + 1] as number) + (counts[i] as number)
  index.volumeStart = counts
  const fill = counts.slice(0, index.size)
  index.volumeCode = new Int32Array(rows.length)
  index.volumeCount = new Int32Array(rows.length)
  for (let r = 0; r < rows.length; r++) {
    const i = owner[r] as number
    const at = fill[i] as number
    fill[i] = at + 1
    index.volumeCode[at] = code[r] as number
    index.volumeCount[at] = count[r] as number
  }
}

const PRICE_SQL = `
SELECT pr.npi, pr.procedure_code, pr.line_count, pr.avg_list_amount, pr.avg_negotiated_amount, pr.avg_insurer_amount, pr.avg_patient_amount
FROM providers p JOIN mv_provider_prices pr ON pr.npi = p.npi
WHERE p.primary_taxonomy_code = $1 AND pr.line_count > 0`

/**
 * The specialty's prices per procedure, as per-provider runs (the numeric averages as doubles, as the response shows
 * them): the per-unit averages of the lines with units > 0, so the view's rows of a code billed only with units <= 0
 * (line_count 0, kept for the cost page's sums, docs/decisions/0056) are not prices.
 */
function fillPrices(index: SpecialtyIndex, position: Map<string, number>, rows: PriceRow[]): void {
  const n = rows.length
  const counts = new Int32Array(index.size + 1)
  const owner = new Int32Array(n)
  for (let r = 0; r < n; r++) {
    const i = position.get((rows[r] as PriceRow)[0]) as number
    owner[r] = i
    counts[i + 1] = (counts[i + 1] as number) + 1
  }
  for (let i = 0; i < index.size; i++) counts[i + 1] = (counts[i + 1] as number) + (counts[i] as number)
  index.priceStart = counts
  index.priceCode = new Int32Array(n)
  index.priceList = new Float64Array(n)
  index.priceNegotiated = new Float64Array(n)
  index.priceInsurer = new Float64Array(n)
  index.pricePatient = new Float64Array(n)
  const fill = counts.slice(0, index.size)
  for (let r = 0; r < n; r++) {
    const [, code, , list, negotiated, insurer, patient] = rows[r] as PriceRow
    let id = index.priceCodeId.get(code)
    if (id === undefined) {
      id = index.priceCodes.length
      index.priceCodeId.set(code, id)
      index.priceCodes.push(code)
    }
    const i = owner[r] as number
    const at = fill[i] as number
    fill[i] = at + 1
    index.priceCode[at] = id
    index.priceList[at] = Number(list)
    index.priceNegotiated[at] = Number(negotiated)
    index.priceInsurer[at] = Number(insurer)
    index.pricePatient[at] = Number(patient)
  }
  index.priceNegotiatedRank = priceRanks(index, index.priceNegotiated)
  index.pricePatientRank = priceRanks(index, index.pricePatient)
}

/**
 * The specialty's providers' payer-file rows (the pricing module's clinicianPriceRows: professional or both, in
 * dollars, in force, every payer), one row per provider with any, its rows as a JSON array in the pricing module's
 * order (PRICE_ROWS_JSON).
 */
const PAYER_RATE_SQL = `
SELECT fp.npi, ${PRICE_ROWS_JSON} AS rows
FROM ${clinicianPriceRows('t.npi IN (SELECT p.npi FROM providers p WHERE p.primary_taxonomy_code = $1)')}
GROUP BY fp.npi`

/**
 * The specialty's carrier prices (docs/decisions/0081), as per-provider runs of (code, payer, rate): each provider's
 * rows priced by the pricing module's payerFileRates, the function the cost page shows a clinician's carrier price
 * with. A code only payer files price joins `priceCodes` (it has no claim rows).
 */
function fillPayerRates(index: SpecialtyIndex, position: Map<string, number>, rows: PayerRateRow[]): void {
  const owner: number[] = []
  const code: number[] = []
  const payer: number[] = []
  const rate: number[] = []
  const counts = new Int32Array(index.size + 1)
  for (const [npi, priceRows] of rows) {
    const i = position.get(npi)
    if (i === undefined) continue
    for (const [value, byPayer] of payerFileRates(priceRows)) {
      let id = index.priceCodeId.get(value)
      if (id === undefined) {
        id = index.priceCodes.length
        index.priceCodeId.set(value, id)
        index.priceCodes.push(value)
      }
      for (const [name, amount] of byPayer) {
        let p = index.payerId.get(name)
        if (p === undefined) {
          p = index.payers.length
          index.payerId.set(name, p)
          index.payers.push(name)
        }
        owner.push(i)
        code.push(id)
        payer.push(p)
        rate.push(amount)
        counts[i + 1] = (counts[i + 1] as number) + 1
      }
    }
  }
  for (let i = 0; i < index.size; i++) counts[i + 1] = (counts[i + 1] as number) + (counts[i] as number)
  index.payerRateStart = counts
  const n = owner.length
  index.payerRateCode = new Int32Array(n)
  index.payerRatePayer = new Int32Array(n)
  index.payerRate = new Float64Array(n)
  const fill = counts.slice(0, index.size)
  for (let r = 0; r < n; r++) {
    const i = owner[r] as number
    const at = fill[i] as number
    fill[i] = at + 1
    index.payerRateCode[at] = code[r] as number
    index.payerRatePayer[at] = payer[r] as number
    index.payerRate[at] = rate[r] as number
  }
}

/** Per price row, the dense rank of its price among the rows of its procedure, dearest first. */
function priceRanks(index: SpecialtyIndex, price: Float64Array): Uint32Array {
  const n = price.length
  const rows = Array.from({ length: index.priceCodes.length }, () => [] as number[])
  for (let r = 0; r < n; r++) (rows[index.priceCode[r] as number] as number[]).push(r)
  const ranks = new Uint32Array(n)
  for (const list of rows) {
    const negated = new Float64Array(list.length)
    list.forEach((r, k) => (negated[k] = -(price[r] as number)))
    const order = ascendingOrder(negated)
    let rank = 0
    for (let k = 0; k < order.length; k++) {
      if (k > 0 && negated[order[k] as number] !== negated[order[k - 1] as number]) rank++
      ranks[list[order[k] as number] as number] = rank
    }
  }
  return ranks
}

/** The specialty's index for the data version (built on first use; concurrent searches share the build). */
export function specialtyIndex(pool: pg.Pool, version: string, taxonomy: string): Promise<SpecialtyIndex> {
  const { slot, stale } = slotOf(pool, version)
  const entry = slot.specialties.get(taxonomy)
  // an older version than the one held: the newer index when held (the database has moved past this version, so a
  // build would read the newer data too), else one built for this search alone
  if (stale) return entry ? entry.promise : timedBuild('care_select_candidates', buildSpecialty(pool, taxonomy))
  if (entry) {
    // most recently used last
    slot.specialties.delete(taxonomy)
    slot.specialties.set(taxonomy, entry)
    touchEngine(entry)
    return entry.promise
  }
  // one whole-index build at a time (lib/build-queue.ts); the searches read their area's rows meanwhile
  const promise = oneBuildAtATime(() => timedBuild('care_select_candidates', buildSpecialty(pool, taxonomy)))
  const fresh: HeldSpecialty = { size: 0, promise, index: null }
  slot.specialties.set(taxonomy, fresh)
  promise.then(
    (index) => {
      fresh.size = index.size
      fresh.index = index
      let total = 0
      for (const e of slot.specialties.values()) total += e.size
      // least recently used first; never the index just built, and pending builds free nothing (another build that
      // finished first, though more recently asked for, goes rather than exceed the bound)
      for (const [key, e] of slot.specialties) {
        if (total <= maxProviders) break
        if (e === fresh || e.index === null) continue
        slot.specialties.delete(key)
        releaseEngine(e)
        total -= e.size
        if (e.index) evictionListeners.get(pool)?.(e.index)
      }
      // the shared memory budget (lib/engine-budget.ts): dropped, it is built again on the specialty's next search
      if (slot.specialties.get(taxonomy) === fresh) {
        holdEngine(fresh, 'care_select_candidates', indexBytes(index), () => {
          if (slot.specialties.get(taxonomy) !== fresh) return
          slot.specialties.delete(taxonomy)
          evictionListeners.get(pool)?.(index)
        })
      }
    },
    () => {
      if (slot.specialties.get(taxonomy) === fresh) slot.specialties.delete(taxonomy)
    },
  )
  return promise
}

/** Every facility's point, type (hco_compile_level_1) and NPI for the data version. */
export function facilityPoints(pool: pg.Pool, version: string): Promise<Map<number, FacilityPoint>> {
  const { slot, stale } = slotOf(pool, version)
  if (slot.facilities) return slot.facilities
  const promise = readPool(pool)
    .then((reader) =>
      kyselyOf(reader).selectFrom('facilities').select(['id', 'npi', 'latitude', 'longitude', 'hco_compile_level_1']).execute(),
    )
    .then(
      (rows) =>
        new Map(
          rows.map((f) => {
            const u = reducedLatitude(f.latitude)
            return [
              f.id,
              {
                lat: f.latitude,
                lng: f.longitude,
                latRad: toRadians(f.latitude),
                lngRad: toRadians(f.longitude),
                cosLat: Math.cos(toRadians(f.latitude)),
                sinU: Math.sin(u),
                cosU: Math.cos(u),
                type: f.hco_compile_level_1,
                npi: f.npi,
              },
            ]
          }),
        ),
    )
  if (stale) return promise
  slot.facilities = promise
  promise.then(
    (points) => {
      if (slot.facilities === promise) slot.facilityIndex = points
    },
    () => {
      if (slot.facilities === promise) slot.facilities = null
    },
  )
  return promise
}

export interface Centre {
  lat: number
  lng: number
}

/** A search's centre with the terms every distance to it shares. */
export interface CentreTerms {
  lat: number
  lng: number
  latRad: number
  lngRad: number
  cosLat: number
  sinU: number
  cosU: number
}

function termsOf(centre: Centre): CentreTerms {
  const u = reducedLatitude(centre.lat)
  const latRad = toRadians(centre.lat)
  return {
    lat: centre.lat,
    lng: centre.lng,
    latRad,
    lngRad: toRadians(centre.lng),
    cosLat: Math.cos(latRad),
    sinU: Math.sin(u),
    cosU: Math.cos(u),
  }
}

/**
 * The candidates of a search: positions in the specialty index of the providers within `radiusM` of the centre
 * (spheroid distance ≤ radius, the test of ST_Distance), with their spheroid distances where already known (NaN
 * elsewhere).
 */
export interface Candidates {
  index: SpecialtyIndex
  centre: CentreTerms
  members: Int32Array
  exact: Float64Array
}

function lowerBound(values: Float64Array, target: number): number {
  let lo = 0
  let hi = values.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((values[mid] as number) < target) lo = mid + 1
    else hi = mid
  }
  return lo
}

export function findCandidates(index: SpecialtyIndex, centre: Centre, radiusM: number): Candidates {
  // a latitude band that contains the circle (a degree of latitude is at least 110.5 km on the spheroid)
  const latDelta = radiusM / 110_000
  const from = lowerBound(index.lat, centre.lat - latDelta)
  const to = lowerBound(index.lat, centre.lat + latDelta + 1e-9)
  const maxLat = Math.min(89.9, Math.abs(centre.lat) + latDelta)
  const lngDelta = radiusM / (110_000 * Math.cos(toRadians(maxLat)))
  const wraps = lngDelta >= 180 || centre.lng - lngDelta < -180 || centre.lng + lngDelta > 180
  const terms = termsOf(centre)
  const cLat = terms.latRad
  const cLng = terms.lngRad
  const cCos = terms.cosLat
  const surelyIn = haversineTermOf(radiusM / (1 + SPHERE_MARGIN))
  const surelyOut = haversineTermOf(radiusM / (1 - SPHERE_MARGIN))
  const members: number[] = []
  const exacts: number[] = []
  for (let i = from; i < to; i++) {
    if (!wraps && Math.abs((index.lng[i] as number) - centre.lng) > lngDelta) continue
    const h = haversineTerm(cLat, cLng, cCos, index.latRad[i] as number, index.lngRad[i] as number, index.cosLat[i] as number)
    if (h > surelyOut) continue
    let exact = Number.NaN
    if (h > surelyIn) {
      exact = distanceTo(terms, index, i)
      if (exact > radiusM) continue
    }
    members.push(i)
    exacts.push(exact)
  }
  return { index, centre: terms, members: Int32Array.from(members), exact: Float64Array.from(exacts) }
}

/** The spheroid distance of provider `i` of the index to the centre (spheroidDistance, centre first). */
function distanceTo(centre: CentreTerms, index: SpecialtyIndex, i: number): number {
  return spheroidDistanceReduced(
    centre.lat,
    centre.lng,
    centre.sinU,
    centre.cosU,
    index.lat[i] as number,
    index.lng[i] as number,
    index.sinU[i] as number,
    index.cosU[i] as number,
  )
}

/** The spheroid distance of candidate position `c` (computed once). */
export function exactDistance(set: Candidates, c: number): number {
  let d = set.exact[c] as number
  if (Number.isNaN(d)) {
    const i = set.members[c] as number
    d = distanceTo(set.centre, set.index, i)
    set.exact[c] = d
  }
  return d
}

/** Per candidate, whether it is in network with any of the insurers (canonical names): 1 or 0. */
export function inNetworkWithAny(set: Candidates, insurers: readonly string[]): Uint8Array {
  const { index, members } = set
  const bits: number[] = []
  for (const name of insurers) {
    const bit = index.insurerBit.get(name)
    if (bit !== undefined) bits.push(bit)
  }
  const out = new Uint8Array(members.length)
  if (bits.length === 0) return out
  const words = index.words
  const networks = index.networks
  for (let c = 0; c < members.length; c++) {
    const base = (members[c] as number) * words
    for (const bit of bits) {
      if (((networks[base + (bit >>> 5)] as number) >>> (bit & 31)) & 1) {
        out[c] = 1
        break
      }
    }
  }
  return out
}

/** A facility's spheroid distance to the centre when within the radius, else null (sphere first, spheroid when needed). */
export function facilityDistanceWithin(point: FacilityPoint, centre: CentreTerms, radiusM: number): number | null {
  const h = haversineTerm(centre.latRad, centre.lngRad, centre.cosLat, point.latRad, point.lngRad, point.cosLat)
  if (h > haversineTermOf(radiusM / (1 - SPHERE_MARGIN))) return null
  const d = spheroidDistanceReduced(centre.lat, centre.lng, centre.sinU, centre.cosU, point.lat, point.lng, point.sinU, point.cosU)
  return d <= radiusM ? d : null
}

/**
 * A search's part of the candidate index: its specialty (primary taxonomy code) and, for a search, its area. Without
 * an area (the warm-up) the rows are the specialty's whole index, awaited while it builds.
 */
export interface CandidateQuery {
  taxonomy: string
  area?: Area
}

/** What a search scores: its specialty's index and every facility's point. */
export interface CandidateRows {
  index: SpecialtyIndex
  facilities: Map<number, FacilityPoint>
}

/** What is held for a data version: the specialties indexed so far and the facilities' points. */
export interface HeldCandidates {
  version: string
  specialties: ReadonlyMap<string, SpecialtyIndex>
  facilities: Map<number, FacilityPoint>
}

function heldOf(slot: Held, facilities: Map<number, FacilityPoint>): HeldCandidates {
  const specialties = new Map<string, SpecialtyIndex>()
  for (const [taxonomy, e] of slot.specialties) if (e.index) specialties.set(taxonomy, e.index)
  return { version: slot.version, specialties, facilities }
}

/** Searches given their specialty's whole index, and given their area's rows read from the database (per process). */
export const careSelectServed = { index: 0, database: 0 }

/**
 * The Care Select candidate index as an engine (engines/engine.ts). Its version-wide part is the facilities' points;
 * a specialty is indexed on its first search (rows), whose rows are read from the database and indexed by
 * indexFromRows before it is scored, then held (an index is only a faster source of the same rows).
 */
export const careSelectCandidates: Engine<HeldCandidates, CandidateQuery, CandidateRows> = {
  name: 'care_select_candidates',
  async build(pool, version, wait = false) {
    const points = facilityPoints(pool, version)
    const { slot, stale } = slotOf(pool, version)
    if (!wait) return !stale && slot.facilityIndex ? heldOf(slot, slot.facilityIndex) : null
    const facilities = await points
    await Promise.allSettled([...slot.specialties.values()].map((e) => e.promise))
    return heldOf(slot, facilities)
  },
  async rows(pool, version, query) {
    const facilities = facilityPoints(pool, version)
    const whole = query.area ? heldSpecialtyIndex(pool, version, query.taxonomy) : null
    if (whole || !query.area) {
      if (whole) careSelectServed.index++
      const [index, points] = await Promise.all([whole ?? specialtyIndex(pool, version, query.taxonomy), facilities])
      return { index, facilities: points }
    }
    // While the specialty's index builds (its first search, a new data version, after an eviction: 13-30 s at the
    // full scale), the search reads its area's rows and indexes them by the same function (docs/decisions/0080).
    if (!slotOf(pool, version).stale) specialtyIndex(pool, version, query.taxonomy).catch(() => undefined)
    careSelectServed.database++
    const [index, points] = await Promise.all([buildSpecialty(pool, query.taxonomy, query.area), facilities])
    return { index, facilities: points }
  },
  memory: heldBytes,
  evict(pool) {
    const slot = held.get(pool)
    if (!slot) return
    held.delete(pool)
    for (const e of slot.specialties.values()) {
      releaseEngine(e)
      if (e.index) evictionListeners.get(pool)?.(e.index)
    }
    // a build under way finishes for the search awaiting it, and is not held
    slot.specialties.clear()
  },
}
