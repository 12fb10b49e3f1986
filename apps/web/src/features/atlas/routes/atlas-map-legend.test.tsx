import { screen } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { renderWithRouter } from '../../../test/render'
import type * as MapSlot from '../components/atlas-map-slot'
import type { AtlasMapProps } from '../components/atlas-map-slot'
import { atlasResultsPath, genericAnswer, mockAtlasResults } from '../test/atlas-fixtures'
import { AtlasGenericResultsRoute } from './atlas-generic-results'

// the map itself needs WebGL; what matters here is the legend title the page hands it
vi.mock('../components/atlas-map-slot', async (importOriginal) => ({
  ...(await importOriginal<typeof MapSlot>()),
  AtlasMapSlot: ({ choropleth }: AtlasMapProps) => <div data-testid="legend-title">{choropleth?.title ?? choropleth?.property}</div>,
}))

const generic = genericAnswer({
  codes: ['E11'],
  totalPatients: 1200,
  regionCount: 1,
  maxValue: 1200,
  items: [{ color: '#eee', opacity: 0.7, label: '0 - 1,200', min_value: 0, max_value: 1200 }],
})

describe('Atlas map legend (issue 33 item 11)', { timeout: 30_000 }, () => {
  it("is titled with the answer's metric, not the raw property name 'value'", async () => {
    mockAtlasResults(generic, [])
    renderWithRouter(<AtlasGenericResultsRoute />, { path: atlasResultsPath(['E11']) })
    expect((await screen.findByTestId('legend-title', undefined, { timeout: 10_000 })).textContent).toBe('Patients')
  })
})
