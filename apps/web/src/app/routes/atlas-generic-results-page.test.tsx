import { AI_HUB_MESSAGES, type AiContext, type AiPin } from '@citrus/contracts'
import { fireEvent, screen, within } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { AtlasGenericResultsRoute } from '../../features/atlas/routes/atlas-generic-results'
import { atlasMetric, atlasResultsPath, genericAnswer, mockAtlasResults, regionInsight } from '../../features/atlas/test/atlas-fixtures'
import { reply } from '../../test/mock-api'
import { renderWithRouter } from '../../test/render'
import { AtlasGenericResultsPage } from './atlas-generic-results-page'

const texas = regionInsight({
  id: 'TX',
  name: 'Texas',
  metrics: [
    {
      type: 'PRIMARY',
      metrics: [atlasMetric('patient_count', 'Total Patients', 70), atlasMetric('provider_count', 'Providers', 12)],
    },
  ],
})
const EMPTY: AiContext = { documents: [], pinnedInsights: [], totalTokens: 0, maxTokens: 32000 }
const PIN: AiPin = {
  id: '0b9f4c1e-7a53-4c1f-9a3e-2d1b5c6e7f80',
  type: 'state',
  entityKey: 'TX',
  source: 'ATLAS',
  data: { entity: { name: 'Texas', full_name: null }, display_name: 'Texas', metrics: { 'Total Patients': 70, Providers: 12 } },
  pinnedAt: '2026-11-25T12:00:00.000Z',
  order: 0,
  tokens: 100,
}
const PATH = atlasResultsPath(['I10'])

function setup() {
  let pins: AiPin[] = []
  return mockAtlasResults(genericAnswer({ codes: ['I10'] }), [texas], {
    'GET /ai-hub/pins': () => ({ pinnedInsights: pins }),
    'GET /ai-hub/context': () => ({ ...EMPTY, pinnedInsights: pins }),
    'GET /ai-hub/templates': { templates: [] },
    'POST /ai-hub/pins': () => {
      pins = [PIN]
      return reply(201, PIN)
    },
    [`DELETE /ai-hub/pins/${PIN.id}`]: () => {
      pins = []
      return reply(204, undefined)
    },
  })
}

describe('/atlas/generic/results composed with the AI Hub', () => {
  it("pins a drill-down card with 'Save to Hub' (source ATLAS) without drilling into it", async () => {
    const api = setup()
    renderWithRouter(<AtlasGenericResultsPage />, { path: PATH })
    const card = (await screen.findByText('Texas')).closest('[data-insight]') as HTMLElement
    const save = await within(card).findByRole('button', { name: AI_HUB_MESSAGES.saveToHub })
    await vi.waitFor(() => expect(save.hasAttribute('disabled') || save.hasAttribute('data-loading')).toBe(false))
    fireEvent.click(save)
    expect(await screen.findByText('Texas saved to AI Hub!')).toBeTruthy()
    expect(api.callsTo('POST /ai-hub/pins')[0]!.body).toEqual(PIN_BODY)
    const saved = await within(card).findByRole('button', { name: AI_HUB_MESSAGES.savedToHub })
    expect(saved.textContent).toBe('Saved to Hub')
    // the click stayed on the button: still the States level, no facility drill-down was requested
    expect(api.callsTo('POST /atlas/drilldown').every((call) => (call.body as { drilldown_type: string }).drilldown_type === 'STATE')).toBe(
      true,
    )
    // a second click unpins it, with the info toast
    await vi.waitFor(() => expect(saved.hasAttribute('disabled') || saved.hasAttribute('data-loading')).toBe(false))
    fireEvent.click(saved)
    expect(await screen.findByText('Texas removed from AI Hub')).toBeTruthy()
    expect(api.callsTo(`DELETE /ai-hub/pins/${PIN.id}`)).toHaveLength(1)
    expect(await within(card).findByRole('button', { name: 'Save to Hub' })).toBeTruthy()
  })

  it('shows the AI Hub (ATLAS) in the ai-hub tab', async () => {
    setup()
    renderWithRouter(<AtlasGenericResultsPage />, { path: `${PATH}&tab=ai-hub` })
    const panel = await screen.findByTestId('atlas-ai-hub-panel')
    expect(await within(panel).findByTestId('ai-hub')).toBeTruthy()
  })

  it('Atlas on its own (no app composition) shows no AI Hub parts', async () => {
    setup()
    renderWithRouter(<AtlasGenericResultsRoute />, { path: PATH })
    const card = (await screen.findByText('Texas')).closest('[data-insight]') as HTMLElement
    expect(within(card).queryByRole('button', { name: AI_HUB_MESSAGES.saveToHub })).toBeNull()
  })
})

const PIN_BODY = { type: 'state', entityKey: 'TX', source: 'ATLAS', data: PIN.data }
