import { AI_HUB_MESSAGES, TOKEN_STORAGE_KEY, type AiContext, type AiPin, type AiResponse, type AiTemplate } from '@citrus/contracts'
import { fireEvent, screen, within } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { mockApi, reply } from '../../../test/mock-api'
import { renderWithRouter } from '../../../test/render'
import { loginToken } from '../../../test/tokens'
import { AiHubPanel } from './ai-hub-panel'
import { SaveToHubButton } from './save-to-hub-button'

const EMPTY: AiContext = { documents: [], pinnedInsights: [], totalTokens: 0, maxTokens: 32000 }
const TEMPLATE: AiTemplate = {
  id: 'market-analysis',
  name: 'Market Analysis',
  description: 'Market size and demand',
  category: 'analysis',
  prompt: 'Provide a market analysis from my context.',
  requiredMetadata: [],
  suggestedDocuments: [],
  suggestedInsights: [],
  icon: 'chart-bar',
  quickStart: true,
  usageCount: 0,
}
const PIN: AiPin = {
  id: '0b9f4c1e-7a53-4c1f-9a3e-2d1b5c6e7f80',
  type: 'state',
  entityKey: 'TX',
  source: 'ATLAS',
  data: { entity: { name: 'Texas' }, display_name: 'Texas', metrics: { 'Total Patients': 5120 } },
  pinnedAt: '2026-11-25T12:00:00.000Z',
  order: 0,
  tokens: 100,
}
const DOCUMENT = {
  id: '5a0e2f61-3d4b-4c8e-9f10-1a2b3c4d5e6f',
  title: 'Market Report',
  filename: 'Market Report.pdf',
  type: 'pdf' as const,
  size: 1536,
  tokens: 120,
  pages: 2,
  pageUnit: 'page' as const,
  uploadDate: '2026-11-25T12:00:00.000Z',
  tags: [],
}
const ANSWER: AiResponse = {
  id: '9c8b7a65-4321-4fed-8cba-0987654321ab',
  content: '**From your documents**\n\n*Market Report*\n- “CroFab usage in Texas reached 1,234 vials.” (page 2) [S1]',
  citations: [
    {
      documentId: DOCUMENT.id,
      documentTitle: 'Market Report',
      page: 2,
      pageUnit: 'page',
      text: 'CroFab usage in Texas reached 1,234 vials.',
      marker: '[S1]',
    },
  ],
  insightsUsed: [],
  generatedAt: '2026-11-25T12:00:01.000Z',
  prompt: 'CroFab in Texas',
  templateId: null,
  tokensUsed: 42,
  model: 'citrus-offline-analyst',
  status: 'complete',
  answered: true,
  unverifiedNumbers: [],
}

/** The streamed answer endpoint, served beside the mock API (which answers JSON only). */
function streamAnswer(fetchMock: typeof fetch, answer: AiResponse) {
  const sent: unknown[] = []
  vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
    if (!String(input).endsWith('/ai-hub/generate/stream')) return fetchMock(input, init)
    sent.push(JSON.parse(String(init?.body)))
    const events = [
      `event: delta\ndata: ${JSON.stringify({ text: answer.content })}\n\n`,
      `event: done\ndata: ${JSON.stringify(answer)}\n\n`,
    ]
    return new Response(events.join(''), { status: 200, headers: { 'content-type': 'text/event-stream' } })
  })
  return sent
}

describe('AI Hub panel', () => {
  it('without context: the banner, the empty texts and disabled quick starts', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'user', email: 'dana.smith@example.com' }))
    mockApi({ 'GET /ai-hub/context': EMPTY, 'GET /ai-hub/templates': { templates: [TEMPLATE] } })
    renderWithRouter(<AiHubPanel productGroup="ATLAS" />)
    expect(await screen.findByText(AI_HUB_MESSAGES.contextEmpty)).toBeTruthy()
    expect(screen.getByText('Hello Dana')).toBeTruthy()
    expect(screen.getByText(AI_HUB_MESSAGES.greetingPrompt)).toBeTruthy()
    expect(await screen.findByText(AI_HUB_MESSAGES.pinsEmpty)).toBeTruthy()
    expect(screen.getByText(AI_HUB_MESSAGES.pinsEmptyHint)).toBeTruthy()
    expect(screen.getByTestId('ai-quick-market-analysis').hasAttribute('disabled')).toBe(true)
    expect(screen.getByTestId('ai-budget-text').textContent).toBe('0 / 32,000 tokens')
    fireEvent.click(screen.getByRole('tab', { name: /Documents/ }))
    expect(await screen.findByText(AI_HUB_MESSAGES.documentsEmpty)).toBeTruthy()
  })

  it('composer: count, Shift+Enter keeps typing, Escape clears, Enter streams a cited answer', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'user' }))
    const api = mockApi({
      'GET /ai-hub/context': { ...EMPTY, documents: [DOCUMENT], pinnedInsights: [PIN], totalTokens: 220 },
      'GET /ai-hub/templates': { templates: [TEMPLATE] },
    })
    const sent = streamAnswer(api.fetchMock as unknown as typeof fetch, ANSWER)
    renderWithRouter(<AiHubPanel productGroup="NOVA" />)
    expect(await screen.findByText(AI_HUB_MESSAGES.contextLoaded)).toBeTruthy()
    expect(screen.getByTestId('ai-budget-text').textContent).toBe('220 / 32,000 tokens')
    const box = screen.getByRole('textbox', { name: 'Ask the AI assistant' })
    fireEvent.change(box, { target: { value: 'CroFab' } })
    expect(screen.getByTestId('ai-char-count').textContent).toBe('6/4000')
    fireEvent.keyDown(box, { key: 'Enter', shiftKey: true })
    expect(sent).toHaveLength(0)
    fireEvent.keyDown(box, { key: 'Escape' })
    expect((box as HTMLTextAreaElement).value).toBe('')

    // a template fills the prompt and shows its chip
    fireEvent.click(screen.getByRole('button', { name: 'Templates' }))
    fireEvent.click(await screen.findByTestId('ai-template-market-analysis'))
    expect((box as HTMLTextAreaElement).value).toBe(TEMPLATE.prompt)
    expect(screen.getByTestId('ai-using-template').textContent).toContain('Using template: Market Analysis')
    fireEvent.keyDown(box, { key: 'Enter' })
    expect(await screen.findByText(AI_HUB_MESSAGES.statusComplete)).toBeTruthy()
    expect(sent).toEqual([{ prompt: TEMPLATE.prompt, templateId: 'market-analysis', productGroup: 'NOVA' }])
    const citations = within(screen.getByTestId('ai-citations'))
    expect(citations.getByText('CroFab usage in Texas reached 1,234 vials.')).toBeTruthy()
    expect(screen.getByText(`${AI_HUB_MESSAGES.sources} (1) ▾`)).toBeTruthy()
    expect(screen.getByText('citrus-offline-analyst')).toBeTruthy()
  })

  it('shows the server message when generation fails', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'user' }))
    const api = mockApi({
      'GET /ai-hub/context': { ...EMPTY, pinnedInsights: [PIN], totalTokens: 100 },
      'GET /ai-hub/templates': { templates: [TEMPLATE] },
    })
    vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
      if (!String(input).endsWith('/ai-hub/generate/stream')) return (api.fetchMock as unknown as typeof fetch)(input, init)
      const envelope = { message: AI_HUB_MESSAGES.providerError('HTTP 429'), code: 'AI_PROVIDER_ERROR', status: 503 }
      return new Response(`event: error\ndata: ${JSON.stringify(envelope)}\n\n`, {
        status: 200,
        headers: { 'content-type': 'text/event-stream' },
      })
    })
    renderWithRouter(<AiHubPanel productGroup="ATLAS" />)
    const box = await screen.findByRole('textbox', { name: 'Ask the AI assistant' })
    await screen.findByText(AI_HUB_MESSAGES.contextLoaded)
    fireEvent.change(box, { target: { value: 'Texas' } })
    fireEvent.keyDown(box, { key: 'Enter' })
    expect(await screen.findByText(AI_HUB_MESSAGES.providerError('HTTP 429'))).toBeTruthy()
  })
})

describe('Save to Hub', () => {
  it("toggles the pin: 'saved to AI Hub!' then 'removed from AI Hub'", async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'user' }))
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
    renderWithRouter(
      <SaveToHubButton source="ATLAS" type="state" entityKey="TX" displayName="Texas" metrics={{ 'Total Patients': 5120 }} />,
    )
    const save = await screen.findByRole('button', { name: AI_HUB_MESSAGES.saveToHub })
    await vi.waitFor(() => expect(save.hasAttribute('disabled') || save.hasAttribute('data-loading')).toBe(false))
    fireEvent.click(save)
    expect(await screen.findByText(AI_HUB_MESSAGES.pinSaved('Texas'))).toBeTruthy()
    expect(api.callsTo('POST /ai-hub/pins')[0]!.body).toEqual({
      type: 'state',
      entityKey: 'TX',
      source: 'ATLAS',
      data: { entity: { name: 'Texas' }, display_name: 'Texas', metrics: { 'Total Patients': 5120 } },
    })
    const saved = await screen.findByRole('button', { name: AI_HUB_MESSAGES.savedToHub })
    await vi.waitFor(() => expect(saved.hasAttribute('disabled') || saved.hasAttribute('data-loading')).toBe(false))
    fireEvent.click(saved)
    expect(await screen.findByText(AI_HUB_MESSAGES.pinRemoved('Texas'))).toBeTruthy()
    expect(api.callsTo(`DELETE /ai-hub/pins/${PIN.id}`)).toHaveLength(1)
  })
})
