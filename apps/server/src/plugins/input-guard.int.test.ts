import { describe, expect, it } from 'vitest'
import { createTenant, loginTokenFor, useTestApp } from '../../../../test/helpers.ts'

/**
 * Issue 9 §2: every endpoint × every kind of bad input answers 400 with the field named, never 500.
 * The endpoints are enumerated from the OpenAPI document, so a new route is covered without editing
 * this file; sample bodies are generated from each route's request schema.
 */

const NUL_MESSAGE = 'Text must not contain the NUL character'
const SURROGATE_MESSAGE = 'Text must be valid Unicode (it contains an unpaired surrogate)'
const INT32_MESSAGE = 'Must be at most 2147483647'
const TOO_BIG = 2 ** 31

type JsonSchema = {
  $ref?: string
  type?: string | string[]
  properties?: Record<string, JsonSchema>
  items?: JsonSchema
  anyOf?: JsonSchema[]
  oneOf?: JsonSchema[]
  allOf?: JsonSchema[]
  enum?: unknown[]
  const?: unknown
  maximum?: number
}
interface OpenApiDoc {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: { in: string; name: string; schema?: JsonSchema }[]
        requestBody?: { content?: Record<string, { schema?: JsonSchema }> }
      }
    >
  >
  components?: { schemas?: Record<string, JsonSchema> }
}

/** Whether an integer field declares a maximum below 2^31-1 (then its own message names the rule). */
const ownMaximum = (schema?: JsonSchema & { maximum?: number }) => schema?.maximum !== undefined && schema.maximum < 2 ** 31 - 1

type Mode = 'nul' | 'surrogate' | 'int32'
const BAD_TEXT = { nul: 'a\u0000b', surrogate: 'a\ud800b' } as const

/** A sample value of `schema` with every string (text modes) or every integer (int32 mode) replaced by bad input; the paths of those leaves. */
function sample(doc: OpenApiDoc, schema: JsonSchema | undefined, path: string, mode: Mode, leaves: string[], depth = 0): unknown {
  if (!schema || depth > 8) return null
  if (schema.$ref)
    return sample(doc, doc.components?.schemas?.[schema.$ref.replace('#/components/schemas/', '')], path, mode, leaves, depth + 1)
  const variants = schema.anyOf ?? schema.oneOf ?? schema.allOf
  if (variants) {
    // the richest variant (PUT /super-admin/company takes the record flat or under `record`)
    const candidates = variants.filter((variant) => variant.type !== 'null')
    const chosen =
      candidates.sort((a, b) => Object.keys(b.properties ?? {}).length - Object.keys(a.properties ?? {}).length)[0] ?? variants[0]
    return sample(doc, chosen, path, mode, leaves, depth + 1)
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type
  if (type === 'object' || schema.properties) {
    return Object.fromEntries(
      Object.entries(schema.properties ?? {}).map(([key, value]) => [key, sample(doc, value, `${path}.${key}`, mode, leaves, depth + 1)]),
    )
  }
  if (type === 'array') return [sample(doc, schema.items, `${path}.0`, mode, leaves, depth + 1)]
  if (type === 'string') {
    if (mode === 'int32') return typeof schema.enum?.[0] === 'string' ? schema.enum[0] : 'x'
    leaves.push(path)
    return BAD_TEXT[mode]
  }
  if (type === 'integer') {
    if (mode !== 'int32') return 1
    // a field with a tighter maximum of its own (rating 1-5, limit 1-100) answers with that rule's message
    leaves.push(ownMaximum(schema) ? `${path}|any` : path)
    return TOO_BIG
  }
  if (type === 'number') return 1
  if (type === 'boolean') return true
  return null
}

interface Probe {
  name: string
  method: string
  url: string
  body?: string
  /** fields that must be named in errors[] with the message (null: any message) */
  expected: { path: string; message: string | null }[]
}

function probesFor(doc: OpenApiDoc): Probe[] {
  const probes: Probe[] = []
  for (const [documented, operations] of Object.entries(doc.paths)) {
    if (!documented.startsWith('/api/') || documented === '/api/openapi.json') continue
    for (const [method, operation] of Object.entries(operations)) {
      const parameters = operation.parameters ?? []
      const pathParams = parameters.filter((p) => p.in === 'path')
      const queryParams = parameters.filter((p) => p.in === 'query')
      const fill = (value: (name: string, schema?: JsonSchema) => string) =>
        documented.replace(/\{([^}]+)\}/g, (_whole, name: string) => value(name, pathParams.find((p) => p.name === name)?.schema))
      const goodPath = fill((_name, schema) => (schema?.type === 'integer' ? '1' : '00000000-0000-4000-8000-000000000000'))
      const label = `${method.toUpperCase()} ${documented}`
      const verb = method.toUpperCase()

      // NUL in the query: each documented query parameter, or an undocumented one
      const queryNames = queryParams.length > 0 ? queryParams.map((p) => p.name) : ['probe']
      probes.push({
        name: `${label} query NUL`,
        method: verb,
        url: `${goodPath}?${queryNames.map((name) => `${name}=a%00b`).join('&')}`,
        expected: queryNames.map((name) => ({ path: `querystring.${name}`, message: NUL_MESSAGE })),
      })
      // integers above 2^31-1 in the query
      const intQuery = queryParams.filter((p) => p.schema?.type === 'integer')
      if (intQuery.length > 0) {
        probes.push({
          name: `${label} query int32`,
          method: verb,
          url: `${goodPath}?${intQuery.map((p) => `${p.name}=${TOO_BIG}`).join('&')}`,
          expected: intQuery.map((p) => ({ path: `querystring.${p.name}`, message: ownMaximum(p.schema) ? null : INT32_MESSAGE })),
        })
      }
      for (const param of pathParams) {
        probes.push({
          name: `${label} path ${param.name} NUL`,
          method: verb,
          url: fill((name, schema) => (name === param.name ? 'a%00b' : schema?.type === 'integer' ? '1' : 'x')),
          expected: [{ path: `params.${param.name}`, message: NUL_MESSAGE }],
        })
        if (param.schema?.type === 'integer') {
          probes.push({
            name: `${label} path ${param.name} int32`,
            method: verb,
            url: fill((name) => (name === param.name ? String(TOO_BIG) : '1')),
            // a parameter with a tighter maximum of its own (a tile zoom, a page) answers with that rule's message
            expected: [{ path: `params.${param.name}`, message: ownMaximum(param.schema) ? null : INT32_MESSAGE }],
          })
        }
      }
      if (verb === 'GET') continue
      const bodySchema = operation.requestBody?.content?.['application/json']?.schema
      for (const mode of ['nul', 'surrogate', 'int32'] as const) {
        const leaves: string[] = []
        const body = bodySchema ? sample(doc, bodySchema, 'body', mode, leaves) : mode === 'int32' ? null : { probe: BAD_TEXT[mode] }
        if (!bodySchema && mode !== 'int32') leaves.push('body.probe')
        if (leaves.length === 0) continue
        const message = mode === 'nul' ? NUL_MESSAGE : mode === 'surrogate' ? SURROGATE_MESSAGE : INT32_MESSAGE
        probes.push({
          name: `${label} body ${mode}`,
          method: verb,
          url: goodPath,
          body: JSON.stringify(body),
          expected: leaves.map((leaf) => (leaf.endsWith('|any') ? { path: leaf.slice(0, -4), message: null } : { path: leaf, message })),
        })
      }
    }
  }
  return probes
}

describe('bad input is refused with 400 and the field named, on every endpoint', () => {
  const ctx = useTestApp()

  it('covers every documented operation', async () => {
    const doc = (await ctx.app.inject({ url: '/api/openapi.json' })).json<OpenApiDoc>()
    const tenant = await createTenant(ctx.db, {
      roles: ['citrus'],
      products: [
        { product_group: 'ATLAS' },
        { product_group: 'SYNTHESIS' },
        { product_group: 'SEARCH' },
        { product_group: 'CARE_SELECT' },
        { product_group: 'NOVA' },
      ],
    })
    const token = await loginTokenFor(tenant.users[0]!, tenant.company.company_name)
    const probes = probesFor(doc)
    const operations = new Set(probes.map((probe) => probe.name.split(' ').slice(0, 2).join(' ')))
    // the surface of issue 9 §2: sign-in, sign-up, reset, verify, onboarding, keys, feedback, analytics, links, companies, look-ups
    for (const operation of [
      'POST /api/users/login',
      'POST /api/users/user-signup',
      'POST /api/users/password-reset-email',
      'POST /api/users/password-reset',
      'POST /api/users/verify',
      'POST /api/admin/email/onboarding',
      'POST /api/admin/api-token',
      'POST /api/feedback',
      'POST /api/analytics/events',
      'POST /api/shareable-url',
      'PUT /api/super-admin/company',
      'GET /api/typeahead/omni',
      'GET /api/admin/permission/{user_id}',
    ]) {
      expect(operations).toContain(operation)
    }

    const failures: string[] = []
    for (const probe of probes) {
      const response = await ctx.app.inject({
        method: probe.method as 'GET',
        url: probe.url,
        headers: { authorization: `Bearer ${token}`, ...(probe.body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(probe.body === undefined ? {} : { payload: probe.body }),
      })
      const body = response.json<{ message: string; code: string; status: number; errors?: { path: string; message: string }[] }>()
      const named = body.errors ?? []
      const missing = probe.expected.filter(
        (field) => !named.some((error) => error.path === field.path && (field.message === null || error.message === field.message)),
      )
      if (response.statusCode !== 400 || body.status !== 400 || missing.length > 0) {
        failures.push(`${probe.name}: ${response.statusCode} ${JSON.stringify(body).slice(0, 400)}; missing ${JSON.stringify(missing)}`)
      }
    }
    expect(failures).toEqual([])
    expect(probes.length).toBeGreaterThan(80)
  })

  it('reports one bad field with its path in the message, and several fields together', async () => {
    const one = await ctx.app.inject({ method: 'POST', url: '/api/users/login', payload: { email: 'a\u0000@b.co', password: 'x' } })
    expect(one.statusCode).toBe(400)
    expect(one.json()).toEqual({
      message: 'Invalid body.email: Text must not contain the NUL character',
      code: 'VALIDATION_ERROR',
      status: 400,
      errors: [{ path: 'body.email', message: NUL_MESSAGE }],
    })
    const two = await ctx.app.inject({
      method: 'POST',
      url: '/api/users/login',
      headers: { 'content-type': 'application/json' },
      payload: '{"email":"a\\ud800@b.co","password":"p\\u0000"}',
    })
    expect(two.json()).toEqual({
      message: 'Request validation failed',
      code: 'VALIDATION_ERROR',
      status: 400,
      errors: [
        { path: 'body.email', message: SURROGATE_MESSAGE },
        { path: 'body.password', message: NUL_MESSAGE },
      ],
    })
  })

  it('refuses bad field names without echoing them', async () => {
    const response = await ctx.app.inject({
      method: 'POST',
      url: '/api/analytics/events',
      headers: { 'content-type': 'application/json' },
      payload: '{"events":[{"name":"x","properties":{"k\\u0000":"v","\\udc00":1}}]}',
    })
    expect(response.statusCode).toBe(400)
    expect(response.json().errors).toEqual([
      { path: 'body.events.0.properties', message: 'Field names must not contain the NUL character' },
      { path: 'body.events.0.properties', message: 'Field names must be valid Unicode (a name contains an unpaired surrogate)' },
    ])
  })

  it('accepts paired surrogates (emoji) and ids up to 2^31-1', async () => {
    const emoji = await ctx.app.inject({
      method: 'POST',
      url: '/api/users/login',
      payload: { email: 'smile\ud83d\ude00@b.co', password: 'x' },
    })
    expect(emoji.statusCode).toBe(401)
    const tenant = await createTenant(ctx.db, { roles: ['citrus'] })
    const token = await loginTokenFor(tenant.users[0]!, tenant.company.company_name)
    const largest = await ctx.app.inject({ url: '/api/admin/permission/2147483647', headers: { authorization: `Bearer ${token}` } })
    expect(largest.statusCode).toBe(404)
  })
})
