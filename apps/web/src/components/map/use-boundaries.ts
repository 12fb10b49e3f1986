import { endpoints, type BoundariesQuery } from '@citrus/contracts'
import { useApiQuery } from '../../hooks/use-api'

/**
 * GET /geo/boundaries: state or county outlines as GeoJSON (for a state-level choropleth joined on `fips`).
 * Boundaries change only with a data load, so the answer is kept for the session.
 */
export function useBoundaries(query: BoundariesQuery, options: { enabled?: boolean } = {}) {
  return useApiQuery(endpoints.geo.boundaries, { query }, { staleTime: Infinity, enabled: options.enabled ?? true })
}
