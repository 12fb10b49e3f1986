import { afterEach, describe, expect, it, vi } from 'vitest'
import { absoluteUrl, authorizeRequest } from '../../lib/api-client'
import { BASEMAP_SOURCE, LABEL_FONTS, offlineStyle, PLACE_LABEL_LAYERS, PLACES_SOURCE } from './basemap'
import {
  choroplethColorExpression,
  colorForValue,
  formatRadiusMiles,
  isValidCoordinate,
  legendItems,
  NO_DATA_COLOR,
  pointsBounds,
  pointsCollection,
  radiusCirclePolygon,
  validPoints,
} from './map-utils'
import { MAP_DEFAULTS, type MapPoint } from './types'

// the first test pays for loading turf; on a busy machine that exceeds the default 5 s
vi.setConfig({ testTimeout: 30_000 })

const point = (id: string, lat: number, lng: number, extra: Partial<MapPoint> = {}): MapPoint => ({
  id,
  lat,
  lng,
  label: `P ${id}`,
  ...extra,
})

/** Great-circle distance in miles (haversine, mean Earth radius as turf uses). */
function miles(a: [number, number], b: [number, number]): number {
  const rad = Math.PI / 180
  const [lng1, lat1] = a
  const [lng2, lat2] = b
  const h =
    Math.sin(((lat2 - lat1) * rad) / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lng2 - lng1) * rad) / 2) ** 2
  return (2 * 6371008.8 * Math.asin(Math.sqrt(h))) / 1609.344
}

describe('map coordinates', () => {
  afterEach(() => vi.restoreAllMocks())

  it('accepts latitude -90..90 and longitude -180..180 inclusive, nothing else', () => {
    expect(isValidCoordinate(90, 180)).toBe(true)
    expect(isValidCoordinate(-90, -180)).toBe(true)
    expect(isValidCoordinate(0, 0)).toBe(true)
    expect(isValidCoordinate(90.0001, 0)).toBe(false)
    expect(isValidCoordinate(0, -180.0001)).toBe(false)
    expect(isValidCoordinate(Number.NaN, 0)).toBe(false)
    expect(isValidCoordinate(0, Number.POSITIVE_INFINITY)).toBe(false)
    expect(isValidCoordinate('40' as unknown as number, -98)).toBe(false)
    expect(isValidCoordinate(null, -98)).toBe(false)
  })

  it('drops invalid points with one console.warn each and keeps the order of the others', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const kept = validPoints([
      point('a', 40.7, -74),
      point('b', 91, -74),
      point('c', 34, -181),
      point('d', Number.NaN, 0),
      point('e', 41.9, -87.6),
    ])
    expect(kept.map((p) => p.id)).toEqual(['a', 'e'])
    expect(warn).toHaveBeenCalledTimes(3)
    expect(warn.mock.calls[0]![0]).toBe('Map: point b dropped, invalid coordinates (lat 91, lng -74)')
  })

  it('builds the points source with [lng, lat] coordinates and the default colour', () => {
    const collection = pointsCollection([point('a', 40.7, -74, { color: '#123456', group: 'hospital' }), point('b', 41.9, -87.6)])
    expect(collection.features[0]).toEqual({
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [-74, 40.7] },
      properties: { id: 'a', label: 'P a', color: '#123456', group: 'hospital' },
    })
    expect(collection.features[1]!.properties.color).toBe(MAP_DEFAULTS.pointColor)
    expect(collection.features[1]!.properties.group).toBe('')
  })

  it('bounds the points as [[west, south], [east, north]]', () => {
    expect(pointsBounds([])).toBeNull()
    expect(pointsBounds([point('a', 40.7, -74), point('b', 25.8, -80.2), point('c', 47.6, -122.3)])).toEqual([
      [-122.3, 25.8],
      [-74, 47.6],
    ])
  })
})

describe('radius circle', () => {
  afterEach(() => vi.restoreAllMocks())

  it('is a closed 64-step polygon whose vertices lie at the radius in miles from the centre', () => {
    const centre: [number, number] = [-98.5795, 39.8283]
    const polygon = radiusCirclePolygon({ lat: centre[1], lng: centre[0], radiusMiles: 25 })!
    expect(polygon.geometry.type).toBe('Polygon')
    const ring = polygon.geometry.coordinates[0]!
    expect(ring.length).toBe(MAP_DEFAULTS.circleSteps + 1)
    expect(ring[0]).toEqual(ring[ring.length - 1])
    for (const vertex of ring) expect(miles(centre, vertex as [number, number])).toBeCloseTo(25, 1)
  })

  it('is not drawn for an invalid centre or radius (with a warning)', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    expect(radiusCirclePolygon({ lat: 100, lng: 0, radiusMiles: 5 })).toBeNull()
    expect(radiusCirclePolygon({ lat: 40, lng: -98, radiusMiles: 0 })).toBeNull()
    expect(radiusCirclePolygon({ lat: 40, lng: -98, radiusMiles: Number.NaN })).toBeNull()
    expect(warn).toHaveBeenCalledTimes(3)
  })
})

describe('choropleth stops and legend', () => {
  const stops = [
    { value: 100, color: '#c00' },
    { value: 0, color: '#fee' },
    { value: 10, color: '#f88' },
  ]

  it('colours a value with the last stop it reaches, the first colour below all stops', () => {
    expect(colorForValue(-5, stops)).toBe('#fee')
    expect(colorForValue(0, stops)).toBe('#fee')
    expect(colorForValue(9.99, stops)).toBe('#fee')
    expect(colorForValue(10, stops)).toBe('#f88')
    expect(colorForValue(99, stops)).toBe('#f88')
    expect(colorForValue(100, stops)).toBe('#c00')
    expect(colorForValue(1e9, stops)).toBe('#c00')
    expect(colorForValue(5, [])).toBeNull()
  })

  it('the MapLibre expression is a step over the sorted stops; non-numbers are transparent', () => {
    expect(choroplethColorExpression('patients', stops)).toEqual([
      'case',
      ['==', ['typeof', ['get', 'patients']], 'number'],
      ['step', ['to-number', ['get', 'patients'], 0], '#fee', 10, '#f88', 100, '#c00'],
      NO_DATA_COLOR,
    ])
    expect(choroplethColorExpression('patients', [])).toBe(NO_DATA_COLOR)
  })

  it('the legend reads the bands in ascending order', () => {
    expect(legendItems(stops)).toEqual([
      { color: '#fee', label: '< 10' },
      { color: '#f88', label: '10 – 100' },
      { color: '#c00', label: '≥ 100' },
    ])
    expect(legendItems([{ value: 2500.5, color: '#000' }])).toEqual([{ color: '#000', label: '≥ 2,500.5' }])
    expect(legendItems([{ value: Number.NaN, color: '#000' }])).toEqual([])
  })
})

describe('offline basemap', () => {
  it('has only same-origin sources and no glyphs or sprite', () => {
    const style = offlineStyle('https://citrus.example.com/api')
    expect(style.glyphs).toBeUndefined()
    expect(style.sprite).toBeUndefined()
    expect(Object.keys(style.sources)).toEqual([BASEMAP_SOURCE])
    expect(style.sources[BASEMAP_SOURCE]).toMatchObject({
      type: 'vector',
      tiles: ['https://citrus.example.com/api/geo/tiles/{z}/{x}/{y}.mvt'],
    })
    expect(style.layers.some((layer) => layer.type === 'symbol')).toBe(false)
  })

  it('with label fonts: state and city labels from /geo/places, drawn from those font files', () => {
    const fonts = { regular: 'https://citrus.example.com/assets/r.woff2', bold: 'https://citrus.example.com/assets/b.woff2' }
    const style = offlineStyle('https://citrus.example.com/api', fonts)
    expect(style.glyphs).toBeUndefined()
    expect(style.sources[PLACES_SOURCE]).toEqual({ type: 'geojson', data: 'https://citrus.example.com/api/geo/places' })
    expect(style['font-faces']).toEqual({ [LABEL_FONTS.regular]: [{ url: fonts.regular }], [LABEL_FONTS.bold]: [{ url: fonts.bold }] })
    const labels = style.layers.filter((layer) => layer.type === 'symbol')
    expect(labels.map((layer) => layer.id)).toEqual([PLACE_LABEL_LAYERS.states, PLACE_LABEL_LAYERS.cities])
    // on top of the outlines, each kind from the zoom its data names, the most populous placed first
    expect(style.layers.slice(-2)).toEqual(labels)
    for (const layer of labels) {
      expect(JSON.stringify(layer.filter)).toContain('["zoom"],["get","min_zoom"]')
      expect((layer.layout as Record<string, unknown>)['symbol-sort-key']).toEqual(['get', 'rank'])
    }
  })

  it('formats the radius in miles with at most one decimal', () => {
    expect(formatRadiusMiles(25.000001)).toBe('25 mi')
    expect(formatRadiusMiles(2.54)).toBe('2.5 mi')
  })

  it('sends the login token as a header, else the shareable token as ?token=, only to our API', () => {
    const api = 'https://citrus.example.com/api'
    const tile = `${api}/geo/tiles/3/1/3.mvt`
    expect(authorizeRequest(tile, api, { loginToken: 'jwt', shareableToken: 'share' })).toEqual({
      url: tile,
      headers: { Authorization: 'Bearer jwt' },
    })
    expect(authorizeRequest(tile, api, { loginToken: null, shareableToken: 'sh are' })).toEqual({
      url: `${tile}?token=sh+are`,
    })
    expect(authorizeRequest(tile, api, { loginToken: null, shareableToken: null })).toEqual({ url: tile })
    const hosted = 'https://tiles.example.org/style.json'
    expect(authorizeRequest(hosted, api, { loginToken: 'jwt', shareableToken: null })).toEqual({ url: hosted })
  })

  it('makes origin-relative URLs absolute and keeps absolute ones', () => {
    expect(absoluteUrl('/api', 'http://localhost:3000')).toBe('http://localhost:3000/api')
    expect(absoluteUrl('https://x.example/api', 'http://localhost:3000')).toBe('https://x.example/api')
    expect(absoluteUrl('/api/atlas/tiles/{z}/{x}/{y}.mvt?q=1', 'http://localhost:3000/')).toBe(
      'http://localhost:3000/api/atlas/tiles/{z}/{x}/{y}.mvt?q=1',
    )
  })
})
