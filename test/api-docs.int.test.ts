import { spawn } from 'node:child_process'
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { VectorTile } from '@mapbox/vector-tile'
import type { FastifyInstance } from 'fastify'
import { PbfReader } from 'pbf'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { ALL_ENDPOINTS, healthEndpoints, MVT_CONTENT_TYPE } from '@citrus/contracts'
import { accountsOf } from '../apps/server/src/routes/users/index.ts'
import { REPO_ROOT } from '../apps/server/src/runtime.ts'
import { DEFAULT_DEMO_PASSWORD, ensureDemoAccounts } from '../apps/server/src/seed/demo-accounts.ts'
import { useTestApp } from './helpers.ts'

/**
 * docs/api.md and then docs/fhir.md, run: every ```sh block with a curl command is run by sh, in order, against a
 * live server on the test database (the ci dataset, the demo accounts). Each must answer 2xx, or the status its
 * `# answers NNN` comment documents, and its answer must have every field of the ```json block that follows it.
 * An answer without such a block (a file, a tile, a stream, a deletion) must pass a check of its own (`checkAnswer`):
 * none is judged by its status alone. Some answers give the later examples their variables (`taken`): the sign-in
 * its $TOKEN, the API key its $API_KEY, the share its $LINK_TOKEN, ...; a verification code, an invitation token
 * and a password reset token are read from the message the answer queued in the outbox, as its recipient would
 * read them. Every route the server registers must have an example (`routeOf`, `WITHOUT_EXAMPLE`).
 */

/** The documents whose examples are run, in this order (fhir.md's use the variables api.md's answers give). */
const DOCUMENTS = ['docs/api.md', 'docs/fhir.md']

interface Example {
  file: string
  line: number
  script: string
  documented: unknown
  status: number | null
}

export function examplesOf(markdown: string, file = 'docs/api.md'): Example[] {
  const lines = markdown.split('\n')
  const blocks: { lang: string; body: string; line: number }[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]!)
    if (!open || !open[1]) continue
    const start = i + 1
    let end = start
    while (end < lines.length && lines[end] !== '```') end++
    blocks.push({ lang: open[1], body: lines.slice(start, end).join('\n'), line: start })
    i = end
  }
  const examples: Example[] = []
  blocks.forEach((block, index) => {
    if (block.lang !== 'sh' || !/\bcurl\b/.test(block.body)) return
    const next = blocks[index + 1]
    const status = /# answers (\d{3})/.exec(block.body)
    examples.push({
      file,
      line: block.line,
      script: block.body,
      documented: next?.lang === 'json' ? JSON.parse(next.body) : undefined,
      status: status ? Number(status[1]) : null,
    })
  })
  return examples
}

/**
 * The call of an example's curl command: its method and its path as written, e.g. `POST /api/ai-hub/pins/$PIN_ID`
 * (a `$` the shell must not expand, as in `/fhir/\$export`, without its backslash).
 */
export function callOf(script: string): string {
  const method = /-X (GET|POST|PUT|PATCH|DELETE)\b/.exec(script)?.[1] ?? 'GET'
  const target = /"\$CITRUS_URL(\/[^"?\s]*)/.exec(script)?.[1] ?? ''
  return `${method} ${target.replace(/\\\$/g, '$')}`
}

/**
 * How well a route's URL (`/fhir/:type/_search`, `/api/atlas/tiles/:z/:x/:y.mvt`, `/fhir/*`) matches a path, segment
 * by segment as Fastify's router prefers them: 2 a static segment, 1 a parameter, 0 a wildcard (the rest of the
 * path); null when it does not match. Trailing slashes are ignored, as the server does (`ignoreTrailingSlash`).
 */
function rankOf(url: string, pathname: string): number[] | null {
  const parts = url.replace(/(.)\/$/, '$1').split('/')
  const segments = pathname.replace(/(.)\/$/, '$1').split('/')
  const rank: number[] = []
  for (const [i, part] of parts.entries()) {
    if (part === '*') return [...rank, 0]
    const segment = segments[i]
    if (segment === undefined) return null
    if (!part.includes(':')) {
      if (part !== segment) return null
      rank.push(2)
      continue
    }
    const pattern = part
      .split(/(:\w+)/)
      .map((piece) => (piece.startsWith(':') ? '[^/]+' : piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('')
    if (!new RegExp(`^${pattern}$`).test(segment)) return null
    rank.push(1)
  }
  return parts.length === segments.length ? rank : null
}

/**
 * The registered route (`METHOD url`) an example's call goes to, the one the router would pick: at the first segment
 * where two matching routes differ, a static segment before a parameter, a parameter before a wildcard. A shell
 * variable in the path (`$PIN_ID`) stands for one segment.
 */
export function routeOf(call: string, routes: readonly string[]): string | undefined {
  const [method, target] = call.split(' ') as [string, string]
  const pathname = target.replace(/\$[A-Z_]+/g, 'x')
  let best: { route: string; rank: number[] } | undefined
  for (const route of routes) {
    const [routeMethod, url] = route.split(' ') as [string, string]
    if (routeMethod !== method) continue
    const rank = rankOf(url, pathname)
    if (!rank) continue
    const order = best ? rank.findIndex((value, i) => value !== best!.rank[i]) : 0
    if (!best || (order !== -1 && rank[order]! > (best.rank[order] ?? -1))) best = { route, rank }
  }
  return best?.route
}

/**
 * Registered routes that need no example, each with its reason. Not registered on the test server at all: the web
 * client's files (@fastify/static, one route per built file; the test server has no client) and the SPA fallback
 * (the not-found handler, not a route). Left out by rule: the HEAD route Fastify adds beside each GET.
 */
export const WITHOUT_EXAMPLE: Record<string, string> = {
  'GET /docs/static/*': 'the static files of the OpenAPI browser (@fastify/swagger-ui), whose page GET /docs has its example',
  'GET /docs/static/index.html': 'a static file of the OpenAPI browser: a redirect to its page GET /docs',
  'GET /docs/static/swagger-initializer.js': 'a static file of the OpenAPI browser (its configuration script)',
  'PUT /fhir/*': 'one handler with POST /fhir/* (every write to the read-only directory answers 405), whose example shows it',
  'PATCH /fhir/*': 'one handler with POST /fhir/* (every write to the read-only directory answers 405), whose example shows it',
  'DELETE /fhir/*': 'one handler with POST /fhir/* (every write to the read-only directory answers 405), whose example shows it',
}

/**
 * The routes of every Fastify instance made from now until `stop()`, as `METHOD url`: an onRoute hook added the
 * moment the instance is made (Fastify's `fastify.initialization` diagnostics channel), before any plugin.
 */
function recordRoutes() {
  const routes = new Map<FastifyInstance, string[]>()
  const listener = (message: unknown) => {
    const { fastify } = message as { fastify: FastifyInstance }
    const list: string[] = []
    routes.set(fastify, list)
    fastify.addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) list.push(`${method} ${route.url}`)
    })
  }
  subscribe('fastify.initialization', listener)
  return {
    /** the app's routes, without the HEAD route Fastify adds beside each GET */
    of(app: FastifyInstance): string[] {
      const list = routes.get(app)
      if (!list) throw new Error('the app was made before its routes were recorded')
      return [...new Set(list)].filter((route) => !(route.startsWith('HEAD ') && list.includes(`GET ${route.slice(5)}`)))
    },
    stop: () => unsubscribe('fastify.initialization', listener),
  }
}

/** The events of a text/event-stream body: each one's name and its data. */
function eventsOf(body: string): { event: string; data: string }[] {
  return body
    .split(/\n\n+/)
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split('\n')
      return {
        event: lines.find((line) => line.startsWith('event: '))?.slice(7) ?? 'message',
        data: lines
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6))
          .join('\n'),
      }
    })
}

const LOCATION_DISTANCE = 'http://hl7.org/fhir/StructureDefinition/location-distance'

interface SearchEntry {
  resource: { resourceType: string; id: string }
  search: { mode: string; extension?: { url: string; valueDistance?: { value: number; unit: string } }[] }
}

const METRES_PER: Record<string, number> = { km: 1000, m: 1, mi: 1609.344, '[mi_i]': 1609.344, '[mi_us]': 1609.347218694 }

/**
 * The distances of a `near` answer (or a documented one) that do not agree with its point (from its self link) and
 * the positions of the locations matched: the great-circle distance, within 0.6% (the spheroid's ST_Distance differs
 * from the sphere's by less) and 2 m (positions are written to 6 decimals).
 */
export function inconsistentDistances(bundle: unknown): string[] {
  const { link, entry } = bundle as { link?: { relation: string; url: string }[]; entry?: SearchEntry[] }
  const self = link?.find((item) => item.relation === 'self')?.url
  if (!self) return ['no self link']
  const params = new URL(self).searchParams
  const near = (params.get('near') ?? params.get('location.near'))?.split('|')
  if (!near) return ['no near in the self link']
  const [lat, lon] = near.map(Number) as [number, number]
  const problems: string[] = []
  const positions = new Map(
    (entry ?? [])
      .filter((item) => item.resource.resourceType === 'Location')
      .map((item) => [`Location/${item.resource.id}`, (item.resource as { position?: { latitude: number; longitude: number } }).position]),
  )
  for (const item of (entry ?? []).filter((e) => e.search.mode === 'match')) {
    const distance = item.search.extension?.find((extension) => extension.url === LOCATION_DISTANCE)?.valueDistance
    const resource = item.resource as SearchEntry['resource'] & { location?: { reference: string }[] }
    const position = positions.get(
      resource.resourceType === 'Location' ? `Location/${resource.id}` : (resource.location?.[0]?.reference ?? ''),
    )
    if (!distance || !position) continue
    const rad = Math.PI / 180
    const a =
      Math.sin(((position.latitude - lat) * rad) / 2) ** 2 +
      Math.cos(lat * rad) * Math.cos(position.latitude * rad) * Math.sin(((position.longitude - lon) * rad) / 2) ** 2
    const metres = 2 * 6_371_008.8 * Math.asin(Math.sqrt(a))
    const stated = distance.value * (METRES_PER[distance.unit] ?? NaN)
    if (!(Math.abs(metres - stated) <= 0.006 * metres + 2))
      problems.push(
        `${resource.resourceType}/${resource.id}: ${distance.value} ${distance.unit} from ${lat},${lon}, but ${Math.round(metres)} m`,
      )
  }
  return problems
}

/** Fields of `documented` missing from `actual` (same type; arrays: the first element's fields when both have one). */
export function missingFields(actual: unknown, documented: unknown, at = '$'): string[] {
  if (documented === null) return []
  if (Array.isArray(documented)) {
    if (!Array.isArray(actual)) return [`${at}: an array`]
    return documented.length > 0 && actual.length > 0 ? missingFields(actual[0], documented[0], `${at}[0]`) : []
  }
  if (typeof documented === 'object') {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return [`${at}: an object`]
    return Object.entries(documented as Record<string, unknown>).flatMap(([key, value]) =>
      key in actual ? missingFields((actual as Record<string, unknown>)[key], value, `${at}.${key}`) : [`${at}.${key}`],
    )
  }
  return typeof actual === typeof documented ? [] : [`${at}: a ${typeof documented}`]
}

// the ci dataset, when this file is the first to load it (the embedded database loads it in a few minutes)
vi.setConfig({ hookTimeout: 600_000, testTimeout: 300_000 })

describe('docs/api.md and docs/fhir.md: every curl example against a live server', () => {
  // GET /metrics answers to its token only when one is set
  const vars: Record<string, string> = { METRICS_TOKEN: 'docs-example-metrics-token' }
  const recorded = recordRoutes()
  const ctx = useTestApp({ METRICS_TOKEN: vars.METRICS_TOKEN! }, { dataset: true })
  const work = mkdtempSync(path.join(tmpdir(), 'citrus-api-docs-'))
  const examples = DOCUMENTS.flatMap((file) => examplesOf(readFileSync(path.join(REPO_ROOT, file), 'utf8'), file))
  let routes: string[] = []

  beforeAll(async () => {
    recorded.stop()
    routes = recorded.of(ctx.app)
    await ensureDemoAccounts(ctx.db.prisma, DEFAULT_DEMO_PASSWORD)
    await ctx.app.listen({ port: 0, host: '127.0.0.1' })
    vars.CITRUS_URL = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`
    // the ci dataset's values for the examples' variables: a facility's ZIP with a cash-priced code, the most
    // common specialty around it, and a clinician there with claims
    const place = await ctx.db.pool.query<{ zip: string; code: string }>(
      `SELECT f.zip_code AS zip, fp.procedure_code AS code FROM facility_prices fp JOIN facilities f ON f.id = fp.facility_id
        WHERE fp.discounted_cash IS NOT NULL GROUP BY 1, 2 ORDER BY count(*) DESC, 1, 2 LIMIT 1`,
    )
    vars.ZIP = place.rows[0]!.zip
    vars.CPT = place.rows[0]!.code
    const clinician = await ctx.db.pool.query<{ npi: string; taxonomy: string }>(
      `SELECT p.npi, p.primary_taxonomy_code AS taxonomy FROM providers p JOIN mv_provider_panel pp ON pp.npi = p.npi, zips z
        WHERE z.zip = $1 AND ST_DWithin(p.geog, z.geog, 50000) ORDER BY ST_Distance(p.geog, z.geog), p.npi LIMIT 1`,
      [vars.ZIP],
    )
    vars.NPI = clinician.rows[0]!.npi
    vars.SPECIALTY = clinician.rows[0]!.taxonomy
    // the FHIR examples' point: that clinician's practice
    const practice = await ctx.db.pool.query<{ lat: string; lon: string }>(
      'SELECT round(latitude::numeric, 4)::text AS lat, round(longitude::numeric, 4)::text AS lon FROM providers WHERE npi = $1',
      [vars.NPI],
    )
    vars.LAT = practice.rows[0]!.lat
    vars.LON = practice.rows[0]!.lon
    // Nova's: the facility whose envenomations the most clinicians treated
    const facility = await ctx.db.pool.query<{ npi: string }>(
      `SELECT f.npi FROM facilities f JOIN snakebite_cases s ON s.facility_id = f.id
        GROUP BY f.npi ORDER BY count(DISTINCT s.provider_npi) DESC, f.npi LIMIT 1`,
    )
    vars.FACILITY_NPI = facility.rows[0]!.npi
    await forgetAccounts()
    // every answer's status and content type after the body, whatever the example asks curl to print
    writeFileSync(path.join(work, '.curlrc'), 'write-out = "\\n%{http_code} %{content_type}"\n')
  })
  // what the examples made, undone: the test database outlives a run, and a user may hold at most 10 API keys
  const made = {
    keys: [] as string[],
    documents: [] as string[],
    pins: [] as string[],
    feedback: [] as number[],
    companies: [] as number[],
  }
  /** the accounts the sign-up examples make (and their invitations), before a run too (one may have failed midway) */
  const emails = examples
    .filter((example) => /^POST \/api\/users\/(user|member)-signup$/.test(callOf(example.script)))
    .flatMap((example) => [...example.script.matchAll(/"email\\?": \\?"([^"\\]+)/g)].map((match) => match[1]!.toLowerCase()))
  async function forgetAccounts() {
    await ctx.db.pool.query('DELETE FROM users WHERE lower(email) = ANY($1::text[])', [emails])
    await ctx.db.pool.query('DELETE FROM onboarding_invitations WHERE email = ANY($1::text[])', [emails])
  }
  afterAll(async () => {
    await ctx.db.pool.query('UPDATE api_tokens SET revoked_at = now() WHERE id = ANY($1::uuid[])', [made.keys])
    await ctx.db.pool.query('DELETE FROM ai_documents WHERE id = ANY($1::uuid[])', [made.documents])
    await ctx.db.pool.query('DELETE FROM ai_pins WHERE id = ANY($1::uuid[])', [made.pins])
    await ctx.db.pool.query('DELETE FROM feedback_submissions WHERE id = ANY($1::int[])', [made.feedback])
    await forgetAccounts()
    await ctx.db.pool.query('DELETE FROM companies WHERE id = ANY($1::int[])', [made.companies])
    rmSync(work, { recursive: true, force: true })
  })

  /**
   * The body of the message an answer queued, held in the outbox (this server has no e-mail or SMS provider); a
   * password reset's is written a moment after the answer, in a batch that settled() waits for.
   */
  async function messageOf(id: string): Promise<string> {
    await accountsOf(ctx.app).settled()
    const row = await ctx.db.pool.query<{ body: string }>('SELECT body FROM message_outbox WHERE id = $1', [id])
    if (!row.rows[0]) throw new Error(`message ${id}: not in the outbox`)
    return row.rows[0].body
  }

  /** What an answer gives the later examples, by the call that answered it. */
  async function taken(call: string, answer: Record<string, unknown>): Promise<Record<string, string>> {
    switch (call) {
      case 'POST /api/users/login':
        return { TOKEN: String(answer.token) }
      case 'GET /api/users/info':
        return { USER_ID: String(answer.id) }
      case 'POST /api/admin/api-token':
        made.keys.push(String(answer.id))
        return { API_KEY: String(answer.token), KEY_ID: String(answer.id) }
      case 'POST /api/cost-transparency/provider/$NPI/share':
        return { LINK_TOKEN: new URL(String(answer.url)).searchParams.get('token') ?? '' }
      case 'POST /api/shareable-url':
        return {
          SHARE_ID: String(answer.id),
          MEMBER_LINK: String(answer.url),
          MEMBER_LINK_TOKEN: new URL(String(answer.url)).searchParams.get('token') ?? '',
        }
      case 'POST /api/users/verification-code': {
        const code = /\b(\d{6})\b/.exec(await messageOf(String(answer.message_id)))?.[1]
        return { VERIFICATION_ID: String(answer.verification_id), CODE: code ?? '' }
      }
      case 'POST /api/users/verification-code/confirm':
        return { VERIFIED_TOKEN: String(answer.token) }
      case 'POST /api/users/password-reset-email': {
        const token = /[?&]token=([A-Za-z0-9._-]+)/.exec(await messageOf(String(answer.message_id)))?.[1]
        return { RESET_TOKEN: token ?? '' }
      }
      case 'POST /api/admin/email/onboarding': {
        const token = /[?&]invitation=([A-Za-z0-9_-]+)/.exec(await messageOf(String(answer.message_id)))?.[1]
        return { INVITATION_TOKEN: token ?? '' }
      }
      case 'GET /api/admin/activation-key':
        return { ACTIVATION_KEY: String(answer.activation_key) }
      case 'POST /api/ai-hub/documents':
        made.documents.push(...(answer.documents as { id: string }[]).map((document) => document.id))
        return { DOCUMENT_ID: (answer.documents as { id: string }[])[0]!.id }
      case 'POST /api/ai-hub/pins':
        made.pins.push(String(answer.id))
        return { PIN_ID: String(answer.id) }
      case 'POST /api/super-admin/company':
        made.companies.push(Number(answer.id))
        return { COMPANY_ID: String(answer.id) }
      case 'POST /api/feedback':
        made.feedback.push(Number(answer.id))
        return {}
      case 'GET /fhir/Practitioner':
        return { PRACTITIONER_ID: (answer.entry as SearchEntry[])[0]!.resource.id }
      case 'GET /fhir/Practitioner/$PRACTITIONER_ID':
        return { VERSION_ID: (answer.meta as { versionId: string }).versionId }
      default:
        return {}
    }
  }

  it('documents an example of every route the server registers', () => {
    // the test server has no web client: no route serves its files, and the SPA fallback is the not-found handler
    expect(ctx.app.config.webDistDir).toBeNull()
    const withoutSlash = (url: string) => url.replace(/(.)\/$/, '$1')
    // the record is whole: it holds the route of every contract (the probes outside /api, the rest under it)
    const probes: readonly unknown[] = Object.values(healthEndpoints)
    const contracts = ALL_ENDPOINTS.map(
      (endpoint) =>
        `${endpoint.method} ${probes.includes(endpoint) ? '' : '/api'}${withoutSlash(endpoint.path).replace(/\{(\w+)\}/g, ':$1')}`,
    )
    const served = new Set(routes.map((route) => withoutSlash(route)))
    expect(contracts.filter((route) => !served.has(route))).toEqual([])
    expect(routes.filter((route) => route.startsWith('GET /fhir/')).length).toBeGreaterThanOrEqual(8)
    expect(routes).toContain('GET /metrics')

    const calls = examples.map((example) => callOf(example.script))
    // the route a call goes to is the router's: a static segment before a parameter, a parameter before a wildcard
    expect(routeOf('GET /fhir/metadata', routes)).toBe('GET /fhir/metadata')
    expect(routeOf('GET /fhir/Practitioner/$PRACTITIONER_ID/_history', routes)).toBe('GET /fhir/:type/:id/_history')
    expect(routeOf('POST /fhir/Practitioner/_search', routes)).toBe('POST /fhir/:type/_search')
    expect(routeOf('POST /fhir/Practitioner', routes)).toBe('POST /fhir/*')
    // an example of no route (a typo, a removed route) is a mistake too
    expect(calls.filter((call) => routeOf(call, routes) === undefined)).toEqual([])
    const uncovered = (made: string[]) => {
      const covered = new Set(made.map((call) => routeOf(call, routes)))
      return routes.filter((route) => !covered.has(route) && !(route in WITHOUT_EXAMPLE))
    }
    expect(uncovered(calls)).toEqual([])
    // a route whose example goes missing is reported
    expect(uncovered(calls.filter((call) => call !== 'GET /metrics'))).toEqual(['GET /metrics'])
    // and every exception is a registered route without an example of its own
    const covered = new Set(calls.map((call) => routeOf(call, routes)))
    expect(Object.keys(WITHOUT_EXAMPLE).filter((route) => !routes.includes(route) || covered.has(route))).toEqual([])
    expect(calls).toContain('GET /api/openapi.json')
  })

  /** A read of the live server after an example, as its later examples would make it. */
  async function read(pathname: string, credential = vars.TOKEN!): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(`${vars.CITRUS_URL}${pathname}`, { headers: { authorization: `Bearer ${credential}` } })
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  }

  /**
   * What an answer must be beyond its status and its documented fields: its content type, a file's or a stream's
   * content decoded, a FHIR Bundle's matches, the thing a deletion removed gone from a read that follows. True
   * when the call has such a check (an answer without a ```json block must have one).
   */
  async function checkAnswer(
    example: Example,
    call: string,
    answer: { status: number; type: string; body: string; file: Buffer | null },
    where: string,
  ): Promise<boolean> {
    const script = example.script
    if (example.documented !== undefined) {
      expect(answer.type, `${where}: content type`).toMatch(
        call.includes(' /fhir/') ? /^application\/fhir\+json\b/ : /^application\/json\b/,
      )
    }
    if (call === 'POST /api/care-select/referral-letter') {
      expect(answer.type, where).toBe('application/pdf')
      expect(answer.file!.subarray(0, 5).toString(), where).toBe('%PDF-')
      expect(answer.file!.subarray(-32).toString('latin1'), where).toContain('%%EOF')
      return true
    }
    const tile = /^GET \/api\/(atlas|geo)\/tiles\/\d+\/\d+\/\d+\.mvt$/.exec(call)
    if (tile) {
      expect(answer.type, where).toBe(MVT_CONTENT_TYPE)
      expect(answer.file!.length, where).toBeGreaterThan(0)
      const { layers } = new VectorTile(new PbfReader(answer.file!))
      for (const name of tile[1] === 'atlas' ? ['regions'] : ['states', 'counties']) {
        expect(layers[name]?.length, `${where}: layer ${name}`).toBeGreaterThan(0)
        expect(layers[name]!.feature(0).loadGeometry().flat().length, `${where}: layer ${name}`).toBeGreaterThan(2)
      }
      return true
    }
    if (call === 'POST /api/ai-hub/generate/stream') {
      expect(answer.type, where).toMatch(/^text\/event-stream\b/)
      const events = eventsOf(answer.body)
      const deltas = events.filter((event) => event.event === 'delta').map((event) => (JSON.parse(event.data) as { text: string }).text)
      expect(deltas.length, `${where}: ${answer.body}`).toBeGreaterThan(0)
      expect(events.at(-1)?.event, `${where}: the last event`).toBe('done')
      const done = JSON.parse(events.at(-1)!.data) as { content: string; status: string; answered: boolean }
      expect(done, where).toMatchObject({ status: 'complete', answered: true })
      expect(done.content, `${where}: the deltas make the answer`).toBe(deltas.join(''))
      return true
    }
    if (call === 'GET /metrics') {
      expect(answer.type, where).toMatch(/^text\/plain\b/)
      expect(answer.body, where).toContain('# TYPE citrus_http_request_duration_seconds histogram')
      const samples = answer.body.split('\n').filter((line) => line !== '' && !line.startsWith('#'))
      expect(samples.length, where).toBeGreaterThan(10)
      expect(
        samples.filter((line) => !/^[a-zA-Z_:][\w:]*(\{.*\})? \S+$/.test(line)),
        where,
      ).toEqual([])
      return true
    }
    if (call === 'GET /docs') {
      expect(answer.type, where).toMatch(/^text\/html\b/)
      expect(answer.file!.toString(), where).toContain('Swagger UI')
      return true
    }
    if (call === 'GET /docs/yaml') {
      expect(answer.type, where).toMatch(/^application\/x-yaml\b/)
      expect(answer.file!.toString(), where).toMatch(/^openapi: 3\.1\.0\n/)
      return true
    }
    const ndjson = /^GET \/fhir\/\$export\/(\w+)\.ndjson$/.exec(call)
    if (ndjson) {
      expect(answer.type, where).toMatch(/^application\/fhir\+ndjson\b/)
      const lines = answer
        .file!.toString()
        .split('\n')
        .filter((line) => line !== '')
      expect(lines.length, where).toBeGreaterThan(0)
      for (const line of lines) expect((JSON.parse(line) as { resourceType: string }).resourceType, where).toBe(ndjson[1])
      return true
    }
    if (call.includes(' /fhir/') && example.documented !== undefined) {
      const resource = JSON.parse(answer.body) as Record<string, unknown>
      expect(resource.resourceType, where).toBe((example.documented as { resourceType?: string }).resourceType)
      const search = /^(?:GET \/fhir\/([A-Z]\w+)|POST \/fhir\/([A-Z]\w+)\/_search)$/.exec(call)
      if (search && answer.status === 200) {
        const type = search[1] ?? search[2]
        const bundle = resource as { type: string; total?: number; entry?: SearchEntry[] }
        expect(bundle.type, where).toBe('searchset')
        const matches = (bundle.entry ?? []).filter((entry) => entry.search.mode === 'match')
        expect(matches.length, `${where}: matches`).toBeGreaterThan(0)
        for (const match of matches) expect(match.resource.resourceType, where).toBe(type)
        if (/[?&]_total=accurate\b/.test(script)) expect(bundle.total, `${where}: total`).toBeGreaterThanOrEqual(matches.length)
        if (/[?&]_include=/.test(script))
          expect(
            bundle.entry!.some((entry) => entry.search.mode === 'include'),
            `${where}: included`,
          ).toBe(true)
        const near = /near=[^|]+\|[^|]+\|(\d+)\|(\w+)/.exec(script)
        if (near) {
          const distances = matches.map(
            (match) => match.search.extension?.find((extension) => extension.url === LOCATION_DISTANCE)?.valueDistance,
          )
          for (const distance of distances) {
            expect(distance?.unit, `${where}: the distance extension`).toBe(near[2])
            expect(distance!.value, where).toBeGreaterThanOrEqual(0)
            expect(distance!.value, where).toBeLessThanOrEqual(Number(near[1]))
          }
          const values = distances.map((distance) => distance!.value)
          expect(values, `${where}: nearest first`).toEqual([...values].sort((a, b) => a - b))
          // the distances agree with the point asked and the positions answered, in the answer and in the document
          expect(inconsistentDistances(resource), `${where}: the answer's distances`).toEqual([])
          if ((example.documented as { link?: unknown }).link !== undefined)
            expect(inconsistentDistances(example.documented), `${where}: the documented distances`).toEqual([])
        }
      }
      const instance = /^GET \/fhir\/([A-Z]\w+)\/(\$[A-Z_]+)(?:\/_history\/(\$[A-Z_]+))?$/.exec(call)
      if (instance && answer.status === 200) {
        expect(resource.id, where).toBe(vars[instance[2]!.slice(1)])
        const { versionId } = resource.meta as { versionId: string }
        expect(versionId, where).toBeTruthy()
        if (instance[3]) expect(versionId, where).toBe(vars[instance[3].slice(1)])
      }
      if (call === 'GET /fhir/$export') {
        const types = /_type=([\w,]+)/.exec(script)![1]!.split(',')
        expect(
          (resource.output as { type: string }[]).map((file) => file.type),
          where,
        ).toEqual(types)
      }
    }
    // a deletion: the thing is gone from the read that lists it
    const idsAt = async (path: string, key: string) => ((await read(path)).body[key] as { id: string }[]).map((item) => item.id)
    switch (call) {
      case 'DELETE /api/ai-hub/pins/$PIN_ID': {
        expect(await idsAt('/api/ai-hub/pins', 'pinnedInsights'), where).not.toContain(vars.PIN_ID)
        return true
      }
      case 'DELETE /api/ai-hub/pins': {
        expect((await read('/api/ai-hub/pins')).body.pinnedInsights, where).toEqual([])
        expect((await read('/api/ai-hub/context')).body.pinnedInsights, where).toEqual([])
        return true
      }
      case 'DELETE /api/ai-hub/documents/$DOCUMENT_ID': {
        expect(await idsAt('/api/ai-hub/documents', 'documents'), where).not.toContain(vars.DOCUMENT_ID)
        expect(await idsAt('/api/ai-hub/context', 'documents'), where).not.toContain(vars.DOCUMENT_ID)
        return true
      }
      case 'DELETE /api/admin/api-token': {
        const keys = (await read('/api/admin/api-token')).body as unknown as { id: string }[]
        expect(
          keys.map((key) => key.id),
          where,
        ).not.toContain(vars.KEY_ID)
        expect((await read('/api/users/info', vars.API_KEY)).status, `${where}: the revoked key`).toBe(401)
        return true
      }
    }
    return false
  }

  /** Runs a script with sh, asynchronously: the server answering it runs in this process. */
  function sh(script: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      const child = spawn('sh', ['-e', '-c', script], { cwd: work, env: { PATH: process.env.PATH, CURL_HOME: work, HOME: work, ...vars } })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
      const timer = setTimeout(() => child.kill('SIGKILL'), 120_000)
      child.once('close', (status) => {
        clearTimeout(timer)
        resolve({ status, stdout, stderr })
      })
    })
  }

  it('runs every example in order: each answers as documented', async () => {
    expect(examples.length).toBeGreaterThanOrEqual(12)
    for (const example of examples) {
      const where = `${example.file} line ${example.line}`
      const call = callOf(example.script)
      for (const [, name] of example.script.matchAll(/\$([A-Z_]+)/g)) expect(vars[name!], `${where}: $${name} is not set`).toBeTruthy()
      const saved = / -o (\S+)/.exec(example.script)?.[1]
      if (saved) rmSync(path.join(work, saved), { force: true })
      const run = await sh(example.script)
      expect(run.status, `${where}: ${run.stderr}`).toBe(0)
      const cut = run.stdout.lastIndexOf('\n')
      const [, code, type] = /^(\d{3}) ?(.*)$/.exec(run.stdout.slice(cut + 1)) ?? []
      const status = Number(code)
      const body = run.stdout.slice(0, Math.max(cut, 0))
      if (example.status === null) expect(status, `${where}: ${body}`).toBeGreaterThanOrEqual(200)
      if (example.status === null) expect(status, `${where}: ${body}`).toBeLessThan(300)
      else expect(status, `${where}: ${body}`).toBe(example.status)
      const file = saved && existsSync(path.join(work, saved)) ? readFileSync(path.join(work, saved)) : null
      if (saved) expect(file, `${where}: ${saved} was not written`).not.toBeNull()
      const checked = await checkAnswer(example, call, { status, type: type ?? '', body, file }, where)
      if (example.documented !== undefined) {
        const answer = JSON.parse(body) as Record<string, unknown>
        expect(missingFields(answer, example.documented), `${where}: ${body.slice(0, 2000)}`).toEqual([])
        if (status < 300) Object.assign(vars, await taken(call, answer))
      } else expect(checked, `${where}: ${call} has neither a \`\`\`json block nor a check of its answer`).toBe(true)
    }
    for (const name of [
      'TOKEN',
      'API_KEY',
      'LINK_TOKEN',
      'CODE',
      'VERIFIED_TOKEN',
      'INVITATION_TOKEN',
      'RESET_TOKEN',
      'PIN_ID',
      'PRACTITIONER_ID',
      'VERSION_ID',
    ])
      expect(vars[name], name).toBeTruthy()
  })
})
