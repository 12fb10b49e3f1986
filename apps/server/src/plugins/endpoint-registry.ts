import type { EndpointDefinition } from '@citrus/contracts'
import fp from 'fastify-plugin'

export interface RouteInventory {
  /** the contracts the app serves, in registration order */
  readonly documented: readonly EndpointDefinition[]
  /** "METHOD /api/path" of routes under /api registered without a contract (hidden routes such as /api/openapi.json excepted) */
  readonly undocumented: readonly string[]
}

declare module 'fastify' {
  interface FastifyInstance {
    routeInventory: RouteInventory
  }
}

const isApiPath = (url: string) => url === '/api' || url.startsWith('/api/')

/**
 * Records every route as it is registered: the contract it serves (set by `route()`), or, for an /api
 * route, the fact that it has none. A test asserts that the contracts and the served routes are the same set.
 */
export const endpointRegistryPlugin = fp(
  async (app) => {
    const documented: EndpointDefinition[] = []
    const undocumented: string[] = []
    app.decorate('routeInventory', { documented, undocumented })
    app.addHook('onRoute', (routeOptions) => {
      const methods = (Array.isArray(routeOptions.method) ? routeOptions.method : [routeOptions.method]).filter(
        (method) => method !== 'HEAD',
      )
      if (methods.length === 0) return
      const endpoint = routeOptions.config?.endpoint
      if (endpoint) documented.push(endpoint)
      else if (isApiPath(routeOptions.url) && !(routeOptions.schema as { hide?: boolean } | undefined)?.hide) {
        for (const method of methods) undocumented.push(`${method} ${routeOptions.url}`)
      }
    })
  },
  { name: 'endpoint-registry', fastify: '5.x' },
)
