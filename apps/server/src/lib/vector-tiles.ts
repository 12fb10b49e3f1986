import { geoJSONToTile } from '@maplibre/geojson-vt'
import { fromGeojsonVt } from '@maplibre/vt-pbf'
import type pg from 'pg'

/**
 * Mapbox Vector Tiles from SQL, the same in both database modes (docs/decisions/0020-map-basemap.md).
 *
 * PostgreSQL encodes with ST_AsMVTGeom/ST_AsMVT. The embedded PostGIS is compiled without protobuf-c
 * ("ST_AsMVTGeom: Compiled without protobuf-c support"), so there the same rows are read as GeoJSON and
 * encoded in Node with @maplibre/geojson-vt and @maplibre/vt-pbf (the libraries MapLibre itself uses).
 * Both encoders read the same SQL, filtered to the same tile envelope and simplified with the same
 * tolerance, with the same extent and buffer, so a tile decodes to the same features either way.
 *
 * Used by the basemap (services/geo) and by the choropleth tiles of Atlas and Nova: a layer is any SQL that
 * returns the columns `id` (integer or null), `geom` (geometry in EPSG:4326) and `properties` (jsonb).
 */

export const TILE_EXTENT = 4096
export const TILE_BUFFER = 64

export type TileEncoder = 'postgis' | 'node'

export interface TileCoordinates {
  z: number
  x: number
  y: number
}

export interface TileLayer {
  /** layer name in the tile (a MapLibre `source-layer`) */
  name: string
  /**
   * Source rows: `id` (integer feature id or null), `geom` (geometry, SRID 4326) and `properties` (jsonb
   * object; keys with null values are left out). Placeholders $1..$n take `params`; the builder adds the
   * tile envelope filter and simplification around it.
   */
  sql: string
  params?: readonly unknown[]
  /** the layer is left out below this zoom */
  minzoom?: number
  /** simplify lines and polygons to the tile's resolution (default true) */
  simplify?: boolean
}

const probed = new WeakMap<pg.Pool, Promise<TileEncoder>>()

/**
 * The encoder the database supports: ST_AsMVT where PostGIS has protobuf-c, else Node. Probed once per
 * pool, not taken from the database mode: the embedded database is also reached through a DATABASE_URL
 * (its socket server), and a PostgreSQL build may lack protobuf-c too.
 */
export function tileEncoderOf(pool: pg.Pool): Promise<TileEncoder> {
  let encoder = probed.get(pool)
  if (!encoder) {
    encoder = pool
      .query(
        `SELECT ST_AsMVT(t, 'probe') FROM (SELECT ST_AsMVTGeom(ST_MakePoint(0, 0)::geometry, ST_MakeEnvelope(-1, -1, 1, 1)) AS geom) t`,
      )
      .then(
        (): TileEncoder => 'postgis',
        (): TileEncoder => 'node',
      )
    probed.set(pool, encoder)
  }
  return encoder
}

/** Simplification tolerance in degrees at zoom z: one tile unit (the extent's resolution). */
export function simplifyTolerance(z: number): number {
  return 360 / (TILE_EXTENT * 2 ** z)
}

/**
 * The longitude/latitude box of a tile with its buffer, clamped to the world (ST_TileEnvelope's margin
 * wraps around the antimeridian at the edges of the pyramid, which would select the wrong side).
 */
export function bufferedTileBounds(tile: TileCoordinates): [number, number, number, number] {
  const n = 2 ** tile.z
  const margin = TILE_BUFFER / TILE_EXTENT
  const lng = (value: number) => Math.min(180, Math.max(-180, (value / n) * 360 - 180))
  const lat = (value: number) => {
    const clamped = Math.min(n, Math.max(0, value))
    return (Math.atan(Math.sinh(Math.PI * (1 - (2 * clamped) / n))) * 180) / Math.PI
  }
  return [lng(tile.x - margin), lat(tile.y + 1 + margin), lng(tile.x + 1 + margin), lat(tile.y - margin)]
}

/**
 * The rows of a layer inside the tile (with the buffer), simplified: the common part of both encoders.
 * `$n+1..$n+4` are west, south, east, north of the buffered tile; `$n+5` the simplification tolerance.
 */
function layerSource(layer: TileLayer): { sql: string; n: number } {
  const n = layer.params?.length ?? 0
  const simplify = layer.simplify ?? true
  const geom = simplify ? `ST_SimplifyPreserveTopology(src.geom, $${n + 5}::float8)` : 'src.geom'
  const sql = `
    SELECT src.id::bigint AS id, src.properties::jsonb AS properties, ${geom} AS geom
    FROM (${layer.sql}) src
    WHERE src.geom IS NOT NULL
      AND src.geom && ST_MakeEnvelope($${n + 1}::float8, $${n + 2}::float8, $${n + 3}::float8, $${n + 4}::float8, 4326)`
  return { sql, n }
}

function sourceParams(layer: TileLayer, tile: TileCoordinates): unknown[] {
  return [...(layer.params ?? []), ...bufferedTileBounds(tile), simplifyTolerance(tile.z)]
}

function activeLayers(layers: readonly TileLayer[], z: number): TileLayer[] {
  return layers.filter((layer) => z >= (layer.minzoom ?? 0))
}

async function postgisLayer(pool: pg.Pool, layer: TileLayer, tile: TileCoordinates): Promise<Buffer> {
  const { sql, n } = layerSource(layer)
  const query = `
    WITH rows AS (${sql}),
    mvt AS (
      SELECT rows.id, rows.properties,
             ST_AsMVTGeom(ST_Transform(rows.geom, 3857), ST_TileEnvelope($${n + 6}::int, $${n + 7}::int, $${n + 8}::int),
                          ${TILE_EXTENT}, ${TILE_BUFFER}, true) AS geom
      FROM rows
    )
    SELECT ST_AsMVT(mvt.*, $${n + 9}::text, ${TILE_EXTENT}, 'geom', 'id') AS tile FROM mvt WHERE mvt.geom IS NOT NULL`
  const result = await pool.query<{ tile: Buffer | null }>(query, [...sourceParams(layer, tile), tile.z, tile.x, tile.y, layer.name])
  return result.rows[0]?.tile ?? Buffer.alloc(0)
}

interface SourceRow {
  id: string | null
  properties: Record<string, unknown> | null
  geojson: string
}

async function nodeLayerFeatures(pool: pg.Pool, layer: TileLayer, tile: TileCoordinates): Promise<GeoJSON.FeatureCollection> {
  const { sql } = layerSource(layer)
  const result = await pool.query<SourceRow>(
    `SELECT rows.id::text AS id, rows.properties, ST_AsGeoJSON(rows.geom) AS geojson FROM (${sql}) rows`,
    sourceParams(layer, tile),
  )
  const features: GeoJSON.Feature[] = result.rows.map((row) => ({
    type: 'Feature',
    ...(row.id !== null ? { id: Number(row.id) } : {}),
    properties: withoutNulls(row.properties ?? {}),
    geometry: JSON.parse(row.geojson) as GeoJSON.Geometry,
  }))
  return { type: 'FeatureCollection', features }
}

function withoutNulls(properties: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(properties)) if (value !== null && value !== undefined) out[key] = value
  return out
}

async function nodeTile(pool: pg.Pool, layers: readonly TileLayer[], tile: TileCoordinates): Promise<Buffer> {
  const encoded: Parameters<typeof fromGeojsonVt>[0] = {}
  for (const layer of layers) {
    const collection = await nodeLayerFeatures(pool, layer, tile)
    if (collection.features.length === 0) continue
    // The SQL already simplified; a tolerance of one tile unit drops what collapses on the integer grid,
    // as ST_AsMVTGeom does when it snaps (small county equivalents at low zoom).
    const built = geoJSONToTile(collection, tile.z, tile.x, tile.y, {
      extent: TILE_EXTENT,
      buffer: TILE_BUFFER,
      tolerance: 1,
      clip: true,
      wrap: false,
    })
    if (built && built.features.length > 0) encoded[layer.name] = built
  }
  if (Object.keys(encoded).length === 0) return Buffer.alloc(0)
  const bytes = fromGeojsonVt(encoded, { version: 2, extent: TILE_EXTENT })
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

/**
 * One vector tile of the given layers (empty buffer when no layer has a feature in it). The encoder
 * defaults to the database mode's; tests build both on PostgreSQL to compare them.
 */
export async function buildVectorTile(
  pool: pg.Pool,
  encoder: TileEncoder,
  tile: TileCoordinates,
  layers: readonly TileLayer[],
): Promise<Buffer> {
  const active = activeLayers(layers, tile.z)
  if (encoder === 'node') return nodeTile(pool, active, tile)
  // MVT layers are concatenable: a tile is the sequence of its layer messages
  const parts: Buffer[] = []
  for (const layer of active) parts.push(await postgisLayer(pool, layer, tile))
  return Buffer.concat(parts)
}
