import { fireEvent, screen, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { renderWithRouter } from '../../../test/render'
import { atlasMetric, atlasResultsPath, genericAnswer, mockAtlasResults, regionInsight } from '../test/atlas-fixtures'
import { AtlasGenericResultsRoute } from './atlas-generic-results'

const texas = regionInsight({
  id: 'TX',
  name: 'Texas',
  metrics: [
    {
      type: 'PRIMARY',
      metrics: [
        atlasMetric('patient_count', 'Total Patients', 1200),
        atlasMetric('prevalence_per_100k', 'Prevalence', 4.5, 'RATIO', 'FLOAT'),
      ],
    },
  ],
})

describe('/atlas/generic/results Region Analysis drawer', { timeout: 30_000 }, () => {
  it('names the searched conditions, not arthritis, and labels its fixed rates as assumed (issue 33)', async () => {
    mockAtlasResults(genericAnswer({ codes: ['E11', 'E10'] }), [texas])
    renderWithRouter(<AtlasGenericResultsRoute />, { path: atlasResultsPath(['E11', 'E10']) })
    const card = (await screen.findByText('Texas', undefined, { timeout: 10_000 })).closest('[data-insight]') as HTMLElement
    fireEvent.click(within(card).getByRole('button', { name: 'Region Analysis' }))
    const cases = await screen.findByTestId('region-cases')
    expect(cases.textContent).toBe('Cases (E11, E10): 1,200')
    expect(document.body.textContent).not.toMatch(/arthritis/i)
    const estimates = screen.getByTestId('region-estimates').textContent ?? ''
    expect(estimates).toContain('Illustrative estimates')
    expect(estimates).toContain('Fixed rates, the same for every condition; not measured for the searched conditions.')
    expect(estimates).toContain('Trial potential: 24 eligible (assumed 2% of cases)')
    expect(estimates).toContain('Moderate to severe: 360 (assumed 30%)')
    expect(estimates).toContain('Average diagnosis delay: 2.5 years (assumed)')
  })
})
