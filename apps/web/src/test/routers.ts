import type { createMemoryRouter } from 'react-router'

type TestRouter = ReturnType<typeof createMemoryRouter>
const routers = new Set<TestRouter>()

/** Remembers a router a test rendered (render.tsx), so that setup.ts can stop it after the test. */
export function trackRouter<R extends TestRouter>(router: R): R {
  routers.add(router)
  return router
}

/** Stops every router a test rendered (setup.ts, after cleanup): no navigation settles after the test's end. */
export function disposeRouters(): void {
  for (const router of routers) router.dispose()
  routers.clear()
}
