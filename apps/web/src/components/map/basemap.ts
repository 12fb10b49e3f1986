import { GEO_COUNTY_MIN_ZOOM, GEO_TILE_LAYERS, GEO_TILE_MAX_ZOOM, endpoints } from '@citrus/contracts'
import type { StyleSpecification } from 'maplibre-gl'
import { createEndpointUrl } from '../../lib/api-client'

/**
 * The offline basemap: the state and county outlines of the platform's own boundaries, served as vector
 * tiles by GET /api/geo/tiles/{z}/{x}/{y}.mvt, and state and city names from GET /api/geo/places. Labels are
 * drawn from the app's own font file (MapLibre's `font-faces`, rasterised in the browser), so there is no
 * glyphs URL, no sprite and no other host: nothing leaves the origin.
 */

export const BASEMAP_SOURCE = 'citrus-boundaries'
export const BASEMAP_ATTRIBUTION = 'Boundaries: U.S. Census Bureau'
/** The lowest outline layer: overlays (choropleths) go below it so that borders stay visible. */
export const BASEMAP_FIRST_LINE_LAYER = 'county-line'

export const BASEMAP_COLORS = {
  background: '#f4f6f8',
  land: '#ffffff',
  stateLine: '#7b8794',
  countyLine: '#d5dbe1',
  stateLabel: '#7b8794',
  cityLabel: '#3d4852',
  labelHalo: '#ffffff',
} as const

export const PLACES_SOURCE = 'citrus-places'
/** The label layers: state names, then city names (the top N by population per zoom, see /geo/places). */
export const PLACE_LABEL_LAYERS = { states: 'place-state-label', cities: 'place-city-label' } as const
/** The `text-font` names the labels are drawn with; `font-faces` maps them to the app's font files. */
export const LABEL_FONTS = { regular: 'Citrus Label', bold: 'Citrus Label Bold' } as const

/** Absolute URLs of the label fonts (woff2 files the client ships). */
export interface LabelFontUrls {
  regular: string
  bold: string
}

/**
 * The MapLibre style of the offline basemap; `apiBaseUrl` is absolute (e.g. https://host/api). Without
 * `fonts` the style has no labels (the boundaries alone).
 */
export function offlineStyle(apiBaseUrl: string, fonts?: LabelFontUrls): StyleSpecification {
  // no credentials in the style's URLs: the map adds those of the moment to each request (authorizeApiRequest)
  const urlOf = createEndpointUrl({ baseUrl: apiBaseUrl })
  const labels: StyleSpecification['layers'] = fonts
    ? [
        {
          id: PLACE_LABEL_LAYERS.states,
          type: 'symbol',
          source: PLACES_SOURCE,
          filter: ['all', ['==', ['get', 'kind'], 'state'], ['>=', ['zoom'], ['get', 'min_zoom']]],
          maxzoom: 8,
          layout: {
            'text-field': ['get', 'name'],
            'text-font': [LABEL_FONTS.bold],
            'text-size': ['interpolate', ['linear'], ['zoom'], 3, 10, 7, 15],
            'text-transform': 'uppercase',
            'text-letter-spacing': 0.08,
            'text-max-width': 7,
            'symbol-sort-key': ['get', 'rank'],
          },
          paint: { 'text-color': BASEMAP_COLORS.stateLabel, 'text-halo-color': BASEMAP_COLORS.labelHalo, 'text-halo-width': 1.2 },
        },
        {
          id: PLACE_LABEL_LAYERS.cities,
          type: 'symbol',
          source: PLACES_SOURCE,
          // integer zooms: the top N cities by population at each zoom (min_zoom comes with the data)
          filter: ['all', ['==', ['get', 'kind'], 'city'], ['>=', ['zoom'], ['get', 'min_zoom']]],
          layout: {
            'text-field': ['get', 'name'],
            'text-font': [LABEL_FONTS.regular],
            'text-size': ['interpolate', ['linear'], ['zoom'], 4, 10, 10, 14],
            'text-max-width': 8,
            'text-padding': 4,
            // the most populous first: a smaller town gives way where two labels would collide
            'symbol-sort-key': ['get', 'rank'],
          },
          paint: { 'text-color': BASEMAP_COLORS.cityLabel, 'text-halo-color': BASEMAP_COLORS.labelHalo, 'text-halo-width': 1.5 },
        },
      ]
    : []
  return {
    version: 8,
    name: 'Citrus boundaries',
    ...(fonts
      ? {
          'font-faces': {
            [LABEL_FONTS.regular]: [{ url: fonts.regular }],
            [LABEL_FONTS.bold]: [{ url: fonts.bold }],
          },
        }
      : {}),
    sources: {
      [BASEMAP_SOURCE]: {
        type: 'vector',
        tiles: [urlOf(endpoints.geo.tile)],
        minzoom: 0,
        maxzoom: GEO_TILE_MAX_ZOOM,
        attribution: BASEMAP_ATTRIBUTION,
      },
      ...(fonts ? { [PLACES_SOURCE]: { type: 'geojson' as const, data: urlOf(endpoints.geo.places) } } : {}),
    },
    layers: [
      { id: 'background', type: 'background', paint: { 'background-color': BASEMAP_COLORS.background } },
      {
        id: 'state-fill',
        type: 'fill',
        source: BASEMAP_SOURCE,
        'source-layer': GEO_TILE_LAYERS.states,
        paint: { 'fill-color': BASEMAP_COLORS.land },
      },
      {
        id: BASEMAP_FIRST_LINE_LAYER,
        type: 'line',
        source: BASEMAP_SOURCE,
        'source-layer': GEO_TILE_LAYERS.counties,
        minzoom: GEO_COUNTY_MIN_ZOOM + 1,
        paint: { 'line-color': BASEMAP_COLORS.countyLine, 'line-width': 0.5 },
      },
      {
        id: 'state-line',
        type: 'line',
        source: BASEMAP_SOURCE,
        'source-layer': GEO_TILE_LAYERS.states,
        paint: { 'line-color': BASEMAP_COLORS.stateLine, 'line-width': ['interpolate', ['linear'], ['zoom'], 3, 0.6, 8, 1.5] },
      },
      ...labels,
    ],
  }
}
