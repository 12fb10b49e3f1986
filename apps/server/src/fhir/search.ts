import { FHIR_EXTENSIONS, FHIR_MAX_REVINCLUDE, FHIR_MESSAGES, type FhirResourceType } from '@citrus/contracts'
import type pg from 'pg'
import { DATA_VERSION_SQL } from '../lib/versioned-cache.js'
import { FALSE, KINDS, Sql, kindOf, pointSql, type FilterContext, type Kind } from './kinds.js'
import { invalid } from './outcome.js'
import { METRES_PER_UNIT, UCUM_UNITS, type Criterion, type Near, type Reference, type SearchRequest } from './params.js'
import type { Meta, Resource } from './resources.js'

/**
 * Search and read over the kinds (kinds.ts). Paging is keyset, never OFFSET: a page ends at a (kind, id) position,
 * or at (distance, kind, id) under `near`, and the `next` link carries that position (`_cursor`), so the millionth
 * page costs what the first does.
 */

export interface DirectoryVersion {
  /** the data version (lib/versioned-cache.ts) */
  version: string
  meta: Meta
  loadedAt: Date
}

/** The data version and when it was loaded: meta.versionId and meta.lastUpdated of rows without a time of their own. */
export async function directoryVersion(pool: pg.Pool): Promise<DirectoryVersion> {
  const { rows } = await pool.query<{ v: string; t: Date | null }>({
    name: 'fhir-data-version',
    text: `SELECT ${DATA_VERSION_SQL} AS v, (SELECT max(finished_at) FROM data_loads WHERE status = 'done') AS t`,
  })
  const version = rows[0]?.v ?? '0:0:'
  const loadedAt = rows[0]?.t ?? new Date(0)
  const [count, maxId] = version.split(':')
  return { version, loadedAt, meta: { versionId: `${count ?? 0}.${maxId ?? 0}`, loadedAt: loadedAt.toISOString() } }
}

const insurersByVersion = new Map<string, Promise<FilterContext['insurers']>>()

/** The conditions' context: the load time and the insurers, read once per data version (a few dozen rows). */
export function filterContext(pool: pg.Pool, version: DirectoryVersion): Promise<FilterContext> {
  let insurers = insurersByVersion.get(version.version)
  if (!insurers) {
    insurers = pool.query<{ id: number; name: string }>('SELECT id, name FROM insurers ORDER BY id').then((result) => result.rows)
    insurers.catch(() => insurersByVersion.delete(version.version))
    insurersByVersion.clear()
    insurersByVersion.set(version.version, insurers)
  }
  return insurers.then((rows) => ({ loadedAt: version.loadedAt, insurers: rows }))
}

export interface Match {
  resource: Resource
  /** metres from the `near` point */
  distance?: number
}

export interface SearchResult {
  matches: Match[]
  included: Resource[]
  /** what the page leaves out (a _revinclude cut at FHIR_MAX_REVINCLUDE): an outcome entry of the Bundle */
  warnings: string[]
  next: string | null
  total?: number
}

interface Position {
  k: number
  i: number
  d?: number
}

function encodeCursor(position: Position): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url')
}

function decodeCursor(cursor: string, kinds: number, near: boolean): Position {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown
    if (value && typeof value === 'object') {
      const { k, i, d } = value as Record<string, unknown>
      if (
        Number.isInteger(k) &&
        (k as number) >= 0 &&
        (k as number) < kinds &&
        Number.isInteger(i) &&
        (i as number) >= 0 &&
        (i as number) <= 2_147_483_647 &&
        (near ? typeof d === 'number' && Number.isFinite(d) && d >= 0 : d === undefined)
      ) {
        return { k: k as number, i: i as number, ...(near ? { d: d as number } : {}) }
      }
    }
  } catch {
    // falls through to the refusal
  }
  throw invalid(FHIR_MESSAGES.badCursor, '_cursor')
}

/** Each kind's WHERE conditions for the request's criteria, or null when the kind cannot match. */
function conditionsOf(kind: Kind, criteria: readonly Criterion[], sql: Sql, context: FilterContext): string[] | null {
  const conditions: string[] = []
  for (const criterion of criteria) {
    if (criterion.kind === 'near') continue
    const condition = kind.condition(criterion, sql, context)
    if (condition === FALSE) return null
    if (condition !== 'TRUE') conditions.push(condition)
  }
  return conditions
}

function where(conditions: string[]): string {
  return conditions.length ? `WHERE ${conditions.join(' AND ')}` : ''
}

type Row = Record<string, unknown> & { id: number }

export async function fetchRows(pool: pg.Pool, kind: Kind, ids: readonly number[]): Promise<Map<number, Row>> {
  if (ids.length === 0) return new Map()
  const { rows } = await pool.query<Row>(`SELECT ${kind.select} FROM ${kind.from} WHERE t.id = ANY($1::int[])`, [ids])
  return new Map(rows.map((row) => [row.id, row]))
}

export async function search(pool: pg.Pool, request: SearchRequest, version: DirectoryVersion): Promise<SearchResult> {
  const kinds = KINDS[request.type]
  const context = await filterContext(pool, version)
  const near = request.near
  if (near && kinds.every((kind) => kind.geog === null)) throw invalid(FHIR_MESSAGES.unknownParam(request.type, 'near'))
  const position = request.cursor !== null ? decodeCursor(request.cursor, kinds.length, near !== null) : null
  const want = request.count + 1
  const found: Found[] = []

  if (near) {
    const sql = new Sql()
    const point = pointSql(near, sql)
    const parts: string[] = []
    kinds.forEach((kind, index) => {
      if (!kind.geog) return
      const conditions = conditionsOf(kind, request.criteria, sql, context)
      if (!conditions) return
      conditions.push(`ST_DWithin(${kind.geog}, ${point}, ${sql.p(near.radius)}::float8)`)
      const distance = `ST_Distance(${kind.geog}, ${point})`
      if (position)
        conditions.push(
          `(${distance}, ${index}, t.id) > (${sql.p(position.d)}::float8, ${sql.p(position.k)}::int, ${sql.p(position.i)}::int)`,
        )
      parts.push(`SELECT ${index} AS k, t.id, ${distance} AS d FROM ${kind.from} ${where(conditions)}`)
    })
    if (parts.length) {
      const text = `SELECT k, id, d FROM (${parts.join(' UNION ALL ')}) x ORDER BY d, k, id LIMIT ${want}`
      const { rows } = await pool.query<{ k: number; id: number; d: number }>(text, sql.values)
      for (const row of rows) found.push({ kindIndex: row.k, id: row.id, distance: row.d })
    }
  } else {
    for (let index = position?.k ?? 0; index < kinds.length && found.length < want; index++) {
      const kind = kinds[index]!
      const sql = new Sql()
      const conditions = conditionsOf(kind, request.criteria, sql, context)
      if (!conditions) continue
      if (position && index === position.k) conditions.push(`t.id > ${sql.p(position.i)}::int`)
      // the page's rows in the same statement (no second look-up by id)
      const text = `SELECT ${kind.select} FROM ${kind.from} ${where(conditions)} ORDER BY t.id LIMIT ${want - found.length}`
      const { rows } = await pool.query<Row>(text, sql.values)
      for (const row of rows) found.push({ kindIndex: index, id: row.id, row })
    }
  }

  const page = found.slice(0, request.count)
  const last = page[page.length - 1]
  const next =
    found.length > request.count && last ? encodeCursor({ k: last.kindIndex, i: last.id, ...(near ? { d: last.distance! } : {}) }) : null

  const matches = await materialise(pool, kinds, page, version)
  const [included, total] = await Promise.all([
    includes(pool, request, matches, version, context),
    request.total === 'accurate' ? count(pool, request, context) : Promise.resolve(undefined),
  ])
  return { matches, included: included.resources, warnings: included.warnings, next, ...(total !== undefined ? { total } : {}) }
}

interface Found {
  kindIndex: number
  id: number
  distance?: number
  /** the row, when the statement that found it read it */
  row?: Row
}

async function materialise(pool: pg.Pool, kinds: readonly Kind[], page: readonly Found[], version: DirectoryVersion): Promise<Match[]> {
  const byKind = new Map<number, number[]>()
  for (const entry of page) if (!entry.row) byKind.set(entry.kindIndex, [...(byKind.get(entry.kindIndex) ?? []), entry.id])
  const rows = new Map<number, Map<number, Row>>()
  await Promise.all([...byKind].map(async ([index, ids]) => rows.set(index, await fetchRows(pool, kinds[index]!, ids))))
  const matches: Match[] = []
  for (const entry of page) {
    const row = entry.row ?? rows.get(entry.kindIndex)?.get(entry.id)
    if (!row) continue // deleted between the two statements: a re-seed; the next page goes on from its position
    const kind = kinds[entry.kindIndex]!
    matches.push({
      resource: kind.toResource(row as never, version.meta),
      ...(entry.distance !== undefined ? { distance: entry.distance } : {}),
    })
  }
  return matches
}

async function count(pool: pg.Pool, request: SearchRequest, context: FilterContext): Promise<number> {
  const kinds = KINDS[request.type]
  const near = request.near
  const counts = await Promise.all(
    kinds.map(async (kind) => {
      const sql = new Sql()
      const conditions = conditionsOf(kind, request.criteria, sql, context)
      if (!conditions) return 0
      if (near) {
        if (!kind.geog) return 0
        conditions.push(`ST_DWithin(${kind.geog}, ${pointSql(near, sql)}, ${sql.p(near.radius)}::float8)`)
      }
      const { rows } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${kind.from} ${where(conditions)}`, sql.values)
      return Number(rows[0]?.n ?? 0)
    }),
  )
  return counts.reduce((sum, n) => sum + n, 0)
}

/** Reads resources by `Type/id` references (unknown ones are left out). */
export async function readMany(pool: pg.Pool, references: readonly string[], version: DirectoryVersion): Promise<Resource[]> {
  const wanted = new Map<Kind, Set<number>>()
  for (const reference of new Set(references)) {
    const [type, id] = reference.split('/')
    if (!type || !id || !(type in KINDS)) continue
    const found = kindOf(type as FhirResourceType, id)
    if (!found) continue
    const ids = wanted.get(found.kind) ?? new Set<number>()
    ids.add(found.id)
    wanted.set(found.kind, ids)
  }
  const resources: Resource[] = []
  await Promise.all(
    [...wanted].map(async ([kind, ids]) => {
      const rows = await fetchRows(
        pool,
        kind,
        [...ids].sort((a, b) => a - b),
      )
      for (const row of rows.values()) resources.push(kind.toResource(row as never, version.meta))
    }),
  )
  return resources
}

export async function read(pool: pg.Pool, type: FhirResourceType, id: string, version: DirectoryVersion): Promise<Resource | null> {
  const found = kindOf(type, id)
  if (!found) return null
  const rows = await fetchRows(pool, found.kind, [found.id])
  const row = rows.get(found.id)
  return row ? found.kind.toResource(row as never, version.meta) : null
}

const referenceOf = (value: unknown): string[] => {
  if (Array.isArray(value)) return value.flatMap(referenceOf)
  if (value && typeof value === 'object' && typeof (value as { reference?: unknown }).reference === 'string')
    return [(value as { reference: string }).reference]
  return []
}

/** The element each `_include` follows (PractitionerRole:network follows the network-reference extensions). */
const INCLUDE_ELEMENTS: Record<string, string> = {
  'PractitionerRole:practitioner': 'practitioner',
  'PractitionerRole:organization': 'organization',
  'PractitionerRole:location': 'location',
  'Organization:partof': 'partOf',
  'Location:organization': 'managingOrganization',
  'HealthcareService:location': 'location',
  'HealthcareService:organization': 'providedBy',
  'OrganizationAffiliation:primary-organization': 'organization',
  'OrganizationAffiliation:participating-organization': 'participatingOrganization',
  'OrganizationAffiliation:location': 'location',
  'OrganizationAffiliation:service': 'healthcareService',
  'InsurancePlan:administered-by': 'administeredBy',
  'InsurancePlan:owned-by': 'ownedBy',
}

/** The references an `_include` follows from a matched resource. */
function includedReferences(include: string, resource: Resource): string[] {
  if (include === 'PractitionerRole:network')
    return ((resource.extension as { url: string; valueReference?: unknown }[] | undefined) ?? [])
      .filter((extension) => extension.url === FHIR_EXTENSIONS.networkReference)
      .flatMap((extension) => referenceOf(extension.valueReference))
  const element = INCLUDE_ELEMENTS[include]
  return element ? referenceOf(resource[element]) : []
}

async function includes(
  pool: pg.Pool,
  request: SearchRequest,
  matches: readonly Match[],
  version: DirectoryVersion,
  context: FilterContext,
): Promise<{ resources: Resource[]; warnings: string[] }> {
  if (matches.length === 0 || (request.include.length === 0 && request.revinclude.length === 0)) return { resources: [], warnings: [] }
  const references = request.include.flatMap((include) => matches.flatMap((match) => includedReferences(include, match.resource)))
  const matchedKeys = new Set(matches.map((match) => `${match.resource.resourceType}/${match.resource.id}`))
  const [forward, reverse] = await Promise.all([
    readMany(pool, references, version),
    Promise.all(request.revinclude.map((revinclude) => revincluded(pool, revinclude, matches, version, context))),
  ])
  const seen = new Set<string>()
  const included: Resource[] = []
  const warnings = reverse
    .map((result, index) =>
      result.cut
        ? `_revinclude=${request.revinclude[index]!} holds more than ${FHIR_MAX_REVINCLUDE} resources for this page; the first ${FHIR_MAX_REVINCLUDE} by id are included (ask with a smaller _count, or search ${request.revinclude[index]!.split(':')[0]!} directly)`
        : null,
    )
    .filter((warning): warning is string => warning !== null)
  for (const resource of [...forward, ...reverse.flatMap((result) => result.resources)]) {
    const key = `${resource.resourceType}/${resource.id}`
    if (matchedKeys.has(key) || seen.has(key)) continue
    seen.add(key)
    included.push(resource)
  }
  return { resources: included, warnings }
}

/** The resources of the revinclude's type (`Type:param`) whose `param` points at the matches, at most FHIR_MAX_REVINCLUDE a page (by kind, then id). */
async function revincluded(
  pool: pg.Pool,
  revinclude: string,
  matches: readonly Match[],
  version: DirectoryVersion,
  context: FilterContext,
): Promise<{ resources: Resource[]; cut: boolean }> {
  const [type, name] = revinclude.split(':') as [FhirResourceType, string]
  const values: Reference[] = matches.map((match) => ({ type: match.resource.resourceType, id: match.resource.id }))
  const resources: Resource[] = []
  for (const kind of KINDS[type]) {
    const sql = new Sql()
    const condition = kind.condition({ kind: 'reference', name, values }, sql, context)
    if (condition === FALSE) continue
    const { rows } = await pool.query<Row>(
      `SELECT ${kind.select} FROM ${kind.from} WHERE ${condition} ORDER BY t.id LIMIT ${FHIR_MAX_REVINCLUDE + 1 - resources.length}`,
      sql.values,
    )
    resources.push(...rows.map((row) => kind.toResource(row as never, version.meta)))
    if (resources.length > FHIR_MAX_REVINCLUDE) break
  }
  return { resources: resources.slice(0, FHIR_MAX_REVINCLUDE), cut: resources.length > FHIR_MAX_REVINCLUDE }
}

/** The location-distance extension of a `near` match, in the unit asked. */
export function distanceExtension(metres: number, near: Near) {
  const value = Math.round((metres / METRES_PER_UNIT[near.unit]) * 1e6) / 1e6
  return {
    url: FHIR_EXTENSIONS.locationDistance,
    valueDistance: { value, unit: near.unit, system: 'http://unitsofmeasure.org', code: UCUM_UNITS[near.unit] },
  }
}
