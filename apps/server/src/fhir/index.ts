import { createHash, randomUUID } from 'node:crypto'
import { Readable } from 'node:stream'
import { constants as zlibConstants } from 'node:zlib'
import { FHIR_MEDIA_TYPE, FHIR_MESSAGES, FHIR_RESOURCE_TYPES, type FhirResourceType } from '@citrus/contracts'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { boundedPool } from '../db/database.js'
import { AnswerBuffers } from '../lib/answer-buffers.js'
import { registerFhirAccess } from './access.js'
import { capabilityStatement } from './capability.js'
import { exportManifest, exportStream, parseExportType } from './export.js'
import { FhirError, fhirNotFound, invalid, operationOutcome, outcomeOf } from './outcome.js'
import { checkFormat, parseSearch } from './params.js'
import { directoryVersion, distanceExtension, QUERY_CANCELED, read, search, type DirectoryVersion, type Rendered } from './search.js'

/** requests per minute per client address, counted across every server process (auth/request-rate-store.ts) */
export const FHIR_REQUESTS_PER_MINUTE = 1200
const FORM_BODY_LIMIT = 64 * 1024
const SOFTWARE = { name: 'Citrus', version: '2.3.0' }

const isResourceType = (type: string): type is FhirResourceType => (FHIR_RESOURCE_TYPES as readonly string[]).includes(type)

function resourceType(type: string): FhirResourceType {
  if (!isResourceType(type)) throw fhirNotFound(FHIR_MESSAGES.unknownType(type))
  return type
}

function baseUrl(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}/fhir`
}

function sendFhir(reply: FastifyReply, status: number, body: unknown) {
  return sendFhirText(reply, status, JSON.stringify(body))
}

function sendFhirText(reply: FastifyReply, status: number, text: string | Buffer) {
  return reply.status(status).type(`${FHIR_MEDIA_TYPE}; charset=utf-8`).send(text)
}

/**
 * Compression of the directory's answers (@fastify/compress): Brotli at quality 1 for the clients that accept it
 * (browsers do), else gzip/deflate at zlib level 1. A 1,000-row page is about 3 MB of very repetitive JSON: Brotli 1
 * compresses it about twice as fast as gzip 1 and a third smaller (about 90 KB against 140 KB); gzip 1 about 3 times
 * faster than the default level 6, to a size of the same order (docs/performance.md, FHIR provider directory).
 */
const COMPRESS = {
  encodings: ['br', 'gzip', 'deflate'] as ('br' | 'gzip' | 'deflate')[],
  brotliOptions: { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 1 } },
  zlibOptions: { level: 1 },
}

const q = JSON.stringify

/** A Bundle entry as text around the resource's own text (written once from its row, search.ts). */
const entryText = (base: string, resource: Rendered, search: string) =>
  `{"fullUrl":${q(`${base}/${resource.type}/${resource.id}`)},"resource":${resource.json},"search":${search}}`

/** The query's parameters in order (repeated ones kept), then a POSTed form's. */
function pairsOf(request: FastifyRequest): [string, string][] {
  const query = request.url.indexOf('?')
  const pairs = query < 0 ? [] : [...new URLSearchParams(request.url.slice(query + 1))]
  if (typeof request.body === 'string') pairs.push(...new URLSearchParams(request.body))
  // PostgreSQL text cannot hold NUL: refused here, a form's too (the app's input guard reads the query, not a form's encoded values)
  const nul = pairs.find(([key, value]) => key.includes('\0') || value.includes('\0'))
  if (nul) throw invalid(`The parameter ${nul[0].replace(/\0/g, '\\0')} holds a NUL character`, nul[0].replace(/\0/g, ''))
  return pairs
}

const lenient = (request: FastifyRequest) => /\bhandling\s*=\s*lenient\b/i.test(String(request.headers.prefer ?? ''))

/** A weak validator from the data version and what was asked: the answer changes only when the data does. */
function etagOf(version: DirectoryVersion, what: string): string {
  return `W/"${version.meta.versionId}-${createHash('sha256').update(version.version).update('\n').update(what).digest('base64url').slice(0, 16)}"`
}

function notModified(request: FastifyRequest, reply: FastifyReply, etag: string): boolean {
  reply.header('etag', etag)
  const header = request.headers['if-none-match']
  if (!header) return false
  const tags = header.split(',').map((tag) => tag.trim())
  if (tags.includes('*') || tags.includes(etag) || tags.includes(etag.slice(2))) {
    reply.status(304).send()
    return true
  }
  return false
}

/**
 * The FHIR R4 provider directory at /fhir (docs/fhir.md): Da Vinci PDex Plan-Net read and search over the platform's
 * clinicians, facilities, health systems, payers and networks. Errors are OperationOutcomes. Anonymous when
 * FHIR_PUBLIC=true; otherwise a login token or API key of a company with Care Select, one credit per answered call.
 */
export async function fhirRoutes(app: FastifyInstance) {
  const { pool } = app.db
  // Searches run on connections of their own whose statements PostgreSQL stops after FHIR_SEARCH_TIMEOUT_MS: a search
  // no index narrows (`name:contains=` a rare text) reads every clinician, and a public directory must not let one
  // request hold a backend that long. The embedded database has no statement timeout: there the searches share the pool.
  const searchTimeoutMs = app.config.env.FHIR_SEARCH_TIMEOUT_MS
  const bounded = app.config.databaseMode === 'postgres' ? boundedPool(pool, 'fhir', searchTimeoutMs) : null
  if (bounded) app.addHook('onClose', () => bounded.close())
  const searchPool = bounded?.pool ?? pool
  const publicAccess = app.config.env.FHIR_PUBLIC
  const rateLimit = { max: FHIR_REQUESTS_PER_MINUTE, timeWindow: 60_000 }
  // a search's Bundle is written into one of these (lib/answer-buffers.ts), given back when its answer has been sent
  const pages = new AnswerBuffers()

  // who may call and what a call costs (access.ts): the guard before any parsing, admit (access and metering) once valid
  const { guard, admit } = await registerFhirAccess(app, publicAccess)

  app.setErrorHandler((error: Error, request, reply) => {
    const { status, body } = outcomeOf(error, request)
    return sendFhir(reply, status, body)
  })
  app.setNotFoundHandler((request, reply) =>
    sendFhir(
      reply,
      404,
      operationOutcome(
        'error',
        'not-found',
        `${request.method} ${request.url.split('?')[0]} is not a FHIR interaction served here; see /fhir/metadata`,
      ),
    ),
  )
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (_request, body, done) =>
    done(null, body),
  )
  // any other body (a FHIR create or update, say) is read only to be refused: 405 for writes, 415 for a _search
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: FORM_BODY_LIMIT }, (_request, _body, done) => done(null, null))

  const options = { config: { rateLimit }, onRequest: guard, schema: { hide: true }, compress: COMPRESS }

  app.get('/metadata', { config: { rateLimit }, schema: { hide: true } }, async (request, reply) => {
    for (const [key, value] of pairsOf(request)) if (key === '_format') checkFormat(value)
    const version = await directoryVersion(pool)
    if (notModified(request, reply, etagOf(version, `metadata ${publicAccess}`))) return reply
    return sendFhir(reply, 200, capabilityStatement(baseUrl(request), SOFTWARE, publicAccess, version.meta.loadedAt))
  })

  app.get('/$export', options, async (request, reply) => {
    const pairs = pairsOf(request)
    const types = parseExportType(pairs)
    const version = await directoryVersion(pool)
    await admit(request, reply)
    return sendFhir(reply, 200, exportManifest(baseUrl(request), types, version, request.url, !publicAccess))
  })

  app.get<{ Params: { file: string } }>('/$export/:file', options, async (request, reply) => {
    const match = /^([A-Za-z]+)\.ndjson$/.exec(request.params.file)
    if (!match) throw fhirNotFound(`${request.params.file} is not an export file (Type.ndjson)`)
    const type = resourceType(match[1]!)
    if (pairsOf(request).length) throw invalid('An export file takes no parameters')
    const version = await directoryVersion(pool)
    await admit(request, reply)
    if (notModified(request, reply, etagOf(version, `export ${type}`))) return reply
    reply.type('application/fhir+ndjson')
    return reply.send(Readable.from(exportStream(pool, type, version)))
  })

  const runSearch = async (request: FastifyRequest<{ Params: { type: string } }>, reply: FastifyReply) => {
    const type = resourceType(request.params.type)
    if (request.method === 'POST' && !/^application\/x-www-form-urlencoded\b/i.test(String(request.headers['content-type'] ?? ''))) {
      throw new FhirError(415, 'not-supported', 'POST _search takes its parameters as application/x-www-form-urlencoded')
    }
    const parsed = parseSearch(type, pairsOf(request), lenient(request))
    const version = await directoryVersion(pool)
    const canonical = parsed.pairs.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&')
    await admit(request, reply)
    if (notModified(request, reply, etagOf(version, `search ${type}?${canonical}&_cursor=${parsed.cursor ?? ''}`))) return reply
    const result = await search(searchPool, parsed, version, { totalTimeoutMs: app.config.env.FHIR_TOTAL_TIMEOUT_MS }).catch(
      (error: unknown) => {
        if ((error as { code?: unknown }).code === QUERY_CANCELED)
          throw new FhirError(400, 'too-costly', FHIR_MESSAGES.searchTooCostly(searchTimeoutMs))
        throw error
      },
    )
    const base = baseUrl(request)
    const self = `${base}/${type}${canonical || parsed.cursor ? '?' : ''}${canonical}${parsed.cursor ? `${canonical ? '&' : ''}_cursor=${parsed.cursor}` : ''}`
    const link = [{ relation: 'self', url: self }]
    if (result.next) link.push({ relation: 'next', url: `${base}/${type}?${canonical}${canonical ? '&' : ''}_cursor=${result.next}` })
    const near = parsed.near
    // the Bundle as text around each resource's text, written into one buffer (lib/answer-buffers.ts): the resources
    // are never objects on this path (search.ts). Not streamed: parts of a 1,000-row page sent as they were written
    // paged about 5% slower than the page in one piece (docs/performance.md, FHIR provider directory)
    const entries: string[] = []
    for (const match of result.matches)
      entries.push(
        entryText(
          base,
          match,
          near && match.distance !== undefined
            ? `{"extension":[${q(distanceExtension(match.distance, near))}],"mode":"match"}`
            : '{"mode":"match"}',
        ),
      )
    for (const resource of result.included) entries.push(entryText(base, resource, '{"mode":"include"}'))
    const outcome = (code: string, diagnostics: string) =>
      q({ fullUrl: `urn:uuid:${randomUUID()}`, resource: operationOutcome('warning', code, diagnostics), search: { mode: 'outcome' } })
    for (const warning of result.warnings) entries.push(outcome('incomplete', warning))
    if (result.totalOmitted) entries.push(outcome('too-costly', result.totalOmitted))
    const head = {
      resourceType: 'Bundle',
      id: createHash('sha256').update(self).update(version.version).digest('hex').slice(0, 32),
      meta: { lastUpdated: new Date().toISOString() },
      type: 'searchset',
      ...(result.total !== undefined ? { total: result.total } : {}),
      link,
    }
    const { bytes, release } = pages.join(`${q(head).slice(0, -1)},"entry":[`, entries, ',', ']}')
    reply.raw.once('close', release)
    return sendFhirText(reply, 200, bytes)
  }

  app.get<{ Params: { type: string } }>('/:type', options, runSearch)
  app.post<{ Params: { type: string } }>('/:type/_search', options, runSearch)

  /** read, and vread of the current version: the only one kept (meta.versionId is the data version). */
  async function readResource(request: FastifyRequest<{ Params: { type: string; id: string } }>, reply: FastifyReply, vid: string | null) {
    const type = resourceType(request.params.type)
    const { id } = request.params
    if (!/^[A-Za-z0-9\-.]{1,64}$/.test(id)) throw invalid(`"${id}" is not a FHIR id`)
    if (vid !== null && !/^[A-Za-z0-9\-.]{1,64}$/.test(vid)) throw invalid(`"${vid}" is not a FHIR version id`)
    const pairs = pairsOf(request)
    for (const [key, value] of pairs) if (key === '_format') checkFormat(value)
    const unknown = pairs.filter(([key]) => key !== '_format')
    if (unknown.length && !lenient(request)) throw invalid(FHIR_MESSAGES.unknownParam(type, unknown[0]![0]), unknown[0]![0])
    const version = await directoryVersion(pool)
    const etag = `W/"${version.meta.versionId}"`
    await admit(request, reply)
    if (notModified(request, reply, etag)) return reply
    const json = await read(pool, type, id, version)
    if (json === null) throw fhirNotFound(FHIR_MESSAGES.unknownResource(type, id))
    if (vid !== null && vid !== version.meta.versionId) throw fhirNotFound(FHIR_MESSAGES.unknownVersion(type, id, version.meta.versionId))
    const { meta } = JSON.parse(json) as { meta: { lastUpdated: string } }
    reply.header('last-modified', new Date(meta.lastUpdated).toUTCString())
    if (vid !== null) reply.header('content-location', `${baseUrl(request)}/${type}/${id}/_history/${version.meta.versionId}`)
    return sendFhirText(reply, 200, json)
  }

  app.get<{ Params: { type: string; id: string } }>('/:type/:id', options, (request, reply) => readResource(request, reply, null))
  app.get<{ Params: { type: string; id: string; vid: string } }>('/:type/:id/_history/:vid', options, (request, reply) =>
    readResource(request, reply, request.params.vid),
  )
  // history is not kept: instance, type and system history are refused as not supported (400), never a route miss
  const noHistory = async () => {
    throw new FhirError(400, 'not-supported', FHIR_MESSAGES.noHistory)
  }
  app.get('/_history', options, noHistory)
  app.get<{ Params: { type: string } }>('/:type/_history', options, async (request) => {
    resourceType(request.params.type)
    return noHistory()
  })
  app.get<{ Params: { type: string; id: string } }>('/:type/:id/_history', options, async (request) => {
    resourceType(request.params.type)
    return noHistory()
  })

  // The directory is read-only: any other interaction is refused as FHIR expects (405), never as a route miss.
  app.route({
    method: ['POST', 'PUT', 'PATCH', 'DELETE'],
    url: '/*',
    config: { rateLimit },
    schema: { hide: true },
    handler: async () => {
      throw new FhirError(405, 'not-supported', FHIR_MESSAGES.unsupportedMethod)
    },
  })
}
