/** The shared map of the web client (Care Connect, Atlas, Nova): its public types and defaults. */

/** One marker. Invalid coordinates (outside -90..90 / -180..180 or not numbers) are dropped with a warning. */
export interface MapPoint {
  id: string
  lat: number
  lng: number
  label: string
  /** CSS colour of the marker; the brand colour otherwise */
  color?: string
  /** free grouping key (e.g. 'hospital', 'provider'), kept as a feature property */
  group?: string
}

export interface ChoroplethStop {
  /** lower bound of the band: a feature with value >= this (and below the next stop) takes the colour */
  value: number
  color: string
}

interface ChoroplethBase {
  /** the numeric feature property that is coloured */
  property: string
  /** ascending by value; values below the first stop take the first colour */
  stops: ChoroplethStop[]
  /** legend title; the property name otherwise */
  title?: string
}

/** A choropleth from GeoJSON in memory (state level) or from a vector-tile URL template (county, ZIP). */
export type MapChoropleth =
  | (ChoroplethBase & { data: GeoJSON.FeatureCollection })
  | (ChoroplethBase & {
      /** absolute or origin-relative template with {z}/{x}/{y}, e.g. /api/atlas/tiles/{z}/{x}/{y}.mvt?... */
      tilesUrl: string
      /** the layer of the tiles to colour; 'choropleth' otherwise */
      sourceLayer?: string
    })

export interface RadiusCircle {
  lat: number
  lng: number
  radiusMiles: number
}

export interface CitrusMapProps {
  points?: MapPoint[]
  /** cluster nearby points (radius 50 px) */
  cluster?: boolean
  /** clusters break up above this zoom (14 unless given; Atlas regions use 7) */
  clusterMaxZoom?: number
  /** the highlighted point; the map flies to it (zoom `flyToZoom`, 1500 ms) */
  selectedId?: string
  /** zoom of the fly-to on selection: 14 unless given (Nova facilities: 10) */
  flyToZoom?: number
  onPointClick?(id: string): void
  /** a circle of the given radius in miles (@turf/turf circle, 64 steps) */
  radiusCircle?: RadiusCircle
  choropleth?: MapChoropleth
  /** properties of the choropleth feature that was clicked */
  onFeatureClick?(props: Record<string, unknown>): void
  /** fit the view to the points (padding 50 px) whenever they change */
  fitToPoints?: boolean
  /** CSS height; 480 px otherwise */
  height?: number | string
  /** show the choropleth legend (default true when there is a choropleth) */
  legend?: boolean
  /** the initial view; the United States otherwise */
  initialView?: { lat: number; lng: number; zoom: number }
  /** fly to this view (1500 ms) each time a new object is given, e.g. Nova's later tiles fetches (zoom 5) */
  flyTo?: { lat: number; lng: number; zoom: number }
  /** a click on the map where there is no point, cluster or region (clears a selection) */
  onEmptyClick?(): void
  /** called once the map's style and basemap are loaded */
  onLoad?(): void
  /** accessible name of the map region */
  ariaLabel?: string
}

/** Defaults of spec 2 §4 and spec 3 §9. */
export const MAP_DEFAULTS = {
  center: { lat: 39.8283, lng: -98.5795 },
  zoom: 3.5,
  clusterRadius: 50,
  /** clusters break up above this zoom */
  clusterMaxZoom: 14,
  flyToZoom: 14,
  /** Nova: the fly-to of a later tiles fetch */
  tilesFlyToZoom: 5,
  flyToDurationMs: 1500,
  fitPadding: 50,
  circleSteps: 64,
  height: 480,
  pointColor: '#f08c00',
  choroplethSourceLayer: 'choropleth',
} as const
