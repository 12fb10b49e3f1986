import { endpoints } from '@citrus/contracts'
import labelFontBoldUrl from '@fontsource/manrope/files/manrope-latin-700-normal.woff2?url'
import labelFontUrl from '@fontsource/manrope/files/manrope-latin-600-normal.woff2?url'
import { ActionIcon, Box, Group, Paper, Stack, Text } from '@mantine/core'
import { IconChevronDown, IconChevronUp } from '@tabler/icons-react'
import * as maplibregl from 'maplibre-gl'
import type { GeoJSONSource, MapGeoJSONFeature, StyleSpecification } from 'maplibre-gl'
import workerUrl from 'maplibre-gl/dist/maplibre-gl-worker.mjs?url'
import 'maplibre-gl/dist/maplibre-gl.css'
import { useEffect, useMemo, useRef, useState } from 'react'
import { useApiQuery } from '../../hooks/use-api'
import { absoluteApiBaseUrl, absoluteUrl, authorizeApiRequest } from '../../lib/api-client'
import { BASEMAP_FIRST_LINE_LAYER, offlineStyle, PLACE_LABEL_LAYERS } from './basemap'
import {
  choroplethColorExpression,
  formatRadiusMiles,
  legendItems,
  pointsBounds,
  pointsCollection,
  polygonBounds,
  radiusCirclePolygon,
  unionBounds,
  validPoints,
} from './map-utils'
import { MAP_DEFAULTS, type CitrusMapProps, type MapChoropleth } from './types'

maplibregl.setWorkerUrl(workerUrl)

const SOURCES = { points: 'citrus-points', circle: 'citrus-radius', choropleth: 'citrus-choropleth' } as const
const LAYERS = {
  choroplethFill: 'citrus-choropleth-fill',
  choroplethLine: 'citrus-choropleth-line',
  circleFill: 'citrus-radius-fill',
  circleLine: 'citrus-radius-line',
  clusters: 'citrus-clusters',
  points: 'citrus-points',
} as const
const EMPTY: GeoJSON.FeatureCollection = { type: 'FeatureCollection', features: [] }

function removeLayers(map: maplibregl.Map, layers: readonly string[], source: string) {
  for (const id of layers) if (map.getLayer(id)) map.removeLayer(id)
  if (map.getSource(source)) map.removeSource(source)
}

/** The choropleth's source and fill/outline layers (GeoJSON or vector tiles), below the circle and points. */
function setChoropleth(map: maplibregl.Map, choropleth: MapChoropleth | undefined) {
  removeLayers(map, [LAYERS.choroplethFill, LAYERS.choroplethLine], SOURCES.choropleth)
  if (!choropleth) return
  const sourceLayer = 'tilesUrl' in choropleth ? (choropleth.sourceLayer ?? MAP_DEFAULTS.choroplethSourceLayer) : undefined
  if ('tilesUrl' in choropleth) {
    map.addSource(SOURCES.choropleth, { type: 'vector', tiles: [absoluteUrl(choropleth.tilesUrl, window.location.origin)] })
  } else {
    map.addSource(SOURCES.choropleth, { type: 'geojson', data: choropleth.data })
  }
  // under the offline basemap's outlines (so borders stay visible), else under the circle and points
  const before = [BASEMAP_FIRST_LINE_LAYER, LAYERS.circleFill].find((id) => map.getLayer(id))
  map.addLayer(
    {
      id: LAYERS.choroplethFill,
      type: 'fill',
      source: SOURCES.choropleth,
      ...(sourceLayer ? { 'source-layer': sourceLayer } : {}),
      paint: {
        'fill-color': choroplethColorExpression(choropleth.property, choropleth.stops) as never,
        'fill-opacity': 0.75,
      },
    },
    before,
  )
  map.addLayer(
    {
      id: LAYERS.choroplethLine,
      type: 'line',
      source: SOURCES.choropleth,
      ...(sourceLayer ? { 'source-layer': sourceLayer } : {}),
      paint: { 'line-color': '#ffffff', 'line-width': 0.5 },
    },
    before,
  )
}

/** The points source (clustered or not) and its layers, on top. */
function setPointLayers(map: maplibregl.Map, cluster: boolean, clusterMaxZoom: number) {
  removeLayers(map, [LAYERS.clusters, LAYERS.points], SOURCES.points)
  map.addSource(SOURCES.points, {
    type: 'geojson',
    data: EMPTY,
    cluster,
    clusterRadius: MAP_DEFAULTS.clusterRadius,
    clusterMaxZoom,
  })
  map.addLayer({
    id: LAYERS.clusters,
    type: 'circle',
    source: SOURCES.points,
    filter: ['has', 'point_count'],
    paint: {
      'circle-color': MAP_DEFAULTS.pointColor,
      'circle-opacity': 0.85,
      'circle-stroke-color': '#ffffff',
      'circle-stroke-width': 2,
      'circle-radius': ['step', ['get', 'point_count'], 14, 10, 18, 50, 24, 200, 30],
    },
  })
  map.addLayer({
    id: LAYERS.points,
    type: 'circle',
    source: SOURCES.points,
    filter: ['!', ['has', 'point_count']],
    paint: {
      'circle-color': ['get', 'color'],
      'circle-radius': 7,
      'circle-stroke-color': '#ffffff',
      'circle-stroke-width': 2,
    },
  })
}

function setCircleLayers(map: maplibregl.Map) {
  map.addSource(SOURCES.circle, { type: 'geojson', data: EMPTY })
  map.addLayer({
    id: LAYERS.circleFill,
    type: 'fill',
    source: SOURCES.circle,
    paint: { 'fill-color': '#1c7ed6', 'fill-opacity': 0.08 },
  })
  map.addLayer({
    id: LAYERS.circleLine,
    type: 'line',
    source: SOURCES.circle,
    paint: { 'line-color': '#1c7ed6', 'line-width': 2, 'line-dasharray': [2, 2] },
  })
}

function Legend({ choropleth }: { choropleth: MapChoropleth }) {
  const [open, setOpen] = useState(true)
  const items = legendItems(choropleth.stops)
  if (items.length === 0) return null
  return (
    <Paper
      shadow="sm"
      p="xs"
      radius="sm"
      withBorder
      style={{ position: 'absolute', left: 10, bottom: 30, zIndex: 1, maxWidth: 220 }}
      data-testid="map-legend"
    >
      <Group justify="space-between" gap="xs" wrap="nowrap">
        <Text size="xs" fw={600}>
          {choropleth.title ?? choropleth.property}
        </Text>
        <ActionIcon
          size="xs"
          variant="subtle"
          onClick={() => setOpen((value) => !value)}
          aria-label={open ? 'Collapse legend' : 'Expand legend'}
        >
          {open ? <IconChevronDown size={14} /> : <IconChevronUp size={14} />}
        </ActionIcon>
      </Group>
      {open && (
        <Stack gap={2} mt={4}>
          {items.map((item) => (
            <Group key={item.label} gap={6} wrap="nowrap">
              <Box w={14} h={14} style={{ background: item.color, borderRadius: 2, flexShrink: 0 }} />
              <Text size="xs">{item.label}</Text>
            </Group>
          ))}
        </Stack>
      )}
    </Paper>
  )
}

/**
 * The one map of the web client (MapLibre GL, loaded lazily through `CitrusMap` in ./index). The basemap is
 * the platform's own state and county outlines unless MAP_STYLE_URL names a hosted style (GET /version).
 */
export default function CitrusMapImpl({
  points = [],
  cluster = false,
  clusterMaxZoom = MAP_DEFAULTS.clusterMaxZoom,
  selectedId,
  flyToZoom = MAP_DEFAULTS.flyToZoom,
  onPointClick,
  radiusCircle,
  choropleth,
  onFeatureClick,
  fitToPoints = false,
  height = MAP_DEFAULTS.height,
  legend = true,
  initialView,
  flyTo,
  onEmptyClick,
  onLoad,
  ariaLabel = 'Map',
}: CitrusMapProps) {
  const container = useRef<HTMLDivElement>(null)
  const mapRef = useRef<maplibregl.Map | null>(null)
  const [ready, setReady] = useState(false)
  const meta = useApiQuery(endpoints.meta.version, {}, { staleTime: Infinity, retry: false })
  const styleKnown = meta.isSuccess || meta.isError
  const hostedStyle = meta.data?.map_style_url ?? null

  // the latest callbacks, read by the map's listeners without re-creating the map
  const handlers = useRef({ onPointClick, onFeatureClick, onEmptyClick, onLoad })
  useEffect(() => {
    handlers.current = { onPointClick, onFeatureClick, onEmptyClick, onLoad }
  }, [onPointClick, onFeatureClick, onEmptyClick, onLoad])

  const visiblePoints = useMemo(() => validPoints(points), [points])
  const circlePolygon = useMemo(() => (radiusCircle ? radiusCirclePolygon(radiusCircle) : null), [radiusCircle])

  useEffect(() => {
    if (!styleKnown || !container.current) return
    const origin = window.location.origin
    const fonts = { regular: absoluteUrl(labelFontUrl, origin), bold: absoluteUrl(labelFontBoldUrl, origin) }
    const style: StyleSpecification | string = hostedStyle ?? offlineStyle(absoluteApiBaseUrl(), fonts)
    const view = initialView ?? { ...MAP_DEFAULTS.center, zoom: MAP_DEFAULTS.zoom }
    const map = new maplibregl.Map({
      container: container.current,
      style,
      center: [view.lng, view.lat],
      zoom: view.zoom,
      // our API's requests carry the caller's credentials of the moment, as the API client's do
      transformRequest: (url) => authorizeApiRequest(url),
    })
    mapRef.current = map
    map.addControl(new maplibregl.NavigationControl({ showCompass: false }), 'top-right')
    // what the map shows, readable by automation (e2e): the visible box and how many place labels are drawn
    const element = container.current
    map.on('moveend', () => {
      element.dataset.bounds = JSON.stringify(map.getBounds().toArray())
    })
    map.on('idle', () => {
      const labelLayers = Object.values(PLACE_LABEL_LAYERS).filter((id) => map.getLayer(id))
      element.dataset.placeLabels = String(labelLayers.length ? map.queryRenderedFeatures({ layers: labelLayers }).length : 0)
    })

    const popup = new maplibregl.Popup({ closeButton: false, closeOnClick: false, offset: 10 })
    map.on('load', () => {
      setCircleLayers(map)
      setPointLayers(map, cluster, clusterMaxZoom)
      setReady(true)
      handlers.current.onLoad?.()
    })
    map.on('click', LAYERS.points, (event) => {
      const id = event.features?.[0]?.properties?.id
      if (typeof id === 'string' && id !== '') handlers.current.onPointClick?.(id)
      else console.warn('Map: the clicked point has no id; ignored')
    })
    map.on('click', LAYERS.clusters, (event) => {
      const feature = event.features?.[0] as MapGeoJSONFeature | undefined
      const clusterId = feature?.properties?.cluster_id as number | undefined
      const source = map.getSource<GeoJSONSource>(SOURCES.points)
      if (!feature || clusterId === undefined || !source) return
      void source.getClusterExpansionZoom(clusterId).then((zoom) => {
        const [lng, lat] = (feature.geometry as GeoJSON.Point).coordinates as [number, number]
        map.easeTo({ center: [lng, lat], zoom })
      })
    })
    map.on('click', LAYERS.choroplethFill, (event) => {
      // a point drawn over a region wins the click
      if (map.queryRenderedFeatures(event.point, { layers: [LAYERS.points, LAYERS.clusters] }).length > 0) return
      const properties = event.features?.[0]?.properties
      if (properties) handlers.current.onFeatureClick?.({ ...properties })
    })
    map.on('click', (event) => {
      const layers = [LAYERS.points, LAYERS.clusters, LAYERS.choroplethFill].filter((id) => map.getLayer(id))
      if (map.queryRenderedFeatures(event.point, { layers }).length === 0) {
        popup.remove()
        handlers.current.onEmptyClick?.()
      }
    })
    map.on('mouseenter', LAYERS.points, (event) => {
      map.getCanvas().style.cursor = 'pointer'
      const feature = event.features?.[0]
      if (!feature) return
      const [lng, lat] = (feature.geometry as GeoJSON.Point).coordinates as [number, number]
      popup
        .setLngLat([lng, lat])
        .setText(String(feature.properties?.label ?? ''))
        .addTo(map)
    })
    map.on('mouseleave', LAYERS.points, () => {
      map.getCanvas().style.cursor = ''
      popup.remove()
    })
    for (const layer of [LAYERS.clusters, LAYERS.choroplethFill]) {
      map.on('mouseenter', layer, () => (map.getCanvas().style.cursor = 'pointer'))
      map.on('mouseleave', layer, () => (map.getCanvas().style.cursor = ''))
    }
    return () => {
      popup.remove()
      map.remove()
      mapRef.current = null
      setReady(false)
    }
    // the map is built once per style; the other props are applied by the effects below
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [styleKnown, hostedStyle])

  // clustering is an option of the source: rebuild the points source when it changes
  const builtCluster = useRef(`${cluster}:${clusterMaxZoom}`)
  useEffect(() => {
    const map = mapRef.current
    const key = `${cluster}:${clusterMaxZoom}`
    if (!ready || !map || builtCluster.current === key) return
    builtCluster.current = key
    setPointLayers(map, cluster, clusterMaxZoom)
    void map.getSource<GeoJSONSource>(SOURCES.points)?.setData(pointsCollection(visiblePoints))
  }, [ready, cluster, clusterMaxZoom, visiblePoints])

  // the points and the radius circle, and the view that holds them both (Care Connect opens on the whole search)
  useEffect(() => {
    const map = mapRef.current
    if (!ready || !map) return
    void map.getSource<GeoJSONSource>(SOURCES.points)?.setData(pointsCollection(visiblePoints))
    void map
      .getSource<GeoJSONSource>(SOURCES.circle)
      ?.setData(circlePolygon ? { type: 'FeatureCollection', features: [circlePolygon] } : EMPTY)
    if (fitToPoints) {
      const bounds = unionBounds(pointsBounds(visiblePoints), circlePolygon ? polygonBounds(circlePolygon) : null)
      if (bounds) map.fitBounds(bounds, { padding: MAP_DEFAULTS.fitPadding, maxZoom: flyToZoom, duration: 0 })
    }
  }, [ready, visiblePoints, circlePolygon, fitToPoints, flyToZoom])

  useEffect(() => {
    const map = mapRef.current
    if (!ready || !map) return
    setChoropleth(map, choropleth)
  }, [ready, choropleth])

  useEffect(() => {
    const map = mapRef.current
    if (!ready || !map) return
    map.setPaintProperty(LAYERS.points, 'circle-stroke-width', selectedId ? ['case', ['==', ['get', 'id'], selectedId], 4, 2] : 2)
    map.setPaintProperty(LAYERS.points, 'circle-radius', selectedId ? ['case', ['==', ['get', 'id'], selectedId], 10, 7] : 7)
    if (!selectedId) return
    const point = visiblePoints.find((candidate) => candidate.id === selectedId)
    if (!point) {
      console.warn(`Map: selected point ${selectedId} has no valid coordinates; not moving the map`)
      return
    }
    map.flyTo({ center: [point.lng, point.lat], zoom: flyToZoom, duration: MAP_DEFAULTS.flyToDurationMs })
  }, [ready, selectedId, visiblePoints, flyToZoom])

  useEffect(() => {
    const map = mapRef.current
    if (!ready || !map || !flyTo) return
    map.flyTo({ center: [flyTo.lng, flyTo.lat], zoom: flyTo.zoom, duration: MAP_DEFAULTS.flyToDurationMs })
  }, [ready, flyTo])

  return (
    <Box pos="relative" h={height} style={{ borderRadius: 8, overflow: 'hidden' }}>
      <div
        ref={container}
        role="region"
        aria-label={ariaLabel}
        data-testid="citrus-map"
        data-map-ready={ready ? 'true' : 'false'}
        data-radius-bounds={circlePolygon ? JSON.stringify(polygonBounds(circlePolygon)) : undefined}
        style={{ position: 'absolute', inset: 0 }}
      />
      {circlePolygon && radiusCircle && (
        <Paper
          shadow="xs"
          px={8}
          py={2}
          radius="sm"
          withBorder
          style={{ position: 'absolute', left: 10, top: 10, zIndex: 1 }}
          data-testid="map-radius"
        >
          <Text size="xs" fw={600}>
            Search radius: {formatRadiusMiles(radiusCircle.radiusMiles)}
          </Text>
        </Paper>
      )}
      {choropleth && legend && <Legend choropleth={choropleth} />}
    </Box>
  )
}
