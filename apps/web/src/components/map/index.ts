import { lazy } from 'react'

/**
 * The one map of the web client, shared by Care Connect, Atlas and Nova. MapLibre GL is loaded lazily:
 * render `<Suspense fallback={...}><CitrusMap ... /></Suspense>`; the launcher's bundle never includes it.
 * Only types and constants are exported eagerly (no maplibre, no turf).
 */
export const CitrusMap = lazy(() => import('./citrus-map'))

export { MAP_DEFAULTS } from './types'
export type { ChoroplethStop, CitrusMapProps, MapChoropleth, MapPoint, RadiusCircle } from './types'
export { useBoundaries } from './use-boundaries'
