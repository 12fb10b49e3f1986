import { CLIENT_ROUTES, type ClientRoute } from '@citrus/contracts'
import { Suspense, useEffect } from 'react'
import { Outlet, createBrowserRouter, type RouteObject } from 'react-router'
import { ComingSoonPage } from '../components/coming-soon-page'
import { ErrorPage } from '../components/errors/error-page'
import { RouteErrorBoundary } from '../components/errors/route-error-boundary'
import { FullScreenLoader } from '../components/feedback/loading'
import { PageLoader } from '../components/feedback/page-loader'
import { AppLayout } from '../components/layouts/app-layout'
import { FeedbackButton } from '../features/feedback/components/feedback-button'
import { track } from '../lib/analytics'
import { resumeGuestSession } from '../lib/guest-session'
import { consumeLoginEvent, useSession } from '../lib/session'
import { BARE_PATHS, PAGES } from './routes/pages'
import { RouteGuard } from './routes/route-guard'

function RoutePage({ route }: { route: ClientRoute }) {
  const Page = PAGES[route.path as keyof typeof PAGES]
  return (
    <RouteGuard route={route}>
      {Page ? (
        <Suspense fallback={BARE_PATHS.has(route.path as never) ? <FullScreenLoader /> : <PageLoader />}>
          <Page />
        </Suspense>
      ) : (
        <ComingSoonPage route={route} />
      )}
    </RouteGuard>
  )
}

/** App-wide effects that need the router: the login analytics event. */
function RootLayout() {
  const session = useSession()
  useEffect(() => {
    if (session.authenticated && consumeLoginEvent()) track('user_logged_in', { role: session.role })
  }, [session.authenticated, session.role])
  return <Outlet />
}

/** The shell with the feedback button for signed-in users. */
function ShellLayout() {
  const session = useSession()
  return <AppLayout floating={session.authenticated ? <FeedbackButton /> : null} />
}

function toRouteObject(route: ClientRoute): RouteObject {
  return { path: route.path, element: <RoutePage route={route} /> }
}

const routes = CLIENT_ROUTES as readonly ClientRoute[]

/** The whole route table of @citrus/contracts, plus the not-found page and a route error boundary. */
export const appRoutes: RouteObject[] = [
  {
    element: <RootLayout />,
    errorElement: <RouteErrorBoundary />,
    children: [
      {
        errorElement: <RouteErrorBoundary />,
        children: [
          ...routes.filter((route) => BARE_PATHS.has(route.path as never)).map(toRouteObject),
          { element: <ShellLayout />, children: routes.filter((route) => !BARE_PATHS.has(route.path as never)).map(toRouteObject) },
          { path: '*', element: <ErrorPage /> },
        ],
      },
    ],
  },
]

export function createAppRouter() {
  // Resume a guest session kept in sessionStorage before the first render, so the guard of the first
  // page sees it as validating rather than absent (which would redirect to /sign-in).
  resumeGuestSession()
  return createBrowserRouter(appRoutes)
}
