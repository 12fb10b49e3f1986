import { useCallback, useMemo } from 'react'
import { useSearchParams } from 'react-router'
import { filtersFromSearchParams, filtersToSearchParams, type NovaFilters } from '../utils/filters'

/**
 * The results screen's filters live in the URL (spec 2 §2): reading them is the normalisation of
 * filtersFromSearchParams, writing them replaces the history entry and keeps the tab. The page (0-based
 * in the filters, 1-based on screen) rides along as `page`.
 */
export function useNovaFilters() {
  const [params, setParams] = useSearchParams()
  const filters = useMemo<NovaFilters>(() => {
    const read = filtersFromSearchParams(params)
    const page = Number(params.get('page') ?? '0')
    return { ...read, selectedPage: Number.isInteger(page) && page >= 0 ? page : 0 }
  }, [params])
  const setFilters = useCallback(
    (next: NovaFilters | ((current: NovaFilters) => NovaFilters), extra: Record<string, string> = {}) => {
      setParams(
        (current) => {
          const currentFilters = filtersFromSearchParams(current)
          currentFilters.selectedPage = Number(current.get('page') ?? '0') || 0
          const value = typeof next === 'function' ? next(currentFilters) : next
          const out = filtersToSearchParams(value, current)
          if (value.selectedPage > 0) out.set('page', String(value.selectedPage))
          else out.delete('page')
          for (const [k, v] of Object.entries(extra)) out.set(k, v)
          return out
        },
        { replace: true },
      )
    },
    [setParams],
  )
  return [filters, setFilters] as const
}
