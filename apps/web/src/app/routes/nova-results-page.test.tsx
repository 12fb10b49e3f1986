import { AI_HUB_MESSAGES, TOKEN_STORAGE_KEY, type AiContext, type AiPin } from '@citrus/contracts'
import { fireEvent, screen } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { mockApi, reply } from '../../test/mock-api'
import { renderWithRouter } from '../../test/render'
import { loginToken } from '../../test/tokens'
import { NovaSaveToHub } from './nova-results-page'

const EMPTY: AiContext = { documents: [], pinnedInsights: [], totalTokens: 0, maxTokens: 32000 }
const HOSPITAL = {
  type: 'facility' as const,
  entityKey: '1234567890',
  displayName: 'Dallas General Hospital',
  entity: { name: 'Dallas General Hospital', full_name: null },
  metrics: { 'Snake Bite Cases (5y)': 87, 'CroFab Units Used (5y)': 1234 },
}
const PIN: AiPin = {
  id: '2d1b6e3a-9c75-4e31-9c5a-4f3d7e8a9b02',
  type: 'facility',
  entityKey: HOSPITAL.entityKey,
  source: 'NOVA',
  data: { entity: HOSPITAL.entity, display_name: HOSPITAL.displayName, metrics: HOSPITAL.metrics },
  pinnedAt: '2026-11-25T12:00:00.000Z',
  order: 0,
  tokens: 100,
}

describe("Nova's 'Save to AI Hub' (the app's composition of the AI Hub)", () => {
  it("pins with source NOVA under Nova's labels, toasting 'saved to AI Hub!' then 'removed from AI Hub'", async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'citrus' }))
    let pins: AiPin[] = []
    const api = mockApi({
      'GET /ai-hub/pins': () => ({ pinnedInsights: pins }),
      'GET /ai-hub/context': () => ({ ...EMPTY, pinnedInsights: pins }),
      'POST /ai-hub/pins': () => {
        pins = [PIN]
        return reply(201, PIN)
      },
      [`DELETE /ai-hub/pins/${PIN.id}`]: () => {
        pins = []
        return reply(204, undefined)
      },
    })
    renderWithRouter(<NovaSaveToHub pin={HOSPITAL} />)
    const save = await screen.findByRole('button', { name: 'Save to AI Hub' })
    expect(save.getAttribute('aria-pressed')).toBe('false')
    await vi.waitFor(() => expect(save.hasAttribute('disabled') || save.hasAttribute('data-loading')).toBe(false))
    fireEvent.click(save)
    expect(await screen.findByText('Dallas General Hospital saved to AI Hub!')).toBeTruthy()
    expect(api.callsTo('POST /ai-hub/pins')[0]!.body).toEqual({
      type: 'facility',
      entityKey: '1234567890',
      source: 'NOVA',
      data: PIN.data,
    })
    const saved = await screen.findByRole('button', { name: 'Saved to AI Hub' })
    expect(saved.getAttribute('aria-pressed')).toBe('true')
    await vi.waitFor(() => expect(saved.hasAttribute('disabled') || saved.hasAttribute('data-loading')).toBe(false))
    fireEvent.click(saved)
    expect(await screen.findByText('Dallas General Hospital removed from AI Hub')).toBeTruthy()
    expect(api.callsTo(`DELETE /ai-hub/pins/${PIN.id}`)).toHaveLength(1)
    expect(await screen.findByRole('button', { name: 'Save to AI Hub' })).toBeTruthy()
    expect(AI_HUB_MESSAGES.pinSaved('X')).toBe('X saved to AI Hub!')
  })
})
