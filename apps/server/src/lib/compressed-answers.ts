import { promisify } from 'node:util'
import { gzip as gzipCallback } from 'node:zlib'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type pg from 'pg'
import { reportCacheLookups } from './engine-stats.js'
import { VersionedLruCache } from './versioned-cache.js'
import { sendJsonText } from './endpoint.js'

/**
 * The gzip bytes of large data-versioned answers, kept per process so that a repeated answer without If-None-Match
 * (another user of any company asking the same thing) is not compressed again (docs/decisions/0077, Consequences).
 * Keyed by the answer's own identity (what every caller who gets the same bytes shares, e.g. Atlas's result key
 * with the tier and options) and the data version: a new version misses and replaces the entry. Bounded by bytes
 * (`COMPRESSED_CACHE_MB`), least recently used dropped first. Compression is zlib's (the same library and level as
 * @fastify/compress), on libuv's thread pool; a reply sent from here carries Content-Encoding, so the plugin leaves it.
 */

/** Bodies below this are left to @fastify/compress on every request. */
export const COMPRESSED_MIN_BYTES = 64 * 1024
const MAX_ENTRIES = 10_000

const caches = new WeakMap<pg.Pool, VersionedLruCache<Buffer>>()
const gzip = promisify(gzipCallback)

/** The cache of the app's pool, bounded by its COMPRESSED_CACHE_MB (config.ts; 0 = none: null). */
function cacheOf(app: FastifyInstance): VersionedLruCache<Buffer> | null {
  const limitBytes = app.config.env.COMPRESSED_CACHE_MB * 2 ** 20
  if (limitBytes <= 0) return null
  const pool = app.db.pool
  let cache = caches.get(pool)
  if (!cache) caches.set(pool, (cache = new VersionedLruCache<Buffer>(MAX_ENTRIES, Number.POSITIVE_INFINITY, Date.now, limitBytes)))
  return cache
}

reportCacheLookups('compressed_answers', (pool) => caches.get(pool)?.stats ?? { hits: 0, misses: 0 })

/** The bytes held for `pool` (tests, /metrics readers). */
export function compressedCacheStats(pool: pg.Pool): { hits: number; misses: number; bytes: number; entries: number } {
  const cache = caches.get(pool)
  return cache ? { ...cache.stats, bytes: cache.weight, entries: cache.size } : { hits: 0, misses: 0, bytes: 0, entries: 0 }
}

/**
 * Whether the request's Accept-Encoding makes @fastify/compress (encodings gzip, deflate) choose gzip: gzip (or
 * x-gzip, or `*`) with the highest non-zero quality, deflate winning only with a higher one.
 */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  if (header === undefined) return false
  const q = new Map<string, number>()
  for (const part of (Array.isArray(header) ? header.join(',') : header).toLowerCase().split(',')) {
    const [name, ...params] = part.split(';').map((s) => s.trim())
    if (!name) continue
    const quality = params.find((p) => p.startsWith('q='))
    const value = quality === undefined ? 1 : Number(quality.slice(2))
    q.set(name === 'x-gzip' ? 'gzip' : name, Number.isFinite(value) ? value : 0)
  }
  const gz = q.get('gzip') ?? q.get('*') ?? 0
  const deflate = q.get('deflate') ?? q.get('*') ?? 0
  return gz > 0 && gz >= deflate
}

/**
 * Sends a JSON answer: when it is large and the client takes gzip, its compressed bytes from the cache (kept on a
 * miss), with Content-Encoding and Vary: Accept-Encoding; otherwise as text for @fastify/compress to negotiate.
 * `key` names the answer (the same bytes for every caller with this key and `version`); null = do not keep
 * (e.g. _bypass_cache).
 */
export async function sendCachedJson(
  request: FastifyRequest,
  reply: FastifyReply,
  key: string | null,
  version: string,
  body: () => string | Buffer,
): Promise<FastifyReply> {
  const cache = key === null || !acceptsGzip(request.headers['accept-encoding']) ? null : cacheOf(request.server)
  if (cache === null) return sendJsonText(reply, body())
  const cacheKey = `${key}\u0000gzip`
  let bytes = cache.get(cacheKey, version)
  if (!bytes) {
    const text = body()
    if (Buffer.byteLength(text) < COMPRESSED_MIN_BYTES) return sendJsonText(reply, text)
    bytes = await gzip(text)
    cache.set(cacheKey, version, bytes, bytes.length)
  }
  const vary = String(reply.getHeader('vary') ?? '')
  if (!/(^|,)\s*accept-encoding\s*(,|$)/i.test(vary)) reply.header('vary', vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding')
  return reply.header('content-type', 'application/json; charset=utf-8').header('content-encoding', 'gzip').send(bytes)
}
