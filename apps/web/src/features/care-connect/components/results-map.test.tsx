import { act, waitFor } from '@testing-library/react'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { setAnalyticsTransport, type AnalyticsEvent } from '../../../lib/analytics'
import { mockApi } from '../../../test/mock-api'
import { renderWithRouter } from '../../../test/render'
import type { HcoRow, HcpRow } from '../api/care-api'
import { RESULTS_MAP, ResultsMap, resultsMapPoints } from './results-map'

const provider = (npi: string, latitude: number, longitude: number) =>
  ({ hcp_entity: { npi, full_name: `Dr ${npi}`, latitude, longitude } }) as unknown as HcpRow
const facility = (hco_npi: string | null, latitude: number, longitude: number) =>
  ({ hco_npi, hco_id: 7, hco_name: 'General Hospital', latitude, longitude }) as unknown as HcoRow

describe('Care Connect map points (spec 3 §5)', () => {
  it('keeps valid providers and facilities, drops invalid coordinates with a warning', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const points = resultsMapPoints(
      [provider('1111111111', 41.88, -87.63), provider('2222222222', 95, -87)],
      [facility(null, 41.9, -87.6), facility('3333333333', 41, 200)],
    )
    expect(points.map((p) => p.id)).toEqual(['1111111111', 'hco-7'])
    expect(warn).toHaveBeenCalledWith('Invalid coordinates for provider 2222222222')
    expect(warn).toHaveBeenCalledWith('Invalid coordinates for facility General Hospital')
    warn.mockRestore()
  })

  it('uses the spec defaults: fly-to zoom 14, cluster radius 50, fit padding 50', () => {
    expect(RESULTS_MAP).toEqual({ flyToZoom: 14, clusterRadius: 50, fitPadding: 50 })
  })
})

const fake = vi.hoisted(() => {
  type Listener = (event: unknown) => void
  class FakeMap {
    static instances: FakeMap[] = []
    listeners: Array<{ type: string; layer?: string; listener: Listener }> = []
    layers = new Map<string, unknown>()
    sources = new Map<string, Record<string, unknown>>()
    data = new Map<string, unknown>()
    flyTo = vi.fn()
    fitBounds = vi.fn()
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
    addSource(id: string, source: Record<string, unknown>) {
      this.sources.set(id, source)
    }
    getSource(id: string) {
      if (!this.sources.has(id)) return undefined
      return {
        setData: (data: unknown) => {
          this.data.set(id, data)
          return Promise.resolve()
        },
      }
    }
    removeSource(id: string) {
      this.sources.delete(id)
    }
    addLayer(layer: { id: string }) {
      this.layers.set(layer.id, layer)
    }
    getLayer(id: string) {
      return this.layers.get(id)
    }
    removeLayer(id: string) {
      this.layers.delete(id)
    }
    setPaintProperty() {}
    setFilter() {}
    queryRenderedFeatures() {
      return []
    }
    getCanvas() {
      return { style: {} as Record<string, string> }
    }
    remove() {}
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
  return { FakeMap, FakePopup }
})

vi.mock('maplibre-gl', () => ({ Map: fake.FakeMap, Popup: fake.FakePopup, NavigationControl: class {}, setWorkerUrl: vi.fn() }))

describe('ResultsMap', () => {
  beforeAll(() => import('../../../components/map/citrus-map'), 60_000)

  it('draws clustered points and the radius circle, fits them, flies to the selected provider at zoom 14', async () => {
    mockApi({ 'GET /version': { version: '2.3.0', database_mode: 'embedded', map_style_url: null } })
    const onSelect = vi.fn()
    renderWithRouter(
      <ResultsMap
        providers={[provider('1111111111', 41.88, -87.63), provider('2222222222', 41.95, -87.7)]}
        facilities={[]}
        center={{ lat: 41.9, lng: -87.65 }}
        radiusMiles={30}
        selectedNpi="2222222222"
        onSelect={onSelect}
      />,
    )
    await waitFor(() => expect(fake.FakeMap.instances.length).toBeGreaterThan(0), { timeout: 15_000 })
    const map = fake.FakeMap.instances.at(-1)!
    act(() => map.fire('load'))
    await waitFor(() => expect(map.flyTo).toHaveBeenCalledWith({ center: [-87.7, 41.95], zoom: 14, duration: 1500 }))
    await waitFor(() => expect(map.fitBounds).toHaveBeenCalledWith(expect.anything(), expect.objectContaining({ padding: 50 })))
    expect(map.sources.get('citrus-points')).toMatchObject({ cluster: true, clusterRadius: 50 })
    await waitFor(() => expect(map.data.get('citrus-radius')).toBeDefined())
    const circle = map.data.get('citrus-radius') as GeoJSON.FeatureCollection | GeoJSON.Feature
    const ring = ('features' in circle ? circle.features[0]! : circle).geometry as GeoJSON.Polygon
    // 30 miles north of the centre: 30 × 1.60934 km ≈ 0.4342° of latitude
    const north = Math.max(...ring.coordinates[0]!.map(([, lat]) => lat!))
    expect(north - 41.9).toBeCloseTo((30 * 1.60934) / 111.195, 2)
    const points = map.data.get('citrus-points') as GeoJSON.FeatureCollection
    expect(points.features.map((f) => f.properties?.id)).toEqual(['1111111111', '2222222222'])

    // a marker click selects the provider and records provider_map_marker_clicked with its npi (spec 3 §7)
    const events: AnalyticsEvent[] = []
    const restore = setAnalyticsTransport(async (batch) => void events.push(...batch))
    try {
      act(() => map.fire('click', 'citrus-points', { features: [{ properties: { id: '1111111111' } }] }))
      expect(onSelect).toHaveBeenCalledWith('1111111111')
      expect(events).toEqual([{ name: 'provider_map_marker_clicked', properties: { npi: '1111111111' } }])
    } finally {
      restore()
    }
  })
})
