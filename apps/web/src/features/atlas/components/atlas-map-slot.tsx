import { lazy, Suspense, type ComponentType } from 'react'

/**
 * The one place of the Atlas feature where the shared map (apps/web/src/components/map, MapLibre GL,
 * lazy-loaded) is used. The shared map is built in parallel: until its module exists this renders
 * nothing, and the feature needs no other change when it lands.
 */
/** A GeoJSON FeatureCollection (the shape of the Atlas responses). */
export interface FeatureCollection {
  type: 'FeatureCollection'
  features: { type: 'Feature'; geometry: unknown; properties: Record<string, unknown> | null }[]
}

export interface AtlasMapProps {
  choropleth?:
    | { data: FeatureCollection; property: string; stops: { value: number; color: string }[] }
    | { tilesUrl: string; property: string; stops: { value: number; color: string }[] }
  points?: FeatureCollection
  onFeatureClick?: (properties: Record<string, unknown>) => void
  height?: number | string
}

const modules = import.meta.glob<{ CitrusMap: ComponentType<AtlasMapProps> }>('../../../components/map/index.{ts,tsx}')
const load = Object.values(modules)[0]
const CitrusMap = load ? lazy(async () => ({ default: (await load()).CitrusMap })) : null

/** True once the shared map component is part of the build. */
export const MAP_AVAILABLE = CitrusMap !== null

export function AtlasMapSlot(props: AtlasMapProps) {
  if (!CitrusMap) return null
  return (
    <Suspense fallback={null}>
      <CitrusMap {...props} />
    </Suspense>
  )
}
