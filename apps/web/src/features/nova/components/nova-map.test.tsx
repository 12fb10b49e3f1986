import { act, renderHook, screen, waitFor } from '@testing-library/react'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { mockApi } from '../../../test/mock-api'
import { renderWithRouter } from '../../../test/render'
import { featureCenter, NOVA_MAP, NovaMap, useTilesFlyTo, type MapFeature } from './nova-map'

const square: MapFeature = {
  type: 'Feature',
  geometry: {
    type: 'Polygon',
    coordinates: [
      [
        [-100, 30],
        [-90, 30],
        [-90, 40],
        [-100, 40],
        [-100, 30],
      ],
    ],
  },
  properties: { id: 'TX' },
}
const point: MapFeature = { type: 'Feature', geometry: { type: 'Point', coordinates: [-87.5, 41.25] }, properties: {} }

describe('Nova map rules (spec 2 §4)', () => {
  it('zooms: a facility at 10, a later tiles fetch at 5', () => {
    expect(NOVA_MAP).toEqual({ facilityZoom: 10, tilesZoom: 5 })
  })

  it('centres a feature on its extent, a point on itself, and skips what has no usable coordinates', () => {
    expect(featureCenter(square)).toEqual({ lat: 35, lng: -95 })
    expect(featureCenter(point)).toEqual({ lat: 41.25, lng: -87.5 })
    expect(featureCenter({ geometry: null })).toBeNull()
    expect(featureCenter(undefined)).toBeNull()
    expect(featureCenter({ geometry: { type: 'Point', coordinates: [500, 100] } })).toBeNull()
  })

  it('the first tiles fetch does not move the map; each later one flies to the first feature at zoom 5', () => {
    const { result, rerender } = renderHook(({ at, first }: { at: number; first: MapFeature | undefined }) => useTilesFlyTo(at, first), {
      initialProps: { at: 1000, first: square },
    })
    expect(result.current).toBeUndefined()
    act(() => rerender({ at: 1000, first: square }))
    expect(result.current).toBeUndefined()
    act(() => rerender({ at: 2000, first: point }))
    expect(result.current).toEqual({ lat: 41.25, lng: -87.5, zoom: 5 })
    const previous = result.current
    act(() => rerender({ at: 2000, first: point }))
    expect(result.current).toBe(previous)
    act(() => rerender({ at: 3000, first: square }))
    expect(result.current).toEqual({ lat: 35, lng: -95, zoom: 5 })
  })
})

const fake = vi.hoisted(() => {
  type Listener = (event: unknown) => void
  class FakeMap {
    static instances: FakeMap[] = []
    listeners: Array<{ type: string; layer?: string; listener: Listener }> = []
    layers = new Map<string, unknown>()
    flyTo = vi.fn()
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
    addSource() {}
    getSource() {
      return { setData: () => Promise.resolve() }
    }
    removeSource() {}
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

describe('NovaMap', () => {
  beforeAll(() => import('../../../components/map/citrus-map'), 60_000)

  it("flies to the selected facility at zoom 10, shows 'Viewing Region {id}' on a region click, clears it on empty map", async () => {
    mockApi({ 'GET /version': { version: '2.3.0', database_mode: 'embedded', map_style_url: null } })
    renderWithRouter(
      <NovaMap
        points={[{ id: '1234567890', lat: 32.7767, lng: -96.797, label: 'Dallas General' }]}
        selectedId="1234567890"
        choropleth={{ data: { type: 'FeatureCollection', features: [] }, property: 'value', stops: [{ value: 0, color: '#eee' }] }}
      />,
    )
    await waitFor(() => expect(fake.FakeMap.instances.length).toBeGreaterThan(0), { timeout: 15_000 })
    const map = fake.FakeMap.instances.at(-1)!
    act(() => map.fire('load'))
    await waitFor(() => expect(map.flyTo).toHaveBeenCalledWith({ center: [-96.797, 32.7767], zoom: 10, duration: 1500 }))
    expect(screen.queryByTestId('map-legend')).toBeNull()

    act(() =>
      map.fire('click', 'citrus-choropleth-fill', { point: { x: 1, y: 1 }, features: [{ properties: { id: 'TX', label: 'Texas' } }] }),
    )
    expect(screen.getByTestId('nova-map-region').textContent).toBe('Viewing Region TX')
    act(() => map.fire('click', undefined, { point: { x: 5, y: 5 } }))
    expect(screen.queryByTestId('nova-map-region')).toBeNull()
  })
})
