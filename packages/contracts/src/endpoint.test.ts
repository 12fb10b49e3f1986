import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineEndpoint, pathParameterNames, responseSchemas, routerPath, securityRequirements, servedPath } from './endpoint.js'
import { errorEnvelopeSchema } from './errors.js'
import { ALL_ENDPOINTS, endpoints } from './index.js'

describe('endpoint definitions', () => {
  it('each method and served path is defined once', () => {
    const keys = ALL_ENDPOINTS.map((endpoint) => `${endpoint.method} ${servedPath(endpoint)}`)
    expect(new Set(keys).size).toBe(keys.length)
    expect(keys).toContain('POST /api/users/login')
    expect(keys).toContain('GET /healthz')
  })

  it('every {placeholder} of a path has a params schema field, and nothing else', () => {
    for (const endpoint of ALL_ENDPOINTS) {
      const names = pathParameterNames(endpoint.path).sort()
      const declared = Object.keys(endpoint.params?.shape ?? {}).sort()
      expect(declared, `${endpoint.method} ${endpoint.path}`).toEqual(names)
    }
  })

  it('GET and DELETE-without-body endpoints carry no body except the documented DELETE /admin/api-token', () => {
    const withBody = ALL_ENDPOINTS.filter((endpoint) => endpoint.method !== 'POST' && endpoint.method !== 'PUT' && endpoint.body)
    expect(withBody.map((endpoint) => `${endpoint.method} ${endpoint.path}`)).toEqual(['DELETE /admin/api-token'])
  })

  it('has a summary and an area tag on every endpoint', () => {
    for (const endpoint of ALL_ENDPOINTS) {
      expect(endpoint.summary.length, endpoint.path).toBeGreaterThan(0)
      expect(endpoint.tags.length, endpoint.path).toBeGreaterThan(0)
    }
  })

  it('turns documented paths into router paths', () => {
    expect(routerPath('/super-admin/company/{id}/users')).toBe('/super-admin/company/:id/users')
    expect(routerPath(endpoints.shareableUrl.revoke.path)).toBe('/shareable-url/:share_id/revoke')
    expect(servedPath(endpoints.health.readyz)).toBe('/readyz')
    expect(servedPath(endpoints.meta.version)).toBe('/api/version')
  })

  it('maps the success status and each error status to its body', () => {
    const created = defineEndpoint({
      method: 'POST',
      path: '/things',
      summary: 'Create a thing',
      tags: ['things'],
      body: z.object({ name: z.string() }),
      response: z.object({ id: z.number() }),
      status: 201,
      errors: [400, 409],
    })
    const responses = responseSchemas(created)
    expect(Object.keys(responses).sort()).toEqual(['201', '400', '409'])
    expect(responses[201]).toBe(created.response)
    expect(responses[409]).toBe(errorEnvelopeSchema)
    // /readyz answers 503 with its own report, not the envelope
    expect(responseSchemas(endpoints.health.readyz)[503]).toBe(endpoints.health.readyz.response)
  })

  it('lists the accepted credentials as alternative OpenAPI security requirements', () => {
    expect(securityRequirements(endpoints.insurers.list)).toEqual([{ bearer: [] }, { shareToken: [] }])
    expect(securityRequirements(endpoints.users.login)).toBeUndefined()
  })
})
