import type { UseQueryResult } from '@tanstack/react-query'
import { EmptyState } from './empty-state'
import { PageLoader } from './page-loader'

/**
 * What a list panel shows before its data: the loader while the query is pending (or retrying after an
 * error), else the error with Try Again; nothing once the data is there.
 */
export function QueryStatus({ query, errorTitle, onRetry }: { query: UseQueryResult<unknown>; errorTitle: string; onRetry?: () => void }) {
  if (query.isPending || (query.isError && query.isFetching)) return <PageLoader />
  if (!query.isError) return null
  return (
    <EmptyState
      type="error"
      variant="inline"
      title={errorTitle}
      message=""
      action={{ label: 'Try Again', onClick: onRetry ?? (() => void query.refetch()) }}
    />
  )
}
