import { act, screen, waitFor } from '@testing-library/react'
import { Suspense, useState } from 'react'
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { mockApi } from '../../test/mock-api'
import { renderWithRouter } from '../../test/render'
import { CitrusMap, MAP_DEFAULTS, type CitrusMapProps } from './index'

/**
 * The wiring of CitrusMap to MapLibre, with maplibre-gl replaced by a recording fake (jsdom has no WebGL;
 * the real rendering is covered by e2e/map.e2e.test.ts).
 */
const fake = vi.hoisted(() => {
  type Listener = (event: unknown) => void
  class FakeSource {
    data: unknown
    constructor(readonly spec: Record<string, unknown>) {
      this.data = spec.data
    }
    setData(data: unknown) {
      this.data = data
      return Promise.resolve()
    }
    getClusterExpansionZoom() {
      return Promise.resolve(8)
    }
  }
  class FakeMap {
    static instances: FakeMap[] = []
    sources = new Map<string, FakeSource>()
    layers = new Map<string, Record<string, unknown>>()
    paint = new Map<string, unknown>()
    listeners: Array<{ type: string; layer?: string; listener: Listener }> = []
    flyTo = vi.fn()
    fitBounds = vi.fn()
    easeTo = vi.fn()
    removed = false
    constructor(readonly options: Record<string, unknown>) {
      FakeMap.instances.push(this)
    }
    addControl() {
      return this
    }
    on(type: string, layerOrListener: string | Listener, maybe?: Listener) {
      if (typeof layerOrListener === 'string') this.listeners.push({ type, layer: layerOrListener, listener: maybe! })
      else this.listeners.push({ type, listener: layerOrListener })
      return this
    }
    fire(type: string, layer?: string, event: unknown = {}) {
      for (const entry of this.listeners) if (entry.type === type && entry.layer === layer) entry.listener(event)
    }
    addSource(id: string, spec: Record<string, unknown>) {
      this.sources.set(id, new FakeSource(spec))
    }
    getSource(id: string) {
      return this.sources.get(id)
    }
    removeSource(id: string) {
      this.sources.delete(id)
    }
    addLayer(layer: Record<string, unknown>) {
      this.layers.set(layer.id as string, layer)
    }
    getLayer(id: string) {
      return this.layers.get(id)
    }
    removeLayer(id: string) {
      this.layers.delete(id)
    }
    setPaintProperty(layer: string, name: string, value: unknown) {
      this.paint.set(`${layer}.${name}`, value)
    }
    queryRenderedFeatures() {
      return []
    }
    getCanvas() {
      return { style: {} as Record<string, string> }
    }
    remove() {
      this.removed = true
    }
  }
  class FakePopup {
    setLngLat() {
      return this
    }
    setText() {
      return this
    }
    addTo() {
      return this
    }
    remove() {
      return this
    }
  }
  return { FakeMap, FakePopup, setWorkerUrl: vi.fn() }
})

vi.mock('maplibre-gl', () => ({
  Map: fake.FakeMap,
  Popup: fake.FakePopup,
  NavigationControl: class {},
  setWorkerUrl: fake.setWorkerUrl,
}))

const VERSION = { version: '2.3.0', database_mode: 'embedded', map_style_url: null }

async function renderMap(props: CitrusMapProps, version: unknown = VERSION) {
  mockApi({ 'GET /version': version })
  const view = renderWithRouter(
    <Suspense fallback={<div>loading map</div>}>
      <CitrusMap {...props} />
    </Suspense>,
  )
  // the first render loads the lazy module
  await waitFor(() => expect(fake.FakeMap.instances.length).toBeGreaterThan(0), { timeout: 15_000 })
  const map = fake.FakeMap.instances.at(-1)!
  act(() => map.fire('load'))
  await screen.findByTestId('citrus-map')
  await waitFor(() => expect(screen.getByTestId('citrus-map').dataset.mapReady).toBe('true'))
  return { map, view }
}

const points = [
  { id: 'a', lat: 40.7128, lng: -74.006, label: 'New York' },
  { id: 'b', lat: 41.8781, lng: -87.6298, label: 'Chicago', color: '#123456', group: 'hospital' },
  { id: 'bad', lat: 123, lng: -87, label: 'Nowhere' },
]

describe('CitrusMap', () => {
  // the lazy module (with turf) takes a while to transform on a busy machine: load it once, up front
  beforeAll(() => import('./citrus-map'), 60_000)

  afterEach(() => {
    fake.FakeMap.instances = []
    vi.restoreAllMocks()
  })

  it('starts on the offline basemap over the United States, from our own tiles', async () => {
    const { map } = await renderMap({})
    expect(fake.setWorkerUrl).toHaveBeenCalledWith(expect.stringMatching(/maplibre-gl-worker/))
    expect(map.options.center).toEqual([MAP_DEFAULTS.center.lng, MAP_DEFAULTS.center.lat])
    expect(map.options.zoom).toBe(3.5)
    const style = map.options.style as {
      sources: Record<string, { tiles?: string[]; data?: string }>
      glyphs?: string
      'font-faces': Record<string, { url: string }[]>
      layers: { id: string; type: string; layout?: Record<string, unknown> }[]
    }
    expect(style.glyphs).toBeUndefined()
    const origin = window.location.origin
    expect(Object.values(style.sources).flatMap((source) => source.tiles ?? [source.data])).toEqual([
      `${origin}/api/geo/tiles/{z}/{x}/{y}.mvt`,
      `${origin}/api/geo/places`,
    ])
    // place labels drawn from the app's own font files (same origin), not from a glyphs server
    const labels = style.layers.filter((layer) => layer.type === 'symbol')
    expect(labels.map((layer) => layer.id)).toEqual(['place-state-label', 'place-city-label'])
    for (const layer of labels) {
      const [font] = layer.layout!['text-font'] as string[]
      const files = style['font-faces'][font!]!
      expect(files.length).toBe(1)
      expect(files[0]!.url.startsWith(`${origin}/`), files[0]!.url).toBe(true)
      expect(files[0]!.url).toMatch(/manrope-latin-\d00-normal.*\.woff2$/)
    }
  })

  it('fits the points and the whole radius circle, and names the radius in miles', async () => {
    const { map } = await renderMap({
      points: points.slice(0, 1),
      fitToPoints: true,
      radiusCircle: { lat: 40.7128, lng: -74.006, radiusMiles: 25 },
    })
    await waitFor(() => expect(map.fitBounds).toHaveBeenCalled())
    const [[west, south], [east, north]] = map.fitBounds.mock.lastCall![0] as [[number, number], [number, number]]
    // 25 miles is about 0.36 degrees of latitude: the view reaches past the lone point to the circle's edge
    expect(north - 40.7128).toBeCloseTo(25 / 69.1, 2)
    expect(40.7128 - south).toBeCloseTo(25 / 69.1, 2)
    expect(east - west).toBeGreaterThan(0.9)
    expect(map.fitBounds.mock.lastCall![1]).toMatchObject({ padding: 50 })
    expect(screen.getByTestId('map-radius').textContent).toBe('Search radius: 25 mi')
    expect(JSON.parse(screen.getByTestId('citrus-map').dataset.radiusBounds!)).toEqual([
      [west, south],
      [east, north],
    ])
  })

  it('uses MAP_STYLE_URL from /version when the server has one', async () => {
    const { map } = await renderMap({}, { ...VERSION, map_style_url: 'https://maps.example.com/style.json' })
    expect(map.options.style).toBe('https://maps.example.com/style.json')
  })

  it('drops invalid points with a warning, clusters with radius 50 and fits them with padding 50', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const { map } = await renderMap({ points, cluster: true, fitToPoints: true })
    const source = map.getSource('citrus-points')!
    expect(source.spec).toMatchObject({ type: 'geojson', cluster: true, clusterRadius: 50 })
    await waitFor(() => expect((source.data as GeoJSON.FeatureCollection).features.length).toBe(2))
    expect((source.data as GeoJSON.FeatureCollection).features.map((f) => f.properties?.id)).toEqual(['a', 'b'])
    expect(warn).toHaveBeenCalledWith('Map: point bad dropped, invalid coordinates (lat 123, lng -87)')
    expect(map.fitBounds).toHaveBeenCalledWith(
      [
        [-87.6298, 40.7128],
        [-74.006, 41.8781],
      ],
      expect.objectContaining({ padding: 50 }),
    )
  })

  it('flies to the selected point at zoom 14 in 1500 ms and reports point clicks by id', async () => {
    const onPointClick = vi.fn()
    const { map } = await renderMap({ points: points.slice(0, 2), selectedId: 'b', onPointClick })
    await waitFor(() => expect(map.flyTo).toHaveBeenCalledWith({ center: [-87.6298, 41.8781], zoom: 14, duration: 1500 }))
    act(() => map.fire('click', 'citrus-points', { features: [{ properties: { id: 'a' } }] }))
    expect(onPointClick).toHaveBeenCalledWith('a')
  })

  it('takes another fly-to zoom and cluster max zoom (Nova facilities: 10; Atlas regions: 7)', async () => {
    const { map } = await renderMap({ points: points.slice(0, 2), selectedId: 'a', flyToZoom: 10, cluster: true, clusterMaxZoom: 7 })
    expect(map.getSource('citrus-points')!.spec).toMatchObject({ cluster: true, clusterRadius: 50, clusterMaxZoom: 7 })
    await waitFor(() => expect(map.flyTo).toHaveBeenCalledWith({ center: [-74.006, 40.7128], zoom: 10, duration: 1500 }))
  })

  it('flies to a given view each time a new one is given, and reports clicks on empty map', async () => {
    const onEmptyClick = vi.fn()
    mockApi({ 'GET /version': VERSION })
    function Harness() {
      const [target, setTarget] = useState({ lat: 35, lng: -97, zoom: 5 })
      return (
        <>
          <button onClick={() => setTarget({ lat: 30, lng: -90, zoom: 5 })}>next</button>
          <Suspense fallback={null}>
            <CitrusMap flyTo={target} onEmptyClick={onEmptyClick} />
          </Suspense>
        </>
      )
    }
    renderWithRouter(<Harness />)
    await waitFor(() => expect(fake.FakeMap.instances.length).toBeGreaterThan(0), { timeout: 15_000 })
    const map = fake.FakeMap.instances.at(-1)!
    act(() => map.fire('load'))
    await waitFor(() => expect(map.flyTo).toHaveBeenCalledWith({ center: [-97, 35], zoom: 5, duration: 1500 }))
    act(() => screen.getByText('next').click())
    await waitFor(() => expect(map.flyTo).toHaveBeenCalledWith({ center: [-90, 30], zoom: 5, duration: 1500 }))
    act(() => map.fire('click', undefined, { point: { x: 1, y: 1 } }))
    expect(onEmptyClick).toHaveBeenCalledTimes(1)
  })

  it('draws the radius circle in miles and a choropleth with its legend; region clicks report properties', async () => {
    const onFeatureClick = vi.fn()
    const data: GeoJSON.FeatureCollection = { type: 'FeatureCollection', features: [] }
    const { map } = await renderMap({
      radiusCircle: { lat: 39.8283, lng: -98.5795, radiusMiles: 10 },
      choropleth: {
        data,
        property: 'patients',
        title: 'Patients',
        stops: [
          { value: 0, color: '#eee' },
          { value: 50, color: '#c00' },
        ],
      },
      onFeatureClick,
    })
    const circle = map.getSource('citrus-radius')!.data as GeoJSON.FeatureCollection<GeoJSON.Polygon>
    await waitFor(() =>
      expect(circle.features?.length ?? (map.getSource('citrus-radius')!.data as GeoJSON.FeatureCollection).features.length).toBe(1),
    )
    const drawn = map.getSource('citrus-radius')!.data as GeoJSON.FeatureCollection<GeoJSON.Polygon>
    expect(drawn.features[0]!.geometry.coordinates[0]!.length).toBe(65)
    expect(map.getSource('citrus-choropleth')!.spec).toEqual({ type: 'geojson', data })
    expect(map.getLayer('citrus-choropleth-fill')).toMatchObject({ type: 'fill', source: 'citrus-choropleth' })
    expect(screen.getByTestId('map-legend').textContent).toContain('Patients')
    expect(screen.getByText('< 50')).toBeTruthy()
    expect(screen.getByText('≥ 50')).toBeTruthy()
    act(() =>
      map.fire('click', 'citrus-choropleth-fill', { point: { x: 1, y: 1 }, features: [{ properties: { fips: '20', name: 'Kansas' } }] }),
    )
    expect(onFeatureClick).toHaveBeenCalledWith({ fips: '20', name: 'Kansas' })
  })

  it('vector-tile choropleths read the given layer of the tiles URL', async () => {
    const { map } = await renderMap({
      choropleth: {
        tilesUrl: '/api/atlas/tiles/{z}/{x}/{y}.mvt?x=1',
        sourceLayer: 'counties',
        property: 'patients',
        stops: [{ value: 0, color: '#eee' }],
      },
    })
    expect(map.getSource('citrus-choropleth')!.spec).toEqual({
      type: 'vector',
      tiles: [`${window.location.origin}/api/atlas/tiles/{z}/{x}/{y}.mvt?x=1`],
    })
    expect(map.getLayer('citrus-choropleth-fill')).toMatchObject({ 'source-layer': 'counties' })
  })
})
