import { ATLAS_TILE_EXTENT, ATLAS_TILE_LAYER, ATLAS_TILE_POINTS_LAYER, type TileGranularity } from '@citrus/contracts'
import { GeoJSONVT, geoJSONToTile, type GeoJSONVTTile } from '@maplibre/geojson-vt'
import { fromGeojsonVt } from '@maplibre/vt-pbf'
import type { Region } from './regions.js'

/** The attributes a tile carries for each feature; nulls are left out (as ST_AsMVT leaves them out). */
export type TileProperties = Record<string, string | number | boolean | null>
export interface TileFeature {
  id: string
  /** GeoJSON geometry text in WGS84 */
  geometry: string
  properties: TileProperties
}

export const TILE_BUFFER = 64
/** simplification tolerance in tile pixels (of the 4096 extent / 256 px) at each zoom */
const TILE_TOLERANCE = 1
/** zoom up to which the geometry keeps its full detail (beyond it a tile is a scaled copy of this one) */
const TILE_MAX_ZOOM = 12
/** deep tiles cut on demand before the geometry index is rebuilt (bounds its memory) */
const DEEP_TILE_LIMIT = 20_000

type Geometry = { type: string; coordinates: unknown }
type GeoJsonInput = ConstructorParameters<typeof GeoJSONVT>[0]

/** The tile's bounds in longitude/latitude (Web Mercator tile scheme). */
export function tileBounds(z: number, x: number, y: number): { west: number; east: number; north: number; south: number } {
  const n = 2 ** z
  const lon = (i: number) => (i / n) * 360 - 180
  const lat = (j: number) => (Math.atan(Math.sinh(Math.PI * (1 - (2 * j) / n))) * 180) / Math.PI
  return { west: lon(x), east: lon(x + 1), north: lat(y), south: lat(y + 1) }
}

function stripNulls(properties: TileProperties): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {}
  for (const [key, value] of Object.entries(properties)) if (value !== null && value !== undefined) out[key] = value
  return out
}

/**
 * The geometry of every region of a catalog, projected, simplified per zoom and cut into tiles by
 * @maplibre/geojson-vt once per catalog (docs/decisions/0052). A feature's only tag is its region id; a
 * request puts its own attributes on the features of the tile. Tiles below the index's zoom are cut on
 * demand and kept; after DEEP_TILE_LIMIT of them the index is rebuilt.
 */
interface GeometryIndex {
  catalog: ReadonlyMap<string, Region>
  vt: GeoJSONVT
  deepTiles: number
}
const geometryIndexes = new Map<TileGranularity, GeometryIndex>()

function geometryIndex(granularity: TileGranularity, catalog: ReadonlyMap<string, Region>): GeometryIndex {
  const cached = geometryIndexes.get(granularity)
  if (cached && cached.catalog === catalog && cached.deepTiles < DEEP_TILE_LIMIT) return cached
  const features = [...catalog.values()].map((region) => ({
    type: 'Feature',
    geometry: JSON.parse(region.geometry) as Geometry,
    properties: { id: region.id },
  }))
  const vt = new GeoJSONVT({ type: 'FeatureCollection', features } as unknown as GeoJsonInput, {
    maxZoom: TILE_MAX_ZOOM,
    indexMaxZoom: 5,
    tolerance: TILE_TOLERANCE,
    extent: ATLAS_TILE_EXTENT,
    buffer: TILE_BUFFER,
  })
  const index = { catalog, vt, deepTiles: 0 }
  geometryIndexes.set(granularity, index)
  return index
}

/** Builds the geometry index of a catalog ahead of the first tile (the first tile would otherwise wait for it). */
export function prepareTileGeometry(granularity: TileGranularity, catalog: ReadonlyMap<string, Region>): void {
  geometryIndex(granularity, catalog)
}

/**
 * One Mapbox vector tile (extent 4096, buffer 64), the same in both database modes: layer `regions` from the
 * pre-cut geometry of the region catalog with the attributes `propertiesOf` gives each region (regions it
 * gives none are left out), layer `facilities` from the points (cut by geoJSONToTile).
 */
export function regionTile(
  granularity: TileGranularity,
  catalog: ReadonlyMap<string, Region>,
  tile: { z: number; x: number; y: number },
  propertiesOf: (id: string) => TileProperties | null,
  points: readonly TileFeature[],
): Buffer {
  const index = geometryIndex(granularity, catalog)
  if (tile.z > 5) index.deepTiles++
  const cut = index.vt.getTile(tile.z, tile.x, tile.y)
  const layers: Record<string, GeoJSONVTTile> = {}
  if (cut) {
    const features: GeoJSONVTTile['features'] = []
    for (const feature of cut.features) {
      const properties = propertiesOf(String(feature.tags?.id))
      if (properties) features.push({ ...feature, tags: stripNulls(properties) })
    }
    if (features.length > 0) layers[ATLAS_TILE_LAYER] = { ...cut, features }
  }
  if (points.length > 0) {
    const collection = {
      type: 'FeatureCollection',
      features: points.map((p) => ({
        type: 'Feature',
        geometry: JSON.parse(p.geometry) as Geometry,
        properties: stripNulls(p.properties),
      })),
    } as unknown as Parameters<typeof geoJSONToTile>[0]
    const pointTile = geoJSONToTile(collection, tile.z, tile.x, tile.y, {
      extent: ATLAS_TILE_EXTENT,
      buffer: TILE_BUFFER,
      clip: true,
      tolerance: TILE_TOLERANCE,
    })
    if (pointTile.features.length > 0) layers[ATLAS_TILE_POINTS_LAYER] = pointTile
  }
  if (Object.keys(layers).length === 0) return Buffer.alloc(0)
  return Buffer.from(fromGeojsonVt(layers, { version: 2, extent: ATLAS_TILE_EXTENT }))
}
