import { Box, Text } from '@mantine/core'
import { lazy, Suspense, type ComponentType } from 'react'

/**
 * The one place of the Nova screens that holds the map. The shared map component (components/map, MapLibre,
 * built by its own issue) is looked up at build time: while it is absent this renders nothing, and the
 * rest of the map tab (loading and error states, legend, facility list) still works.
 */
/** GeoJSON as the Nova tiles carry it. */
export interface MapFeature {
  type: 'Feature'
  id?: string | number
  geometry: { type: string; coordinates: unknown } | null
  properties: Record<string, unknown>
}
export interface MapFeatureCollection {
  type: 'FeatureCollection'
  features: MapFeature[]
}

export interface CitrusMapProps {
  choropleth?: { data: MapFeatureCollection; property: string; stops: { value: number; color: string }[] }
  points?: { id: string; lat: number; lng: number; label: string; color?: string; group?: string }[]
  selectedId?: string | null
  onFeatureClick?: (feature: MapFeature) => void
  onPointClick?: (id: string) => void
  height?: number | string
}

type MapModule = { CitrusMap?: ComponentType<CitrusMapProps> }
const candidates = import.meta.glob<MapModule>([
  '../../../components/map/index.ts',
  '../../../components/map/index.tsx',
  '../../../components/map/citrus-map.tsx',
])
const loader = Object.values(candidates)[0]

const SharedMap = loader
  ? lazy(async () => {
      const module = await loader()
      const missing: ComponentType<CitrusMapProps> = () => null
      return { default: module.CitrusMap ?? missing }
    })
  : null

/** True when the shared map component is part of the build. */
export const MAP_AVAILABLE = SharedMap !== null

export function NovaMap(props: CitrusMapProps) {
  if (!SharedMap) return null
  return (
    <Box data-testid="nova-map">
      <Suspense fallback={<Text c="dimmed">…</Text>}>
        <SharedMap {...props} />
      </Suspense>
    </Box>
  )
}
