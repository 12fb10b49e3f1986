import { Box, Text } from '@mantine/core'
import { Suspense, useState } from 'react'
import { CitrusMap, MAP_DEFAULTS, type CitrusMapProps } from '../../../components/map'
import { NOVA_CLIENT_MESSAGES } from '../utils/messages'

/** Nova's map rules (spec 2 §4, §9): a facility is flown to at zoom 10; a later tiles fetch flies to zoom 5. */
export const NOVA_MAP = {
  facilityZoom: 10,
  tilesZoom: MAP_DEFAULTS.tilesFlyToZoom,
} as const

/** GeoJSON as the Nova tiles carry it. */
export interface MapFeature {
  type: 'Feature'
  id?: string | number
  geometry: { type: string; coordinates: unknown } | null
  properties: Record<string, unknown>
}

/** The centre of a feature's extent (a point's own position), or null without usable coordinates. */
export function featureCenter(feature: Pick<MapFeature, 'geometry'> | undefined): { lat: number; lng: number } | null {
  if (!feature?.geometry) return null
  let minLng = Infinity
  let maxLng = -Infinity
  let minLat = Infinity
  let maxLat = -Infinity
  const visit = (value: unknown) => {
    if (!Array.isArray(value)) return
    if (value.length >= 2 && typeof value[0] === 'number' && typeof value[1] === 'number') {
      const [lng, lat] = value as [number, number]
      if (!Number.isFinite(lng) || !Number.isFinite(lat) || Math.abs(lat) > 90 || Math.abs(lng) > 180) return
      minLng = Math.min(minLng, lng)
      maxLng = Math.max(maxLng, lng)
      minLat = Math.min(minLat, lat)
      maxLat = Math.max(maxLat, lat)
      return
    }
    for (const item of value) visit(item)
  }
  visit(feature.geometry.coordinates)
  if (!Number.isFinite(minLng)) return null
  return { lat: (minLat + maxLat) / 2, lng: (minLng + maxLng) / 2 }
}

/**
 * The fly-to of the tiles rule (spec 2 §4): the first tiles fetch does not move the map; each later one (a new
 * `fetchedAt`) flies to the first feature at zoom 5.
 */
export function useTilesFlyTo(fetchedAt: number, firstFeature: MapFeature | undefined): CitrusMapProps['flyTo'] {
  const [first] = useState(fetchedAt)
  const [target, setTarget] = useState<{ at: number; view: CitrusMapProps['flyTo'] }>({ at: first, view: undefined })
  if (fetchedAt !== target.at) {
    const center = featureCenter(firstFeature)
    setTarget({ at: fetchedAt, view: center ? { ...center, zoom: NOVA_MAP.tilesZoom } : undefined })
  }
  return target.view
}

export interface NovaMapProps extends Pick<CitrusMapProps, 'choropleth' | 'points' | 'onPointClick' | 'height'> {
  /** the selected facility (NPI): highlighted and flown to at zoom 10 */
  selectedId?: string
  /** the view of a later tiles fetch (useTilesFlyTo) */
  flyTo?: CitrusMapProps['flyTo']
}

/** The map of Nova's Atlas Intelligence tab: the shared CitrusMap with Nova's zooms and the region selection. */
export function NovaMap({ selectedId, flyTo, ...props }: NovaMapProps) {
  const [region, setRegion] = useState<string | null>(null)
  return (
    <Box data-testid="nova-map" pos="relative">
      <Suspense fallback={<Text c="dimmed">…</Text>}>
        <CitrusMap
          {...props}
          selectedId={selectedId || undefined}
          flyToZoom={NOVA_MAP.facilityZoom}
          legend={false}
          flyTo={flyTo}
          onFeatureClick={(properties) => {
            const id = properties.id ?? properties.code
            if (id === undefined || id === null || id === '') console.warn('Nova map: the clicked region has no id; ignored')
            else setRegion(String(id))
          }}
          onEmptyClick={() => setRegion(null)}
          ariaLabel="Nova map"
        />
      </Suspense>
      {region !== null && (
        <Text size="sm" fw={600} mt={4} data-testid="nova-map-region">
          {NOVA_CLIENT_MESSAGES.viewingRegion(region)}
        </Text>
      )}
    </Box>
  )
}
