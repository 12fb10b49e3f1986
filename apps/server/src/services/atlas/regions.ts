import { ATLAS_ZIP_NEIGHBOUR_BAND_M, type TileGranularity } from '@citrus/contracts'
import type pg from 'pg'
import type { Row } from '../../db/kysely.js'
import { BUILD_CATCH_UP_MS, readPool } from '../../db/replicas.js'
import { scopeZipsSql, SqlParams, type AtlasScope } from '../../engines/atlas/rows.js'

/** A region of a granularity: its name, state, census population and a point inside it. */
export interface Region {
  id: string
  label: string
  state: string
  population: number | null
  latitude: number
  longitude: number
  /** GeoJSON geometry text (polygons for states and counties, the ZCTA internal point for ZIP areas) */
  geometry: string
}

/** The data version (lib/versioned-cache.ts): caches of data-derived results are keyed by it. */
export { dataVersion } from '../../lib/versioned-cache.js'

const CATALOG_SQL: Record<TileGranularity, string> = {
  STATE: `SELECT s.abbr AS id, s.name AS label, s.abbr AS state, s.population,
                 ST_Y(ST_PointOnSurface(s.geom)) AS latitude, ST_X(ST_PointOnSurface(s.geom)) AS longitude,
                 ST_AsGeoJSON(s.geom, 5) AS geometry
          FROM states s WHERE s.geom IS NOT NULL ORDER BY s.abbr`,
  COUNTY: `SELECT c.fips AS id, c.name || ', ' || s.abbr AS label, s.abbr AS state, c.population,
                  coalesce(c.latitude, ST_Y(ST_PointOnSurface(c.geom))) AS latitude,
                  coalesce(c.longitude, ST_X(ST_PointOnSurface(c.geom))) AS longitude,
                  ST_AsGeoJSON(c.geom, 5) AS geometry
           FROM counties c JOIN states s ON s.fips = c.state_fips WHERE c.geom IS NOT NULL ORDER BY c.fips`,
  ZIP_CODE_50KM: `SELECT z.zip AS id, z.zip || ' ' || z.city || ', ' || z.state AS label, z.state, NULL::int AS population,
                         z.latitude, z.longitude,
                         json_build_object('type', 'Point', 'coordinates', json_build_array(round(z.longitude::numeric, 5), round(z.latitude::numeric, 5)))::text AS geometry
                  FROM zips z WHERE z.is_zcta ORDER BY z.zip`,
}

interface CatalogEntry {
  version: string
  regions: Map<string, Region>
  neighbours: Map<string, string[]> | null
}
const catalogs = new Map<TileGranularity, CatalogEntry>()

/** Every region of a granularity (cached per data version: boundaries change only with a load). */
export async function regionCatalog(pool: pg.Pool, granularity: TileGranularity, version: string): Promise<Map<string, Region>> {
  const cached = catalogs.get(granularity)
  if (cached && cached.version === version) return cached.regions
  const { rows } = await pool.query<Region>(CATALOG_SQL[granularity])
  const regions = new Map(rows.map((row) => [row.id, { ...row, population: row.population === null ? null : Number(row.population) }]))
  // another caller read the same version meanwhile: keep its entry (and the neighbours kept with it)
  const meanwhile = catalogs.get(granularity)
  if (meanwhile && meanwhile.version === version) return meanwhile.regions
  catalogs.set(granularity, { version, regions, neighbours: null })
  return regions
}

/** The ids of the regions a scope covers, in catalog order. */
export async function regionsInScope(pool: pg.Pool, granularity: TileGranularity, scope: AtlasScope, version: string): Promise<Region[]> {
  const catalog = await regionCatalog(pool, granularity, version)
  const all = [...catalog.values()]
  if (scope.type === 'COUNTRY') return all
  if (scope.type === 'STATE') return all.filter((region) => region.state === scope.state)
  const params = new SqlParams()
  const key = granularity === 'STATE' ? 'z.state' : granularity === 'COUNTY' ? 'z.county_fips' : 'z.zip'
  const { rows } = await pool.query<{ id: NonNullable<Row<'zips'>['state' | 'county_fips' | 'zip']> }>(
    `SELECT DISTINCT ${key} AS id FROM zips z WHERE z.zip IN (${scopeZipsSql(scope, params)}) AND ${key} IS NOT NULL`,
    params.values,
  )
  const ids = new Set(rows.map((row) => row.id))
  return all.filter((region) => ids.has(region.id))
}

/**
 * Neighbours of each region: first-order contiguity (boundaries touch, mv_region_neighbours) for states and
 * counties; ZIP areas whose centres are within the distance band for ZIP areas (docs/decisions/0032).
 */
export async function neighboursOf(
  pool: pg.Pool,
  granularity: TileGranularity,
  regions: readonly Region[],
  version: string,
): Promise<Map<string, string[]>> {
  if (granularity === 'ZIP_CODE_50KM') return zipNeighbours(pool, regions, version)
  await regionCatalog(pool, granularity, version)
  const entry = catalogs.get(granularity)!
  if (!entry.neighbours) {
    const { rows } = await pool.query<{ a: Row<'mv_region_neighbours'>['region_id']; b: Row<'mv_region_neighbours'>['neighbour_id'] }>(
      'SELECT region_id AS a, neighbour_id AS b FROM mv_region_neighbours WHERE kind = $1',
      [granularity],
    )
    entry.neighbours = groupPairs(rows)
  }
  return entry.neighbours
}

/** ZIP areas whose neighbours one statement reads (a turn: short on the embedded database, which runs one at a time). */
export const ZIP_NEIGHBOUR_TURN = 1_000

/** The ZIP areas within the band of each ZIP that `where` picks (as `a`), each list sorted. */
async function zipPairs(pool: pg.Pool, where: string, params: unknown[]): Promise<Map<string, string[]>> {
  const { rows } = await pool.query<{ a: Row<'zips'>['zip']; b: Row<'zips'>['zip'] }>(
    `SELECT a.zip AS a, b.zip AS b FROM zips a JOIN zips b ON a.zip <> b.zip AND ST_DWithin(a.geog, b.geog, $1) WHERE ${where}`,
    [ATLAS_ZIP_NEIGHBOUR_BAND_M, ...params],
  )
  const pairs = groupPairs(rows)
  for (const list of pairs.values()) list.sort()
  return pairs
}

/** The neighbours kept for the ZIP areas of the version (read with the catalog, filled by searches and the warm-up). */
async function keptZipNeighbours(pool: pg.Pool, version: string): Promise<Map<string, string[]>> {
  await regionCatalog(pool, 'ZIP_CODE_50KM', version)
  const entry = catalogs.get('ZIP_CODE_50KM')!
  return (entry.neighbours ??= new Map())
}

/**
 * The neighbours of ZIP areas: every ZIP within the band of each, whatever the scope (the caller keeps those in its
 * scope), sorted, kept per data version with the catalog. A search reads only the ZIP areas no earlier search (or the
 * warm-up, warmZipNeighbours) has read, so another ZIP scope no longer pays for the pairs again.
 */
async function zipNeighbours(pool: pg.Pool, regions: readonly Region[], version: string): Promise<Map<string, string[]>> {
  const known = await keptZipNeighbours(pool, version)
  const missing = regions.map((region) => region.id).filter((id) => !known.has(id))
  for (let at = 0; at < missing.length; at += ZIP_NEIGHBOUR_TURN) {
    const turn = missing.slice(at, at + ZIP_NEIGHBOUR_TURN)
    const pairs = await zipPairs(pool, 'a.zip = ANY($2::text[])', [turn])
    for (const id of turn) known.set(id, pairs.get(id) ?? [])
  }
  return known
}

/** How many ZIP areas' neighbours are kept for the version (never reads anything). */
export function heldZipNeighbours(version: string): number {
  const entry = catalogs.get('ZIP_CODE_50KM')
  return entry?.version === version ? (entry.neighbours?.size ?? 0) : 0
}

/**
 * Reads the ZIP catalog and the neighbours of every ZIP area of the version (services/atlas/warm.ts, after the
 * indexes): in turns of ZIP_NEIGHBOUR_TURN areas taken as a range of the primary key (an index range, where a list of
 * codes would be checked against every ZIP), yielding between turns. Background reads, as an engine build's: a read
 * replica that has replayed what the primary holds, else the primary (on the embedded database its background pool,
 * whose statements wait for the requests').
 */
export async function warmZipNeighbours(pool: pg.Pool, version: string): Promise<number> {
  const reader = await readPool(pool, { waitMs: BUILD_CATCH_UP_MS })
  const known = await keptZipNeighbours(reader, version)
  // the catalog is in ZIP order (CATALOG_SQL)
  const ids = [...(await regionCatalog(reader, 'ZIP_CODE_50KM', version)).keys()]
  for (let at = 0; at < ids.length; at += ZIP_NEIGHBOUR_TURN) {
    const turn = ids.slice(at, at + ZIP_NEIGHBOUR_TURN).filter((id) => !known.has(id))
    if (turn.length === 0) continue
    const pairs = await zipPairs(reader, 'a.zip BETWEEN $2 AND $3', [turn[0], turn[turn.length - 1]])
    for (const id of turn) known.set(id, pairs.get(id) ?? [])
    await new Promise<void>((resolve) => setImmediate(resolve))
  }
  return ids.length
}

function groupPairs(rows: readonly { a: string; b: string }[]): Map<string, string[]> {
  const map = new Map<string, string[]>()
  for (const { a, b } of rows) {
    const list = map.get(a)
    if (list) list.push(b)
    else map.set(a, [b])
  }
  return map
}
