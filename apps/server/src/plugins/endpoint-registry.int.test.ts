import { ALL_ENDPOINTS, endpoints, routerPath, servedPath, type EndpointDefinition } from '@citrus/contracts'
import Fastify, { type FastifyInstance } from 'fastify'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp } from '../../../../test/helpers.ts'
import { endpointRegistryPlugin } from './endpoint-registry.ts'

const key = (endpoint: EndpointDefinition) => `${endpoint.method} ${servedPath(endpoint)}`

describe('every endpoint of the contracts is served, and nothing else under /api', () => {
  let app: FastifyInstance

  beforeAll(async () => {
    app = await createTestApp()
    await app.ready()
  })
  afterAll(async () => {
    await app.close()
  })

  it('registers no /api route without a definition', () => {
    expect(app.routeInventory.undocumented).toEqual([])
  })

  it('registers each definition exactly once, at its documented method and path', () => {
    const served = app.routeInventory.documented.map(key).sort()
    expect(served).toEqual(ALL_ENDPOINTS.map(key).sort())
    for (const endpoint of ALL_ENDPOINTS) {
      const url = routerPath(servedPath(endpoint)).replace(/(.)\/$/, '$1') // the router ignores trailing slashes
      expect(app.hasRoute({ method: endpoint.method, url }), key(endpoint)).toBe(true)
    }
  })

  it('documents every definition in /api/openapi.json with its statuses and credentials', async () => {
    const spec = await request(app.server).get('/api/openapi.json')
    expect(spec.status).toBe(200)
    for (const endpoint of ALL_ENDPOINTS) {
      const operation = spec.body.paths[servedPath(endpoint)]?.[endpoint.method.toLowerCase()]
      expect(operation, key(endpoint)).toBeDefined()
      expect(operation.summary).toBe(endpoint.summary)
      expect(operation.tags).toEqual([...endpoint.tags])
      const statuses = [endpoint.status ?? 200, ...endpoint.errors].map(String).sort()
      expect(Object.keys(operation.responses).sort(), key(endpoint)).toEqual(statuses)
    }
    const revoke = spec.body.paths['/api/shareable-url/{share_id}/revoke'].post
    expect(revoke.security).toEqual([{ bearer: [] }])
    expect(revoke.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'share_id', in: 'path' })]))
    expect(spec.body.paths['/api/insurers/'].get.security).toEqual([{ bearer: [] }, { shareToken: [] }])
    expect(spec.body.paths['/api/users/login'].post.security).toBeUndefined()
  })

  it('answers the documented PUT /super-admin/company body forms through one schema', () => {
    const schema = endpoints.superAdmin.updateCompany.body
    const nested = schema.safeParse({
      record: { id: 1, company_name: 'A', industry: 'B', activation_key: null },
      reset_activation_key: true,
    })
    expect(nested.success && nested.data).toMatchObject({ id: 1, company_name: 'A', reset_activation_key: true })
    const refused = schema.safeParse({ record: { id: 1, company_name: '', industry: 'B' }, reset_activation_key: 'yes' })
    expect(refused.success).toBe(false)
    expect(refused.error?.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([
      ['company_name', 'Please fill in all required fields correctly.'],
      ['reset_activation_key', 'Expected a boolean'],
    ])
  })
})

describe('the route inventory', () => {
  it('reports an /api route registered without a definition', async () => {
    const app = Fastify({ logger: false })
    await app.register(endpointRegistryPlugin)
    app.get('/api/escaped', async () => ({ ok: true }))
    app.get('/api/hidden', { schema: { hide: true } }, async () => ({ ok: true }))
    app.get('/elsewhere', async () => ({ ok: true }))
    await app.ready()
    expect(app.routeInventory.undocumented).toEqual(['GET /api/escaped'])
    expect(app.routeInventory.documented).toEqual([])
    await app.close()
  })
})
