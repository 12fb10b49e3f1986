import { createHash } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { requestDataVersion } from '../lib/versioned-cache.js'

/**
 * HTTP caching of data-versioned answers (docs/decisions/0077). An answer that changes only with the data version
 * carries a weak ETag of (data version, route, normalised request, the caller's company and role, and whatever else
 * the route says the answer depends on) and `Cache-Control: private, no-cache`: a browser keeps it for that user
 * and asks again with If-None-Match, and a matching tag gets 304 before the route's handler runs (no ranking, no
 * count, no body). Nothing is kept on the server: the tag is recomputed from the request, so any number of
 * processes agree on it.
 */

/** Sent with every tagged answer: only the caller's browser keeps it, and it revalidates every time. */
export const VERSIONED_CACHE_CONTROL = 'private, no-cache'

export interface ConditionalOptions {
  /** what else the answer depends on, read before the work (e.g. the company's plan tier) */
  vary?: (request: FastifyRequest) => Promise<string> | string
  /** runs before a 304 goes out, e.g. to take the credit a 200 would have taken (docs/decisions/0077) */
  beforeNotModified?: (request: FastifyRequest, reply: FastifyReply) => Promise<void>
}

export interface HttpCacheCounts {
  /** answers sent 304 Not Modified */
  notModified: number
  /** tagged answers sent in full (200) */
  sent: number
}

declare module 'fastify' {
  interface FastifyRequest {
    /** the ETag of this request's answer (null: the answer is not data-versioned, or _bypass_cache) */
    versionedEtag: string | null
  }
  interface FastifyInstance {
    /** a preHandler (after the access guard and metering) answering 304 to a matching If-None-Match */
    conditional(options?: ConditionalOptions): (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>
    httpCacheCounts: HttpCacheCounts
  }
}

/** JSON with object keys sorted, so that the same request always gives the same text. */
export function stableJson(value: unknown): string {
  if (value === undefined) return 'null'
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null'
  if (value instanceof Date) return JSON.stringify(value.toISOString())
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`
  const object = value as Record<string, unknown>
  const keys = Object.keys(object)
    .filter((key) => object[key] !== undefined)
    .sort()
  return `{${keys.map((key) => `${JSON.stringify(key)}:${stableJson(object[key])}`).join(',')}}`
}

/** Whether the request asks to recompute (`_bypass_cache=true` in the query or the body). */
function bypasses(request: FastifyRequest): boolean {
  const flag = (source: unknown) =>
    typeof source === 'object' && source !== null && (source as { _bypass_cache?: unknown })._bypass_cache === true
  return flag(request.query) || flag(request.body)
}

/**
 * The ETag of an answer: a digest of the data version, the route, the request as validated (params, query and
 * body after the contract parsed them, keys sorted), the caller's company and role and `extra`. Weak (W/): the
 * same answer may go out in another encoding, or with a per-request field such as Price Check's `cached`.
 */
export function versionedEtagOf(request: FastifyRequest, version: string, extra: string): string {
  const principal = request.auth
  const caller = principal ? `${principal.kind}:${principal.company_id}:${principal.role}` : 'anonymous'
  const digest = createHash('sha256')
    .update(
      stableJson([
        version,
        request.method,
        request.routeOptions.url ?? request.url,
        caller,
        extra,
        request.params,
        request.query,
        request.body,
      ]),
    )
    .digest('base64url')
    .slice(0, 27)
  return `W/"${digest}"`
}

/** RFC 9110 §13.1.2 weak comparison of If-None-Match with a tag. */
export function ifNoneMatchHas(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '')
  const wanted = opaque(etag)
  return (Array.isArray(header) ? header.join(',') : header).split(',').some((tag) => tag.trim() === '*' || opaque(tag) === wanted)
}

function appendVary(reply: FastifyReply, field: string): void {
  const current = reply.getHeader('vary')
  const fields = String(current ?? '')
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean)
  if (fields.some((f) => f === '*' || f.toLowerCase() === field.toLowerCase())) return
  reply.header('vary', [...fields, field].join(', '))
}

/** Registers request.versionedEtag, app.conditional and the hook that labels tagged 200 answers. */
export function registerHttpCache(app: FastifyInstance): void {
  const counts: HttpCacheCounts = { notModified: 0, sent: 0 }
  app.decorate('httpCacheCounts', counts)
  app.decorateRequest('versionedEtag', null)

  app.decorate('conditional', (options: ConditionalOptions = {}) => async (request: FastifyRequest, reply: FastifyReply) => {
    if (bypasses(request)) return undefined
    const [version, extra] = await Promise.all([requestDataVersion(request), options.vary ? options.vary(request) : ''])
    const etag = versionedEtagOf(request, version, extra)
    request.versionedEtag = etag
    if (!ifNoneMatchHas(request.headers['if-none-match'], etag)) return undefined
    if (options.beforeNotModified) await options.beforeNotModified(request, reply)
    counts.notModified++
    reply.header('etag', etag).header('cache-control', VERSIONED_CACHE_CONTROL)
    appendVary(reply, 'Authorization')
    return reply.code(304).send()
  })

  // only a full answer is labelled: an error (4xx, 5xx) carries no tag that could later validate it
  app.addHook('onSend', async (request, reply, payload) => {
    const etag = request.versionedEtag
    if (etag === null || reply.statusCode !== 200) return payload
    counts.sent++
    reply.header('etag', etag)
    // a route's own policy stays (Atlas tiles may be reused for a minute, then revalidate with the tag)
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', VERSIONED_CACHE_CONTROL)
    appendVary(reply, 'Authorization')
    return payload
  })
}
