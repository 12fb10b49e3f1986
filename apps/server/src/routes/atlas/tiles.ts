import { ATLAS_TILE_EXTENT, ATLAS_TILE_LAYER, ATLAS_TILE_POINTS_LAYER, type TileGranularity } from '@citrus/contracts'
import { geoJSONToTile } from '@maplibre/geojson-vt'
import { fromGeojsonVt } from '@maplibre/vt-pbf'
import type pg from 'pg'

/** The attributes a tile carries for each feature; nulls are left out (as ST_AsMVT leaves them out). */
export type TileProperties = Record<string, string | number | boolean | null>
export interface TileFeature {
  id: string
  /** GeoJSON geometry text in WGS84 */
  geometry: string
  properties: TileProperties
}

export const TILE_BUFFER = 64

/** GeoJSON as geojson-vt reads it (the coordinates are only walked for the bounding box here). */
type Geometry = { type: string; coordinates: unknown }
type Feature = { type: 'Feature'; geometry: Geometry; properties: Record<string, unknown> }
type GeoJsonInput = Parameters<typeof geoJSONToTile>[0]

const GEOMETRY_SQL: Record<TileGranularity, string> = {
  STATE: 'SELECT s.abbr AS id, s.geom FROM states s WHERE s.abbr = ANY($1::text[])',
  COUNTY: 'SELECT c.fips AS id, c.geom FROM counties c WHERE c.fips = ANY($1::text[])',
  ZIP_CODE_50KM:
    'SELECT z.zip AS id, ST_SetSRID(ST_MakePoint(z.longitude, z.latitude), 4326) AS geom FROM zips z WHERE z.zip = ANY($1::text[])',
}

/** The tile's bounds in longitude/latitude (Web Mercator tile scheme). */
export function tileBounds(z: number, x: number, y: number): { west: number; east: number; north: number; south: number } {
  const n = 2 ** z
  const lon = (i: number) => (i / n) * 360 - 180
  const lat = (j: number) => (Math.atan(Math.sinh(Math.PI * (1 - (2 * j) / n))) * 180) / Math.PI
  return { west: lon(x), east: lon(x + 1), north: lat(y), south: lat(y + 1) }
}

/**
 * On PostgreSQL: ST_AsMVT over the regions' geometries with the attributes passed in as JSON (one layer of
 * regions, one of facility points). The result is one protobuf tile.
 */
export async function tileWithPostgis(
  pool: pg.Pool,
  granularity: TileGranularity,
  tile: { z: number; x: number; y: number },
  regions: readonly TileFeature[],
  points: readonly TileFeature[],
): Promise<Buffer> {
  const attributes = (features: readonly TileFeature[]) =>
    JSON.stringify(features.map((f) => ({ id: f.id, props: stripNulls(f.properties) })))
  const { rows } = await pool.query<{ tile: Buffer | null }>(
    `WITH b AS (SELECT ST_TileEnvelope($3::int, $4::int, $5::int) AS env, ST_Transform(ST_TileEnvelope($3::int, $4::int, $5::int, margin => $6::int::float8 / $7::int), 4326) AS env4326),
     a AS (SELECT * FROM json_to_recordset($2::json) AS a(id text, props jsonb)),
     g AS (${GEOMETRY_SQL[granularity]}),
     r AS (
       SELECT a.props, ST_AsMVTGeom(ST_Transform(g.geom, 3857), b.env, $7::int, $6::int, true) AS geom
       FROM a JOIN g ON g.id = a.id CROSS JOIN b WHERE g.geom && b.env4326
     ),
     pa AS (SELECT * FROM json_to_recordset($8::json) AS pa(id text, props jsonb, lng float8, lat float8)),
     p AS (
       SELECT pa.props, ST_AsMVTGeom(ST_Transform(ST_SetSRID(ST_MakePoint(pa.lng, pa.lat), 4326), 3857), b.env, $7::int, $6::int, true) AS geom
       FROM pa CROSS JOIN b WHERE ST_SetSRID(ST_MakePoint(pa.lng, pa.lat), 4326) && b.env4326
     )
     SELECT (SELECT ST_AsMVT(r2, '${ATLAS_TILE_LAYER}', $7::int, 'geom') FROM (SELECT geom, props FROM r WHERE geom IS NOT NULL) r2)
         || (SELECT ST_AsMVT(p2, '${ATLAS_TILE_POINTS_LAYER}', $7::int, 'geom') FROM (SELECT geom, props FROM p WHERE geom IS NOT NULL) p2) AS tile`,
    [
      regions.map((r) => r.id),
      attributes(regions),
      tile.z,
      tile.x,
      tile.y,
      TILE_BUFFER,
      ATLAS_TILE_EXTENT,
      JSON.stringify(points.map((p) => ({ id: p.id, props: stripNulls(p.properties), ...pointOf(p.geometry) }))),
    ],
  )
  return rows[0]?.tile ?? Buffer.alloc(0)
}

/**
 * The features whose bounding box reaches the tile or the tile next to it: a cheap superset of what
 * ST_AsMVT keeps (it filters with the buffered envelope again), so the database gets the tile's regions
 * rather than every region of the country.
 */
export function nearTile<T>(tile: { z: number; x: number; y: number }, items: readonly T[], geometryOf: (item: T) => string): T[] {
  const bounds = tileBounds(tile.z, tile.x, tile.y)
  const marginX = bounds.east - bounds.west
  const marginY = bounds.north - bounds.south
  return items.filter((item) => {
    const [w, s, e, n] = bboxOf(parseGeometry(geometryOf(item)))
    return !(e < bounds.west - marginX || w > bounds.east + marginX || n < bounds.south - marginY || s > bounds.north + marginY)
  })
}

function pointOf(geometry: string): { lng: number; lat: number } {
  const parsed = JSON.parse(geometry) as { coordinates: [number, number] }
  return { lng: parsed.coordinates[0], lat: parsed.coordinates[1] }
}

function stripNulls(properties: TileProperties): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {}
  for (const [key, value] of Object.entries(properties)) if (value !== null && value !== undefined) out[key] = value
  return out
}

const bboxCache = new WeakMap<object, [number, number, number, number]>()

function bboxOf(geometry: Geometry): [number, number, number, number] {
  const cached = bboxCache.get(geometry)
  if (cached) return cached
  const box: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity]
  const visit = (coords: unknown): void => {
    if (Array.isArray(coords) && typeof coords[0] === 'number') {
      const [lng, lat] = coords as [number, number]
      if (lng < box[0]) box[0] = lng
      if (lat < box[1]) box[1] = lat
      if (lng > box[2]) box[2] = lng
      if (lat > box[3]) box[3] = lat
    } else if (Array.isArray(coords)) for (const c of coords) visit(c)
  }
  visit(geometry.coordinates)
  bboxCache.set(geometry, box)
  return box
}

const parsedGeometries = new Map<string, Geometry>()
function parseGeometry(text: string): Geometry {
  let geometry = parsedGeometries.get(text)
  if (!geometry) {
    geometry = JSON.parse(text) as Geometry
    if (parsedGeometries.size > 50_000) parsedGeometries.clear()
    parsedGeometries.set(text, geometry)
  }
  return geometry
}

/**
 * In Node (the embedded PostGIS has no protobuf support): the features that reach the tile (with the
 * same buffer) cut and encoded by @maplibre/geojson-vt and @maplibre/vt-pbf, in the layers ST_AsMVT makes.
 */
export function tileInNode(
  tile: { z: number; x: number; y: number },
  regions: readonly TileFeature[],
  points: readonly TileFeature[],
): Buffer {
  const bounds = tileBounds(tile.z, tile.x, tile.y)
  const marginX = ((bounds.east - bounds.west) * TILE_BUFFER) / ATLAS_TILE_EXTENT
  const marginY = ((bounds.north - bounds.south) * TILE_BUFFER) / ATLAS_TILE_EXTENT
  const layer = (features: readonly TileFeature[]) => {
    const selected: Feature[] = []
    for (const feature of features) {
      const geometry = parseGeometry(feature.geometry)
      const [w, s, e, n] = bboxOf(geometry)
      if (e < bounds.west - marginX || w > bounds.east + marginX || n < bounds.south - marginY || s > bounds.north + marginY) continue
      selected.push({ type: 'Feature', geometry, properties: stripNulls(feature.properties) })
    }
    const collection = { type: 'FeatureCollection', features: selected } as unknown as GeoJsonInput
    return geoJSONToTile(collection, tile.z, tile.x, tile.y, { extent: ATLAS_TILE_EXTENT, buffer: TILE_BUFFER, clip: true, tolerance: 1 })
  }
  const layers = { [ATLAS_TILE_LAYER]: layer(regions), [ATLAS_TILE_POINTS_LAYER]: layer(points) }
  const nonEmpty = Object.fromEntries(Object.entries(layers).filter(([, t]) => t.features.length > 0))
  if (Object.keys(nonEmpty).length === 0) return Buffer.alloc(0)
  return Buffer.from(fromGeojsonVt(nonEmpty, { version: 2, extent: ATLAS_TILE_EXTENT }))
}
