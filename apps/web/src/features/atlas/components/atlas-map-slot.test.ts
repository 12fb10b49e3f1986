import { describe, expect, it } from 'vitest'
import { atlasChoropleth, atlasMapPoints } from './atlas-map-slot'

const stops = [{ value: 0, color: '#eee' }]

describe('Atlas map slot', () => {
  it('colours the Atlas tile layer of a tiles choropleth and keeps GeoJSON as it is', () => {
    expect(atlasChoropleth({ tilesUrl: '/api/atlas/tiles/{z}/{x}/{y}.mvt', property: 'value', stops, title: 'Patients' })).toEqual({
      tilesUrl: '/api/atlas/tiles/{z}/{x}/{y}.mvt',
      property: 'value',
      stops,
      title: 'Patients',
      sourceLayer: 'regions',
    })
    const data = { type: 'FeatureCollection' as const, features: [] }
    // the legend's title travels to the map (the map would title it with the property name, 'value', otherwise)
    expect(atlasChoropleth({ data, property: 'value', stops, title: 'Patients' })).toEqual({
      data,
      property: 'value',
      stops,
      title: 'Patients',
    })
    expect(atlasChoropleth(undefined)).toBeUndefined()
  })

  it('turns point features into markers and skips other geometries', () => {
    expect(
      atlasMapPoints({
        type: 'FeatureCollection',
        features: [
          { type: 'Feature', geometry: { type: 'Point', coordinates: [-96.8, 32.78] }, properties: { id: '123', label: 'Dallas General' } },
          { type: 'Feature', geometry: { type: 'Polygon', coordinates: [] }, properties: { id: 'TX' } },
        ],
      }),
    ).toEqual([{ id: '123', lat: 32.78, lng: -96.8, label: 'Dallas General' }])
    expect(atlasMapPoints(undefined)).toBeUndefined()
  })
})
