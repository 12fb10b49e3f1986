import { FHIR_EXTENSIONS, FHIR_MAX_REVINCLUDE, FHIR_MESSAGES, type FhirResourceType } from '@citrus/contracts'
import type pg from 'pg'
import type { Row as TableRow } from '../db/kysely.js'
import { primaryOf } from '../db/replicas.js'
import { boundingBox } from '../lib/bounding-box.js'
import { DATA_VERSION_SQL, VersionedLruCache } from '../lib/versioned-cache.js'
import {
  FALSE,
  KINDS,
  Sql,
  conditionOf,
  kindOf,
  pointSql,
  resourcesAt,
  targetKind,
  type FilterContext,
  type Kind,
  type SubFilter,
} from './kinds.js'
import { invalid } from './outcome.js'
import { METRES_PER_UNIT, UCUM_UNITS, type Criterion, type Near, type Reference, type SearchRequest } from './params.js'
import type { Meta, Render, Resource } from './resources.js'

/**
 * Search and read over the kinds (kinds.ts). Paging is keyset, never OFFSET: a page ends at a (kind, id) position,
 * or at (distance, kind, id) under `near`, and the `next` link carries that position (`_cursor`), so the millionth
 * page costs what the first does. A row of a kind with several resources a row (a clinician's PractitionerRoles, one
 * per network) may end a page part way: the position then holds the sub-position of its last resource on the page.
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
    insurers = pool
      .query<Pick<TableRow<'insurers'>, 'id' | 'name'>>('SELECT id, name FROM insurers ORDER BY id')
      .then((result) => result.rows)
    insurers.catch(() => insurersByVersion.delete(version.version))
    insurersByVersion.clear()
    insurersByVersion.set(version.version, insurers)
  }
  return insurers.then((rows) => ({ loadedAt: version.loadedAt, insurers: rows }))
}

/** at most this many network sets are kept per data version (then the cache starts over) */
const NETWORK_SETS_KEPT = 50_000
const networkRenderers = new WeakMap<FilterContext['insurers'], Render['networksOf']>()

/**
 * How rows become resources for this data version: meta, and the networks of a networks JSON (the insurers named
 * `true` there, in insurer id order), cached by the JSON's text while the insurers are the same (one data version):
 * the clinicians share few sets. The networks are expanded here, never by jsonb_each in a page's statement.
 */
export function renderOf(version: DirectoryVersion, context: FilterContext): Render {
  let networksOf = networkRenderers.get(context.insurers)
  if (!networksOf) {
    const ids = new Map(context.insurers.map((insurer) => [insurer.name, insurer.id]))
    const sets = new Map<string, readonly number[]>()
    networksOf = (networksJson) => {
      let members = sets.get(networksJson)
      if (members !== undefined) return members
      const networks = JSON.parse(networksJson) as Record<string, unknown>
      const found: number[] = []
      for (const name in networks) {
        const id = networks[name] === true ? ids.get(name) : undefined
        if (id !== undefined) found.push(id)
      }
      members = found.sort((x, y) => x - y)
      if (sets.size >= NETWORK_SETS_KEPT) sets.clear()
      sets.set(networksJson, members)
      return members
    }
    networkRenderers.set(context.insurers, networksOf)
  }
  return { meta: version.meta, networksOf }
}

/** A resource of a page: its type, id and JSON text (written once from its row, never re-serialised). */
export interface Rendered {
  type: string
  id: string
  json: string
}

export interface Match extends Rendered {
  /** metres from the `near` point */
  distance?: number
}

/** The resource as an object, for what reads its elements (an `_include`'s references, a read's lastUpdated). */
export const resourceOf = (rendered: Rendered): Resource => JSON.parse(rendered.json) as Resource

export interface SearchResult {
  matches: Match[]
  included: Rendered[]
  /** what the page leaves out (a _revinclude cut at FHIR_MAX_REVINCLUDE): an outcome entry of the Bundle */
  warnings: string[]
  next: string | null
  total?: number
  /** `_total=accurate` was asked but not counted within the budget: why, for an outcome entry (too-costly) */
  totalOmitted?: string
}

export interface SearchOptions {
  /** how long counting `_total=accurate` may take (PostgreSQL's statement_timeout) before the Bundle goes without it */
  totalTimeoutMs: number
}

interface Position {
  k: number
  i: number
  d?: number
  /** the sub-position of the last resource on the page, when its row has more (Kind.several) */
  s?: number
}

function encodeCursor(position: Position): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url')
}

function decodeCursor(cursor: string, kinds: readonly Kind[], near: boolean): Position {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown
    if (value && typeof value === 'object') {
      const { k, i, d, s } = value as Record<string, unknown>
      const within = (n: unknown) => Number.isInteger(n) && (n as number) >= 0 && (n as number) <= 2_147_483_647
      if (
        Number.isInteger(k) &&
        (k as number) >= 0 &&
        (k as number) < kinds.length &&
        within(i) &&
        (near ? typeof d === 'number' && Number.isFinite(d) && d >= 0 : d === undefined) &&
        (s === undefined || (kinds[k as number]!.several !== undefined && within(s)))
      ) {
        return { k: k as number, i: i as number, ...(near ? { d: d as number } : {}), ...(s !== undefined ? { s: s as number } : {}) }
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
    const condition = conditionOf(kind, criterion, sql, context)
    if (condition === FALSE) return null
    if (condition !== 'TRUE') conditions.push(condition)
  }
  return conditions
}

function where(conditions: string[]): string {
  return conditions.length ? `WHERE ${conditions.join(' AND ')}` : ''
}

type Row = Record<string, unknown> & { id: number }

/** A row's resources (those `filter` keeps, of a kind with several a row): the one rendering of searches, reads and exports. */
export function rendered(kind: Kind, row: Row, render: Render, filter: SubFilter | null = null): Rendered[] {
  if (!kind.several) return [{ type: kind.type, id: `${kind.prefix}${row.id}`, json: kind.toJson(row as never, render) }]
  const several = kind.several
  const subs = several.subs(row as never, render, filter)
  return several.toJson(row as never, render, subs).map((json, n) => ({ type: kind.type, id: several.idOf(row.id, subs[n]!), json }))
}

/** rendered's JSON text alone, for an export (every resource of the row; no ids to write: a third faster at 71 M roles). */
export function renderedJson(kind: Kind, row: Row, render: Render): string[] {
  if (!kind.several) return [kind.toJson(row as never, render)]
  return kind.several.toJson(row as never, render, kind.several.subs(row as never, render, null))
}

export async function fetchRows(pool: pg.Pool, kind: Kind, ids: readonly number[]): Promise<Map<number, Row>> {
  if (ids.length === 0) return new Map()
  const { rows } = await pool.query<Row>(`SELECT ${kind.select} FROM ${kind.from} WHERE t.id = ANY($1::int[])`, [ids])
  return new Map(rows.map((row) => [row.id, row]))
}

interface Found {
  kindIndex: number
  id: number
  distance?: number
  /** the row, when the statement that found it read it */
  row?: Row
  /** the resource's sub-position in its row (Kind.several) */
  sub?: number
}

/**
 * The test of a row within `radius` of `near`. With other criteria (`filtered`) on a kind with a latitude/longitude
 * index, a box around the point and the spheroid distance: the planner reads the specialty's rows in the box from the
 * (primary_taxonomy_code, latitude, longitude) index, where ST_DWithin would make it AND the geography index's bitmap
 * (every row of a metro, 0.3 M in 30 miles of Brooklyn) with the specialty's. ST_Distance ≤ radius is ST_DWithin's own
 * test on the spheroid. Otherwise (near alone, or no box at a pole or the antimeridian) ST_DWithin on the geography index.
 */
function withinConditions(kind: Kind, filtered: boolean, point: string, near: Near, radius: number, sql: Sql): string[] {
  const box = filtered && kind.box ? boundingBox(near.latitude, near.longitude, radius) : null
  if (!kind.box || !box) return [`ST_DWithin(${kind.geog}, ${point}, ${sql.p(radius)}::float8)`]
  const [latitude, longitude] = kind.box
  return [
    `${latitude} BETWEEN ${sql.p(box[0])}::float8 AND ${sql.p(box[1])}::float8`,
    `${longitude} BETWEEN ${sql.p(box[2])}::float8 AND ${sql.p(box[3])}::float8`,
    `ST_Distance(${kind.geog}, ${point}) <= ${sql.p(radius)}::float8`,
  ]
}

/**
 * `near`: the page in distance order (ST_Distance on the spheroid, then kind and id), exactly.
 *
 * With other criteria (`specialty=`, say) one statement: the rows in the radius that meet them (on clinicians read
 * in a box around the point, withinConditions), sorted by distance. With `near` alone a metro's radius holds
 * thousands of rows, so two short statements on the geography index instead of the distance of each: first each kind's
 * nearest rows in the index's KNN order (`<->`, on the sphere), at most a page of each; if the page is not complete
 * with those, they are every match. Otherwise the page's last distance among them bounds the page: every row of the
 * true page is at most that far, so the page is the rows within that distance (ST_DWithin again, a radius of about
 * the page's), ordered by their distance.
 */
async function nearPage(
  pool: pg.Pool,
  kinds: readonly Kind[],
  request: SearchRequest,
  near: Near,
  position: Position | null,
  context: FilterContext,
  want: number,
): Promise<Found[]> {
  let filtered = false
  const statement = (knn: boolean, radius: number) => {
    const sql = new Sql()
    const point = pointSql(near, sql)
    const parts: string[] = []
    kinds.forEach((kind, index) => {
      if (!kind.geog) return
      const conditions = conditionsOf(kind, request.criteria, sql, context)
      if (!conditions) return
      if (conditions.length) filtered = true
      conditions.push(...withinConditions(kind, conditions.length > 0, point, near, radius, sql))
      const distance = `ST_Distance(${kind.geog}, ${point})`
      if (position) {
        // a deeper page walks the index past the earlier ones: the sphere distance that the index orders by (points:
        // within 0.6% of the spheroid's) rules those out before the spheroid's is computed
        if (knn) conditions.push(`(${kind.geog} <-> ${point}) >= ${sql.p(position.d! * 0.98)}::float8`)
        // a row whose resources the page ended part way through (position.s) is read again for the rest
        conditions.push(
          `(${distance}, ${index}, t.id) ${position.s !== undefined ? '>=' : '>'} (${sql.p(position.d)}::float8, ${sql.p(position.k)}::int, ${sql.p(position.i)}::int)`,
        )
      }
      const select = `SELECT ${index} AS k, t.id, ${distance} AS d FROM ${kind.from} ${where(conditions)}`
      parts.push(knn ? `(${select} ORDER BY ${kind.geog} <-> ${point} LIMIT ${want})` : select)
    })
    if (!parts.length) return null
    return { text: `SELECT k, id, d FROM (${parts.join(' UNION ALL ')}) x ORDER BY d, k, id LIMIT ${want}`, values: sql.values }
  }
  const found = (rows: { k: number; id: number; d: number }[]) => rows.map((row) => ({ kindIndex: row.k, id: row.id, distance: row.d }))
  const all = statement(false, near.radius)
  if (!all) return []
  if (filtered) return found((await pool.query<{ k: number; id: number; d: number }>(all.text, all.values)).rows)

  // The planner underestimates how many rows a metro's radius holds (clustered points) and would read them all by a
  // bitmap scan and sort them; without bitmap scans it walks the geography index in distance order and stops at the
  // page (docs/performance.md, FHIR provider directory). No JIT: the statements are short.
  return inTransaction(pool, 'SET LOCAL enable_bitmapscan = off; SET LOCAL jit = off', async (client) => {
    const run = async (knn: boolean, radius: number) => {
      const query = statement(knn, radius)!
      return (await client.query<{ k: number; id: number; d: number }>(query.text, query.values)).rows
    }
    let rows = await run(true, near.radius)
    if (rows.length === want) {
      // a hair more than the bound, so that rounding in ST_DWithin never drops a row at exactly that distance
      const bound = rows[rows.length - 1]!.d
      rows = await run(false, Math.min(near.radius, bound * (1 + 1e-9) + 1e-6))
    }
    return found(rows)
  })
}

/**
 * `run` on one connection in a read-only transaction with `settings` (SET LOCAL …), rolled back when it fails; a
 * connection that cannot even roll back (lost) leaves the pool instead of going back to it.
 */
async function inTransaction<T>(pool: pg.Pool, settings: string, run: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect()
  let lost: Error | undefined
  try {
    await client.query(`BEGIN READ ONLY; ${settings}`)
    const result = await run(client)
    await client.query('COMMIT')
    return result
  } catch (error) {
    await client.query('ROLLBACK').catch((rollback: unknown) => {
      lost = rollback instanceof Error ? rollback : new Error(String(rollback))
    })
    throw error
  } finally {
    client.release(lost)
  }
}

/**
 * A first guess of the resources a row holds where a kind has several (clinicians are in about 12 networks): a page
 * reads about as many rows as it needs, not one per resource; the next statement, if any, goes by the rows seen.
 */
export const RESOURCES_PER_ROW_GUESS = 6

/**
 * A chain on a reference that a row holds several of (a clinician's networks: `network.name=…`, `network.partof=…`) as
 * the references it names, read first by the target kind's own condition: the role kind's condition and its filter of
 * a clinician's roles go by network ids (a few hundred insurers at most). Other chains stay conditions of the search.
 */
async function resolveChains(pool: pg.Pool, type: FhirResourceType, criterion: Criterion, context: FilterContext): Promise<Criterion> {
  if (criterion.kind === 'has') return { ...criterion, inner: await resolveChains(pool, criterion.source, criterion.inner, context) }
  if (criterion.kind !== 'chain') return criterion
  const inner = await resolveChains(pool, criterion.target, criterion.inner, context)
  const targets = KINDS[type].flatMap((kind) => kind.references?.[criterion.name] ?? []).filter((target) => target.several)
  if (!targets.length) return { ...criterion, inner }
  const values: Reference[] = []
  for (const target of targets) {
    const kind = targetKind(target)
    const sql = new Sql()
    const condition = conditionOf(kind, inner, sql, context)
    if (condition === FALSE) continue
    const { rows } = await pool.query<{ id: number }>(`SELECT t.id FROM ${kind.from} WHERE ${condition} ORDER BY t.id`, sql.values)
    for (const row of rows) values.push({ type: target.type, id: `${target.prefix}${row.id}` })
  }
  return { kind: 'reference', name: criterion.name, values }
}

export async function search(
  pool: pg.Pool,
  searched: SearchRequest,
  version: DirectoryVersion,
  options: SearchOptions,
): Promise<SearchResult> {
  const kinds = KINDS[searched.type]
  const context = await filterContext(pool, version)
  const criteria = await Promise.all(searched.criteria.map((criterion) => resolveChains(pool, searched.type, criterion, context)))
  const request: SearchRequest = { ...searched, criteria }
  const render = renderOf(version, context)
  const near = request.near
  if (near && kinds.every((kind) => kind.geog === null)) throw invalid(FHIR_MESSAGES.unknownParam(request.type, 'near'))
  const position = request.cursor !== null ? decodeCursor(request.cursor, kinds, near !== null) : null
  const filters = kinds.map((kind) => (kind.several ? kind.several.filter(request.criteria, context) : null))
  const want = request.count + 1
  const found: Found[] = []

  // rows in keyset order from `after`, as many as the page still needs (a guess where a row holds several resources),
  // until the page and one more resource are found or the rows run out
  let after = position
  let perRow = kinds.some((kind, index) => kind.several && !filters[index]) ? RESOURCES_PER_ROW_GUESS : 1
  for (;;) {
    const need = want - found.length
    const limit = Math.max(1, Math.min(need, Math.ceil(need / perRow)))
    const rows = near
      ? await withRows(pool, kinds, await nearPage(pool, kinds, request, near, after, context, limit))
      : await keysetRows(pool, kinds, request, after, context, limit)
    let resources = 0
    for (const entry of rows.found) {
      const kind = kinds[entry.kindIndex]!
      if (!kind.several) {
        found.push(entry)
        resources++
        continue
      }
      let subs = kind.several.subs(entry.row as never, render, filters[entry.kindIndex]!)
      const from = after?.s
      if (from !== undefined && entry.kindIndex === after!.k && entry.id === after!.i) subs = subs.filter((sub) => sub > from)
      for (const sub of subs) found.push({ ...entry, sub })
      resources += subs.length
    }
    if (rows.read < limit || found.length >= want) break
    const last = rows.last!
    after = { k: last.kindIndex, i: last.id, ...(near ? { d: last.distance! } : {}) }
    perRow = Math.max(1, (resources / rows.read) * 0.8)
  }

  const page = found.slice(0, request.count)
  const last = page[page.length - 1]
  let next: string | null = null
  if (found.length > request.count && last) {
    const following = found[request.count]!
    const within = following.kindIndex === last.kindIndex && following.id === last.id
    next = encodeCursor({
      k: last.kindIndex,
      i: last.id,
      ...(near ? { d: last.distance! } : {}),
      ...(within ? { s: last.sub! } : {}),
    })
  }

  const matches = materialise(kinds, page, render)
  const [included, total] = await Promise.all([
    includes(pool, request, matches, render, context),
    request.total === 'accurate' ? totalOf(pool, request, context, version.version, options.totalTimeoutMs) : Promise.resolve(undefined),
  ])
  return {
    matches,
    included: included.resources,
    warnings: included.warnings,
    next,
    ...(typeof total === 'number' ? { total } : {}),
    ...(total === null ? { totalOmitted: FHIR_MESSAGES.totalTooCostly(options.totalTimeoutMs) } : {}),
  }
}

/** The rows of a step of the page: those still there (`found`), how many were read, the last read. */
interface Rows {
  found: Found[]
  read: number
  last: Found | undefined
}

/** Up to `limit` rows after `after` in (kind, id) order, each kind's statement reading its rows. */
async function keysetRows(
  pool: pg.Pool,
  kinds: readonly Kind[],
  request: SearchRequest,
  after: Position | null,
  context: FilterContext,
  limit: number,
): Promise<Rows> {
  const found: Found[] = []
  for (let index = after?.k ?? 0; index < kinds.length && found.length < limit; index++) {
    const kind = kinds[index]!
    const sql = new Sql()
    const conditions = conditionsOf(kind, request.criteria, sql, context)
    if (!conditions) continue
    // a row whose resources the last page ended part way through (after.s) is read again for the rest
    if (after && index === after.k) conditions.push(`t.id ${after.s !== undefined ? '>=' : '>'} ${sql.p(after.i)}::int`)
    // the page's rows in the same statement (no second look-up by id)
    const text = `SELECT ${kind.select} FROM ${kind.from} ${where(conditions)} ORDER BY t.id LIMIT ${limit - found.length}`
    const { rows } = await pool.query<Row>(text, sql.values)
    for (const row of rows) found.push({ kindIndex: index, id: row.id, row })
  }
  return { found, read: found.length, last: found[found.length - 1] }
}

/** `near`'s rows (ids and distances) with the rows themselves; a row deleted between the two statements is left out. */
async function withRows(pool: pg.Pool, kinds: readonly Kind[], near: Found[]): Promise<Rows> {
  const byKind = new Map<number, number[]>()
  for (const entry of near) byKind.set(entry.kindIndex, [...(byKind.get(entry.kindIndex) ?? []), entry.id])
  const rows = new Map<number, Map<number, Row>>()
  await Promise.all([...byKind].map(async ([index, ids]) => rows.set(index, await fetchRows(pool, kinds[index]!, ids))))
  const found: Found[] = []
  for (const entry of near) {
    const row = rows.get(entry.kindIndex)?.get(entry.id)
    // deleted between the two statements: a re-seed; the next page goes on from its position
    if (row) found.push({ ...entry, row })
  }
  return { found, read: near.length, last: near[near.length - 1] }
}

/** The page's resources as JSON text: a row's resources on the page written together (Kind.several). */
function materialise(kinds: readonly Kind[], page: readonly Found[], render: Render): Match[] {
  const matches: Match[] = []
  for (let at = 0; at < page.length;) {
    const entry = page[at]!
    const kind = kinds[entry.kindIndex]!
    let end = at + 1
    if (kind.several) while (end < page.length && page[end]!.kindIndex === entry.kindIndex && page[end]!.id === entry.id) end++
    const filter = kind.several ? resourcesAt(page.slice(at, end).map((item) => ({ id: item.id, sub: item.sub! }))) : null
    for (const resource of rendered(kind, entry.row!, render, filter)) {
      const match: Match = resource
      if (entry.distance !== undefined) match.distance = entry.distance
      matches.push(match)
    }
    at = end
  }
  return matches
}

/** The statement counting the resources of `kind` that meet `criteria` (within `near`): rows, or the resources of several a row. */
function countStatement(kind: Kind, criteria: readonly Criterion[], near: Near | null, context: FilterContext): pg.QueryConfig | null {
  const sql = new Sql()
  const conditions = conditionsOf(kind, criteria, sql, context)
  if (!conditions) return null
  if (near) {
    if (!kind.geog) return null
    conditions.push(...withinConditions(kind, conditions.length > 0, pointSql(near, sql), near, near.radius, sql))
  }
  let from = kind.from
  if (kind.several) {
    from = `${kind.from} CROSS JOIN LATERAL ${kind.several.subsSql}`
    const filter = kind.several.filter(criteria, context)
    if (filter) conditions.push(filter.sql(sql))
  }
  return { text: `SELECT count(*) AS n FROM ${from} ${where(conditions)}`, values: sql.values }
}

/** PostgreSQL's SQLSTATE for a statement cancelled by statement_timeout */
export const QUERY_CANCELED = '57014'

/**
 * How many resources of the search's type meet its criteria, every kind's count a statement bounded by
 * `timeoutMs` (SET LOCAL statement_timeout): null when one of them ran out of time. An unfiltered count of every
 * clinician's roles reads 6 million rows' networks (minutes at the full scale); a public directory must not let
 * one request hold a backend that long. The embedded database (PGlite) has no statement timeout: there a count
 * runs to its end, over demo-sized data.
 */
async function count(pool: pg.Pool, request: SearchRequest, context: FilterContext, timeoutMs: number): Promise<number | null> {
  const statements = KINDS[request.type].map((kind) => countStatement(kind, request.criteria, request.near, context))
  const counts = await Promise.all(
    statements.map(async (statement) => {
      if (!statement) return 0
      try {
        const { rows } = await inTransaction(pool, `SET LOCAL statement_timeout = ${Math.max(1, Math.round(timeoutMs))}`, (client) =>
          client.query<{ n: string }>(statement),
        )
        return Number(rows[0]?.n ?? 0)
      } catch (error) {
        if ((error as { code?: unknown }).code === QUERY_CANCELED) return null
        throw error
      }
    }),
  )
  return counts.some((n) => n === null) ? null : counts.reduce<number>((sum, n) => sum + n!, 0)
}

/** totals kept per database and data version: a client paging with `_total=accurate` sends it with every `next` link */
const TOTALS_KEPT = 200
const totalsByDatabase = new WeakMap<pg.Pool, VersionedLruCache<Promise<number | null>>>()

/**
 * `_total=accurate` of a search, counted once per data version and search (its criteria and `near`, not its page),
 * or null when counting took longer than `timeoutMs`; a count that ran out of time is kept as such, so the pages
 * that follow do not spend the time again. Least recently asked first out.
 */
function totalOf(
  pool: pg.Pool,
  request: SearchRequest,
  context: FilterContext,
  version: string,
  timeoutMs: number,
): Promise<number | null> {
  const primary = primaryOf(pool)
  let totals = totalsByDatabase.get(primary)
  if (!totals)
    totalsByDatabase.set(primary, (totals = new VersionedLruCache<Promise<number | null>>(TOTALS_KEPT, Number.POSITIVE_INFINITY)))
  const key = JSON.stringify([request.type, request.criteria, request.near])
  const kept = totals.get(key, version)
  if (kept) return kept
  const counted = count(pool, request, context, timeoutMs)
  totals.set(key, version, counted)
  counted.catch(() => totals.delete(key))
  return counted
}

/** Reads resources by `Type/id` references (unknown ones are left out). */
export async function readMany(pool: pg.Pool, references: readonly string[], render: Render): Promise<Rendered[]> {
  // per kind, the rows and (of a kind with several a row) the sub-positions wanted
  const wanted = new Map<Kind, Map<number, Set<number>>>()
  for (const reference of new Set(references)) {
    const [type, id] = reference.split('/')
    if (!type || !id || !(type in KINDS)) continue
    const found = kindOf(type as FhirResourceType, id)
    if (!found) continue
    const ids = wanted.get(found.kind) ?? new Map<number, Set<number>>()
    ids.set(found.id, (ids.get(found.id) ?? new Set<number>()).add(found.sub ?? 0))
    wanted.set(found.kind, ids)
  }
  // kind by kind in the order of the references, then by id, whichever statement ends first: the same Bundle every time
  const resources = await Promise.all(
    [...wanted].map(async ([kind, ids]) => {
      const order = [...ids.keys()].sort((a, b) => a - b)
      const rows = await fetchRows(pool, kind, order)
      const filter = resourcesAt([...ids].flatMap(([id, subs]) => [...subs].map((sub) => ({ id, sub }))))
      return order.flatMap((id) => {
        const row = rows.get(id)
        return row ? rendered(kind, row, render, filter) : []
      })
    }),
  )
  return resources.flat()
}

/** One resource as JSON text, or null when there is none of that type and id. */
export async function read(pool: pg.Pool, type: FhirResourceType, id: string, version: DirectoryVersion): Promise<string | null> {
  const found = kindOf(type, id)
  if (!found) return null
  const rows = await fetchRows(pool, found.kind, [found.id])
  const row = rows.get(found.id)
  if (!row) return null
  const render = renderOf(version, await filterContext(pool, version))
  // a role's id names one of its clinician's networks (or none, for a clinician in none): any other is no resource
  return rendered(found.kind, row, render, resourcesAt([{ id: found.id, sub: found.sub ?? 0 }]))[0]?.json ?? null
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
  'Location:partof': 'partOf',
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
  render: Render,
  context: FilterContext,
): Promise<{ resources: Rendered[]; warnings: string[] }> {
  if (matches.length === 0 || (request.include.length === 0 && request.revinclude.length === 0)) return { resources: [], warnings: [] }
  const objects = request.include.length ? matches.map(resourceOf) : []
  const references = request.include.flatMap((include) => objects.flatMap((resource) => includedReferences(include, resource)))
  const matchedKeys = new Set(matches.map((match) => `${match.type}/${match.id}`))
  const [forward, reverse] = await Promise.all([
    readMany(pool, references, render),
    Promise.all(request.revinclude.map((revinclude) => revincluded(pool, revinclude, matches, render, context))),
  ])
  const seen = new Set<string>()
  const included: Rendered[] = []
  const warnings = reverse
    .map((result, index) =>
      result.cut
        ? `_revinclude=${request.revinclude[index]!} holds more than ${FHIR_MAX_REVINCLUDE} resources for this page; the first ${FHIR_MAX_REVINCLUDE} by id are included (ask with a smaller _count, or search ${request.revinclude[index]!.split(':')[0]!} directly)`
        : null,
    )
    .filter((warning): warning is string => warning !== null)
  for (const resource of [...forward, ...reverse.flatMap((result) => result.resources)]) {
    const key = `${resource.type}/${resource.id}`
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
  render: Render,
  context: FilterContext,
): Promise<{ resources: Rendered[]; cut: boolean }> {
  const [type, name] = revinclude.split(':') as [FhirResourceType, string]
  const values: Reference[] = matches.map((match) => ({ type: match.type, id: match.id }))
  const resources: Rendered[] = []
  const criterion: Criterion = { kind: 'reference', name, values }
  for (const kind of KINDS[type]) {
    // of a clinician's roles, those of the matched networks under PractitionerRole:network, else all
    const filter = kind.several ? kind.several.filter([criterion], context) : null
    let after = 0
    for (;;) {
      const sql = new Sql()
      const condition = conditionOf(kind, criterion, sql, context)
      if (condition === FALSE) break
      // rows, not resources: a clinician holds a role per network (a first guess, as search() makes; read on below)
      const wanted = FHIR_MAX_REVINCLUDE + 1 - resources.length
      const limit = kind.several && !filter ? Math.max(1, Math.ceil(wanted / RESOURCES_PER_ROW_GUESS)) : wanted
      const { rows } = await pool.query<Row>(
        `SELECT ${kind.select} FROM ${kind.from} WHERE ${condition} AND t.id > ${sql.p(after)}::int ORDER BY t.id LIMIT ${limit}`,
        sql.values,
      )
      for (const row of rows) {
        resources.push(...rendered(kind, row, render, filter))
        if (resources.length > FHIR_MAX_REVINCLUDE) break
      }
      // a row may hold none of the resources kept (a role filter): read on until enough are found or the rows end
      if (rows.length < limit || resources.length > FHIR_MAX_REVINCLUDE) break
      after = rows[rows.length - 1]!.id
    }
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
