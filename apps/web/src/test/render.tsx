import { render } from '@testing-library/react'
import type { ReactNode } from 'react'
import { RouterProvider, createMemoryRouter, type RouteObject } from 'react-router'
import { AppProvider } from '../app/provider'
import { appRoutes } from '../app/router'
import { createQueryClient } from '../lib/query-client'
import { trackRouter } from './routers'

/** Renders the real route table at a path, as the browser app does, with a server-state cache of its own. */
export function renderApp(path: string, options: { state?: unknown } = {}) {
  const router = createMemoryRouter(appRoutes, {
    initialEntries: [
      { pathname: path.split('?')[0] ?? path, search: path.includes('?') ? `?${path.split('?')[1]}` : '', state: options.state },
    ],
  })
  trackRouter(router)
  const queryClient = createQueryClient({ test: true })
  const view = render(
    <AppProvider env="test" queryClient={queryClient}>
      <RouterProvider router={router} />
    </AppProvider>,
  )
  return { ...view, router, queryClient }
}

/** Renders a component inside providers and a memory router with extra routes (for navigation targets). */
export function renderWithRouter(element: ReactNode, options: { path?: string; routes?: RouteObject[] } = {}) {
  const path = options.path ?? '/'
  const router = createMemoryRouter([{ path: path.split('?')[0], element }, ...(options.routes ?? [])], { initialEntries: [path] })
  trackRouter(router)
  const queryClient = createQueryClient({ test: true })
  const view = render(
    <AppProvider env="test" queryClient={queryClient}>
      <RouterProvider router={router} />
    </AppProvider>,
  )
  return { ...view, router, queryClient }
}
