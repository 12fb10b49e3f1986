import { GEO_COUNTY_MIN_ZOOM, GEO_TILE_LAYERS, GEO_TILE_MAX_ZOOM } from '@citrus/contracts'
import type { RequestParameters, ResourceType, StyleSpecification } from 'maplibre-gl'

/**
 * The offline basemap: the state and county outlines of the platform's own boundaries, served as vector
 * tiles by GET /api/geo/tiles/{z}/{x}/{y}.mvt. No glyphs, sprites or other hosts: nothing leaves the origin.
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
} as const

/** The MapLibre style of the offline basemap; `apiBaseUrl` is absolute (e.g. https://host/api). */
export function offlineStyle(apiBaseUrl: string): StyleSpecification {
  return {
    version: 8,
    name: 'Citrus boundaries',
    sources: {
      [BASEMAP_SOURCE]: {
        type: 'vector',
        tiles: [`${apiBaseUrl}/geo/tiles/{z}/{x}/{y}.mvt`],
        minzoom: 0,
        maxzoom: GEO_TILE_MAX_ZOOM,
        attribution: BASEMAP_ATTRIBUTION,
      },
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
    ],
  }
}

/** Credentials for requests to our API: the login token as a header, else the shareable token as ?token=. */
export interface MapCredentials {
  loginToken: string | null
  shareableToken: string | null
}

/**
 * MapLibre's transformRequest: requests to our API carry the caller's credentials (as the API client does);
 * any other URL (a hosted MAP_STYLE_URL style) is left alone.
 */
export function authorizeMapRequest(
  url: string,
  apiBaseUrl: string,
  credentials: MapCredentials,
  _resourceType?: ResourceType,
): RequestParameters {
  if (!url.startsWith(`${apiBaseUrl}/`)) return { url }
  if (credentials.loginToken) return { url, headers: { Authorization: `Bearer ${credentials.loginToken}` } }
  if (credentials.shareableToken) {
    const target = new URL(url)
    if (!target.searchParams.has('token')) target.searchParams.set('token', credentials.shareableToken)
    return { url: target.href }
  }
  return { url }
}
