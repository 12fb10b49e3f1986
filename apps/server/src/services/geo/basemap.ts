import type { GeoLevel } from '@citrus/contracts'
import type pg from 'pg'
import { buildVectorTile, tileEncoderOf } from '../../lib/vector-tiles.js'
import { BASEMAP_LAYERS, boundaryCollectionJson, boundaryDataVersion, etagOf, type CachedBody } from './boundaries.js'
import { placeCollectionJson } from './places.js'

/** Tiles kept in memory (a national view at zoom 3-6 is a few hundred). */
const TILE_CACHE_SIZE = 2_000

/**
 * The offline basemap's bodies (docs/decisions/0020-map-basemap.md): state and county outlines as GeoJSON, the
 * label points, and vector tiles, each kept with its ETag until the boundary data version changes (tiles: the
 * TILE_CACHE_SIZE most recently used).
 */
export class BasemapService {
  private readonly boundaryCache = new Map<string, CachedBody>()
  private readonly tileCache = new Map<string, CachedBody>()
  private placesCache: CachedBody | undefined

  constructor(private readonly pool: pg.Pool) {}

  async boundaries(level: GeoLevel, state: string | undefined): Promise<CachedBody> {
    const version = await boundaryDataVersion(this.pool)
    const key = `${level}:${state ?? ''}`
    let cached = this.boundaryCache.get(key)
    if (!cached || cached.version !== version) {
      const body = Buffer.from(await boundaryCollectionJson(this.pool, level, state), 'utf8')
      cached = { body, etag: etagOf(body), version }
      this.boundaryCache.set(key, cached)
    }
    return cached
  }

  /** One body for everyone: the label points of the basemap (states and the largest cities). */
  async places(): Promise<CachedBody> {
    const version = await boundaryDataVersion(this.pool)
    if (!this.placesCache || this.placesCache.version !== version) {
      const body = Buffer.from(await placeCollectionJson(this.pool), 'utf8')
      this.placesCache = { body, etag: etagOf(body), version }
    }
    return this.placesCache
  }

  /** A vector tile of the basemap (the caller checks that the tile is in range). */
  async tile(z: number, x: number, y: number): Promise<CachedBody> {
    const version = await boundaryDataVersion(this.pool)
    const key = `${z}/${x}/${y}`
    let cached = this.tileCache.get(key)
    if (!cached || cached.version !== version) {
      const body = await buildVectorTile(this.pool, await tileEncoderOf(this.pool), { z, x, y }, BASEMAP_LAYERS)
      cached = { body, etag: etagOf(body), version }
      if (this.tileCache.size >= TILE_CACHE_SIZE) this.tileCache.delete(this.tileCache.keys().next().value as string)
    } else {
      this.tileCache.delete(key) // least recently used goes first
    }
    this.tileCache.set(key, cached)
    return cached
  }
}
