import { isRouteErrorResponse, useRouteError } from 'react-router'
import { ErrorPage } from './error-page'
import { NOT_FOUND_MESSAGE, ROUTE_ERROR_MESSAGE } from './messages'

/** Route errors show the generic error page (spec 1 §8). */
export function RouteErrorBoundary() {
  const error = useRouteError()
  if (isRouteErrorResponse(error)) {
    return <ErrorPage code={error.status} message={error.status === 404 ? NOT_FOUND_MESSAGE : ROUTE_ERROR_MESSAGE} />
  }
  return <ErrorPage code={500} message={ROUTE_ERROR_MESSAGE} />
}
