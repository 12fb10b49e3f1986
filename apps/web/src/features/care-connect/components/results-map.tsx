import { CARE_ANALYTICS_EVENTS } from '@citrus/contracts'
import { Box, Text } from '@mantine/core'
import { Suspense, useMemo } from 'react'
import { CitrusMap, MAP_DEFAULTS } from '../../../components/map'
import { track } from '../../../lib/analytics'
import type { HcoRow, HcpRow } from '../api/care-api'

/**
 * The map of the results (spec 3 §2.2, §2.3): providers and facilities as points, the search radius as a
 * circle in miles, through the shared map (components/map, MapLibre, lazy-loaded). Points are prepared here:
 * invalid coordinates are dropped with a warning (spec 3 §5).
 */
export interface ResultsMapProps {
  providers: HcpRow[]
  facilities: HcoRow[]
  center: { lat: number; lng: number }
  radiusMiles: number
  selectedNpi?: string | null
  onSelect?: (npi: string) => void
}

export interface ResultsMapPoint {
  id: string
  lat: number
  lng: number
  label: string
  color?: string
  group?: string
}

export function resultsMapPoints(providers: HcpRow[], facilities: HcoRow[]): ResultsMapPoint[] {
  const points: ResultsMapPoint[] = []
  const valid = (lat: number, lng: number) => Number.isFinite(lat) && Number.isFinite(lng) && Math.abs(lat) <= 90 && Math.abs(lng) <= 180
  for (const p of providers) {
    const { latitude: lat, longitude: lng, npi, full_name } = p.hcp_entity
    if (valid(lat, lng)) points.push({ id: npi, lat, lng, label: full_name, color: '#1c7ed6', group: 'providers' })
    else console.warn(`Invalid coordinates for provider ${npi}`)
  }
  for (const f of facilities) {
    if (valid(f.latitude, f.longitude))
      points.push({
        id: f.hco_npi ?? `hco-${f.hco_id}`,
        lat: f.latitude,
        lng: f.longitude,
        label: f.hco_name,
        color: '#2f9e44',
        group: 'facilities',
      })
    else console.warn(`Invalid coordinates for facility ${f.hco_name}`)
  }
  return points
}

/** Care Connect's map rules (spec 3 §9): provider fly-to zoom 14, clusters of radius 50, fit padding 50. */
export const RESULTS_MAP = {
  flyToZoom: MAP_DEFAULTS.flyToZoom,
  clusterRadius: MAP_DEFAULTS.clusterRadius,
  fitPadding: MAP_DEFAULTS.fitPadding,
} as const

export function ResultsMap({ providers, facilities, center, radiusMiles, selectedNpi, onSelect }: ResultsMapProps) {
  const points = useMemo(() => resultsMapPoints(providers, facilities), [providers, facilities])
  const circle = useMemo(
    () =>
      Number.isFinite(center.lat) && Number.isFinite(center.lng) && radiusMiles > 0
        ? { lat: center.lat, lng: center.lng, radiusMiles }
        : undefined,
    [center.lat, center.lng, radiusMiles],
  )
  return (
    <Box data-testid="care-results-map" h="100%">
      <Suspense fallback={<Text c="dimmed">…</Text>}>
        <CitrusMap
          points={points}
          cluster
          selectedId={selectedNpi ?? undefined}
          flyToZoom={RESULTS_MAP.flyToZoom}
          onPointClick={(npi) => {
            track(CARE_ANALYTICS_EVENTS.markerClicked, { npi })
            onSelect?.(npi)
          }}
          radiusCircle={circle}
          fitToPoints
          height="100%"
          ariaLabel="Results map"
        />
      </Suspense>
    </Box>
  )
}
