import { circle } from '@turf/turf'
import { MAP_DEFAULTS, type ChoroplethStop, type MapPoint, type RadiusCircle } from './types'

/**
 * The pure parts of the shared map: coordinate checks, the points' GeoJSON and bounds, the radius circle,
 * the choropleth colour expression and its legend. Loaded with the map (never in the launcher's bundle).
 */

/** Valid when longitude is within -180..180 and latitude within -90..90 (spec 2 §5, spec 3 §5). */
export function isValidCoordinate(lat: unknown, lng: unknown): lat is number {
  return (
    typeof lat === 'number' &&
    typeof lng === 'number' &&
    Number.isFinite(lat) &&
    Number.isFinite(lng) &&
    lat >= -90 &&
    lat <= 90 &&
    lng >= -180 &&
    lng <= 180
  )
}

/** The points with valid coordinates; each dropped one is reported with console.warn. */
export function validPoints(points: readonly MapPoint[]): MapPoint[] {
  const kept: MapPoint[] = []
  for (const point of points) {
    if (isValidCoordinate(point.lat, point.lng)) kept.push(point)
    else console.warn(`Map: point ${point.id} dropped, invalid coordinates (lat ${String(point.lat)}, lng ${String(point.lng)})`)
  }
  return kept
}

export interface PointProperties {
  id: string
  label: string
  color: string
  group: string
}

/** The points as a GeoJSON source (feature id = the point id as a property; MapLibre ids must be numbers). */
export function pointsCollection(points: readonly MapPoint[]): GeoJSON.FeatureCollection<GeoJSON.Point, PointProperties> {
  return {
    type: 'FeatureCollection',
    features: points.map((point) => ({
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [point.lng, point.lat] },
      properties: { id: point.id, label: point.label, color: point.color ?? MAP_DEFAULTS.pointColor, group: point.group ?? '' },
    })),
  }
}

/** [[west, south], [east, north]] of the points, or null without points. */
export function pointsBounds(points: readonly MapPoint[]): LngLatBounds | null {
  if (points.length === 0) return null
  let west = Infinity
  let south = Infinity
  let east = -Infinity
  let north = -Infinity
  for (const { lat, lng } of points) {
    west = Math.min(west, lng)
    east = Math.max(east, lng)
    south = Math.min(south, lat)
    north = Math.max(north, lat)
  }
  return [
    [west, south],
    [east, north],
  ]
}

export type LngLatBounds = [[number, number], [number, number]]

/** The box holding every given box (null ones skipped), or null when none is given. */
export function unionBounds(...boxes: (LngLatBounds | null)[]): LngLatBounds | null {
  const present = boxes.filter((box): box is LngLatBounds => box !== null)
  if (present.length === 0) return null
  return [
    [Math.min(...present.map((b) => b[0][0])), Math.min(...present.map((b) => b[0][1]))],
    [Math.max(...present.map((b) => b[1][0])), Math.max(...present.map((b) => b[1][1]))],
  ]
}

/** The box of a polygon's outer ring. */
export function polygonBounds(polygon: GeoJSON.Feature<GeoJSON.Polygon>): LngLatBounds {
  const ring = polygon.geometry.coordinates[0] ?? []
  return pointsBounds(ring.map(([lng = 0, lat = 0], i) => ({ id: String(i), lat, lng, label: '' })))!
}

/** A radius in miles as shown on the map: at most one decimal ("25 mi", "2.5 mi"). */
export function formatRadiusMiles(miles: number): string {
  return `${new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 }).format(miles)} mi`
}

/** The search radius as a polygon (@turf/turf circle in miles, 64 steps); null when it cannot be drawn. */
export function radiusCirclePolygon(radius: RadiusCircle): GeoJSON.Feature<GeoJSON.Polygon> | null {
  if (!isValidCoordinate(radius.lat, radius.lng)) {
    console.warn(`Map: radius circle dropped, invalid centre (lat ${String(radius.lat)}, lng ${String(radius.lng)})`)
    return null
  }
  if (!Number.isFinite(radius.radiusMiles) || radius.radiusMiles <= 0) {
    console.warn(`Map: radius circle dropped, invalid radius ${String(radius.radiusMiles)} miles`)
    return null
  }
  return circle([radius.lng, radius.lat], radius.radiusMiles, { steps: MAP_DEFAULTS.circleSteps, units: 'miles' })
}

/** The stops in ascending order of value, without non-finite values. */
export function sortedStops(stops: readonly ChoroplethStop[]): ChoroplethStop[] {
  return stops.filter((stop) => Number.isFinite(stop.value)).sort((a, b) => a.value - b.value)
}

/** The colour a value takes: the last stop whose value it reaches, the first stop's below all of them. */
export function colorForValue(value: number, stops: readonly ChoroplethStop[]): string | null {
  const sorted = sortedStops(stops)
  if (sorted.length === 0) return null
  let color = sorted[0]!.color
  for (const stop of sorted) if (value >= stop.value) color = stop.color
  return color
}

/** Colour of features with no numeric value. */
export const NO_DATA_COLOR = 'rgba(0, 0, 0, 0)'

/**
 * The MapLibre fill-color expression of a choropleth: a `step` over the property, the same bands as
 * {@link colorForValue}; features without a number are transparent.
 */
export function choroplethColorExpression(property: string, stops: readonly ChoroplethStop[]): unknown {
  const sorted = sortedStops(stops)
  if (sorted.length === 0) return NO_DATA_COLOR
  const step: unknown[] = ['step', ['to-number', ['get', property], 0], sorted[0]!.color]
  for (const stop of sorted.slice(1)) step.push(stop.value, stop.color)
  return ['case', ['==', ['typeof', ['get', property]], 'number'], step, NO_DATA_COLOR]
}

export interface LegendItem {
  color: string
  label: string
}

function formatValue(value: number): string {
  return new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 }).format(value)
}

/** The legend of the stops: "< first", "a – b", ..., "≥ last" bands. */
export function legendItems(stops: readonly ChoroplethStop[]): LegendItem[] {
  const sorted = sortedStops(stops)
  return sorted.map((stop, index) => {
    const next = sorted[index + 1]
    if (index === 0 && sorted.length === 1) return { color: stop.color, label: `≥ ${formatValue(stop.value)}` }
    if (index === 0) return { color: stop.color, label: `< ${formatValue(next!.value)}` }
    if (!next) return { color: stop.color, label: `≥ ${formatValue(stop.value)}` }
    return { color: stop.color, label: `${formatValue(stop.value)} – ${formatValue(next.value)}` }
  })
}
