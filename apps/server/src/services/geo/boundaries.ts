import { createHash } from 'node:crypto'
import { GEO_COUNTY_MIN_ZOOM, GEO_TILE_LAYERS, type GeoLevel } from '@citrus/contracts'
import type pg from 'pg'
import type { TileLayer } from '../../lib/vector-tiles.js'

/** Simplification of the GeoJSON outlines, in degrees (about 1 km for states, 500 m for counties). */
export const BOUNDARY_TOLERANCE: Record<GeoLevel, number> = { state: 0.01, county: 0.005 }
/** Decimal digits of GeoJSON coordinates (1e-4 degrees is about 10 m, well under the tolerance). */
const COORDINATE_DIGITS = 4

/** A cached body with its validator. */
export interface CachedBody {
  body: Buffer
  etag: string
  version: number
}

/** Changes whenever a seed or an import finishes (they may rewrite the states and counties rows). */
export async function boundaryDataVersion(pool: pg.Pool): Promise<number> {
  const result = await pool.query<{ version: number }>(`SELECT coalesce(max(id), 0)::int AS version FROM data_loads WHERE status = 'done'`)
  return result.rows[0]?.version ?? 0
}

export function etagOf(body: Buffer): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`
}

/** Whether an If-None-Match header matches the ETag (a list, weak validators and * included). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false
  return header.split(',').some((candidate) => {
    const value = candidate.trim().replace(/^W\//, '')
    return value === '*' || value === etag
  })
}

/** A state given as abbreviation or FIPS code, upper-cased by the contract. */
function stateFilter(state: string | undefined, column: string, abbrColumn: string, index: number): string {
  if (!state) return 'TRUE'
  return /^\d{2}$/.test(state) ? `${column} = $${index}` : `${abbrColumn} = $${index}`
}

/**
 * The GeoJSON FeatureCollection of a level as one JSON text, built by the database (ST_AsGeoJSON of the
 * simplified geometry). Shape: the contract's boundaryCollectionSchema.
 */
export async function boundaryCollectionJson(pool: pg.Pool, level: GeoLevel, state: string | undefined): Promise<string> {
  const tolerance = BOUNDARY_TOLERANCE[level]
  const params: unknown[] = [tolerance]
  if (state) params.push(state)
  const rows =
    level === 'state'
      ? `SELECT s.fips AS id, s.fips, s.name, 'state' AS level, s.fips AS state_fips, s.abbr, s.population, s.geom
         FROM states s WHERE s.geom IS NOT NULL AND ${stateFilter(state, 's.fips', 's.abbr', 2)}`
      : `SELECT c.fips AS id, c.fips, c.name, 'county' AS level, c.state_fips, s.abbr, c.population, c.geom
         FROM counties c JOIN states s ON s.fips = c.state_fips
         WHERE c.geom IS NOT NULL AND ${stateFilter(state, 'c.state_fips', 's.abbr', 2)}`
  const result = await pool.query<{ json: string }>(
    `SELECT json_build_object(
       'type', 'FeatureCollection',
       'level', '${level}',
       'tolerance', $1::float8,
       'features', coalesce(json_agg(json_build_object(
         'type', 'Feature',
         'id', b.id,
         'properties', json_build_object('fips', b.fips, 'name', b.name, 'level', b.level, 'state_fips', b.state_fips, 'abbr', b.abbr,
           'population', b.population
         ),
         'geometry', ST_AsGeoJSON(ST_SimplifyPreserveTopology(b.geom, $1::float8), ${COORDINATE_DIGITS})::json
       ) ORDER BY b.id), '[]'::json)
     )::text AS json
     FROM (${rows}) b`,
    params,
  )
  return result.rows[0]?.json ?? '{"type":"FeatureCollection","features":[]}'
}

/** The basemap's tile layers: state outlines always, county outlines from GEO_COUNTY_MIN_ZOOM. */
export const BASEMAP_LAYERS: readonly TileLayer[] = [
  {
    name: GEO_TILE_LAYERS.states,
    sql: `SELECT s.fips::int AS id,
                 jsonb_build_object('fips', s.fips, 'name', s.name, 'abbr', s.abbr, 'level', 'state') AS properties,
                 s.geom
          FROM states s`,
  },
  {
    name: GEO_TILE_LAYERS.counties,
    minzoom: GEO_COUNTY_MIN_ZOOM,
    sql: `SELECT c.fips::int AS id,
                 jsonb_build_object('fips', c.fips, 'name', c.name, 'state_fips', c.state_fips, 'abbr', s.abbr, 'level', 'county') AS properties,
                 c.geom
          FROM counties c JOIN states s ON s.fips = c.state_fips`,
  },
]
