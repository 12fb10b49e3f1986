import { act, renderHook } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { featureCenter, NOVA_MAP, useTilesFlyTo, type MapFeature } from './nova-map'

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
