import { ATLAS_TILE_LAYER } from '@citrus/contracts'
import { Suspense, useMemo } from 'react'
import { CitrusMap, type MapChoropleth, type MapPoint } from '../../../components/map'

/**
 * The one place of the Atlas feature where the shared map (apps/web/src/components/map, MapLibre GL,
 * lazy-loaded) is used: a choropleth from the generic GeoJSON or from the Atlas vector tiles (layer
 * ATLAS_TILE_LAYER), and optional point features as markers.
 */
/** A GeoJSON FeatureCollection (the shape of the Atlas responses). */
export interface FeatureCollection {
  type: 'FeatureCollection'
  features: { type: 'Feature'; geometry: unknown; properties: Record<string, unknown> | null }[]
}

export interface AtlasMapProps {
  /** title: the legend's (the answer's metric_config.title); required, so that the legend never shows the property name */
  choropleth?:
    | { data: FeatureCollection; property: string; stops: { value: number; color: string }[]; title: string }
    | { tilesUrl: string; property: string; stops: { value: number; color: string }[]; title: string }
  points?: FeatureCollection
  onFeatureClick?: (properties: Record<string, unknown>) => void
  /** a click on the map outside every region and point */
  onEmptyClick?: () => void
  height?: number | string
}

/** Point features as map markers (id and label from their properties); other geometries are skipped. */
export function atlasMapPoints(points: FeatureCollection | undefined): MapPoint[] | undefined {
  if (!points) return undefined
  const out: MapPoint[] = []
  points.features.forEach((feature, index) => {
    const geometry = feature.geometry as { type?: string; coordinates?: unknown } | null
    if (geometry?.type !== 'Point' || !Array.isArray(geometry.coordinates)) return
    const [lng, lat] = geometry.coordinates as [number, number]
    const props = feature.properties ?? {}
    const id = props.id ?? props.npi ?? index
    out.push({ id: String(id), lat, lng, label: String(props.label ?? props.name ?? id) })
  })
  return out
}

/** The Atlas choropleth as the shared map takes it: tiles colour the ATLAS_TILE_LAYER layer. */
export function atlasChoropleth(choropleth: AtlasMapProps['choropleth']): MapChoropleth | undefined {
  if (!choropleth) return undefined
  if ('tilesUrl' in choropleth) return { ...choropleth, sourceLayer: ATLAS_TILE_LAYER }
  return { ...choropleth, data: choropleth.data as GeoJSON.FeatureCollection }
}

export function AtlasMapSlot({ choropleth, points, onFeatureClick, onEmptyClick, height }: AtlasMapProps) {
  // callers build the choropleth inline: the map redraws it only when its source, property or stops change
  const source = choropleth ? ('tilesUrl' in choropleth ? choropleth.tilesUrl : choropleth.data) : undefined
  const stopsKey = JSON.stringify(choropleth?.stops ?? null)
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const mapChoropleth = useMemo(() => atlasChoropleth(choropleth), [source, choropleth?.property, choropleth?.title, stopsKey])
  const mapPoints = useMemo(() => atlasMapPoints(points), [points])
  return (
    <Suspense fallback={null}>
      <CitrusMap
        choropleth={mapChoropleth}
        points={mapPoints}
        onFeatureClick={onFeatureClick}
        onEmptyClick={onEmptyClick}
        height={height}
        ariaLabel="Atlas map"
      />
    </Suspense>
  )
}
