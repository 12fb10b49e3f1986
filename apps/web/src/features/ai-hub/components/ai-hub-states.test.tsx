import {
  AI_COPIED_MS,
  AI_HUB_MESSAGES,
  AI_MAX_FILE_BYTES,
  AI_MAX_FILES_PER_UPLOAD,
  TOKEN_STORAGE_KEY,
  type AiContext,
  type AiDocument,
  type AiPin,
  type AiResponse,
  type AiTemplate,
} from '@citrus/contracts'
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { mockApi, reply } from '../../../test/mock-api'
import { renderWithRouter } from '../../../test/render'
import { loginToken } from '../../../test/tokens'
import { AiHubPanel } from './ai-hub-panel'

/*
 * The AI Hub's client states of spec 2 §2 and §4 one by one: the generating overlay and disabled composer,
 * 'Copied!' for 2 s, export, the collapsible sources, Escape, the template chip, the quick starts, the Document
 * Library (click and drop upload, one file after another, sizes, remove) and Pinned Insights (keyboard and drag
 * reorder, unpin, 'Clear All Pinned').
 */

const EMPTY: AiContext = { documents: [], pinnedInsights: [], totalTokens: 0, maxTokens: 32000 }
const TEMPLATES: AiTemplate[] = [
  {
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
  },
  {
    id: 'territory-overview',
    name: 'Territory Overview',
    description: 'Where to focus',
    category: 'strategy',
    prompt: 'Give a territory overview from my context.',
    requiredMetadata: [],
    suggestedDocuments: [],
    suggestedInsights: [],
    icon: 'map',
    quickStart: true,
    usageCount: 3,
  },
]
const pin = (id: string, key: string, name: string, order: number): AiPin => ({
  id,
  type: 'state',
  entityKey: key,
  source: 'ATLAS',
  data: { entity: { name }, display_name: name, metrics: { 'Total Patients': 5120 } },
  pinnedAt: '2026-11-25T12:00:00.000Z',
  order,
  tokens: 100,
})
const TEXAS = pin('0b9f4c1e-7a53-4c1f-9a3e-2d1b5c6e7f80', 'TX', 'Texas', 0)
const ARIZONA = pin('1c0a5d2f-8b64-4d20-8b4f-3e2c6d7f8091', 'AZ', 'Arizona', 1)
const doc = (id: string, filename: string, size: number, tokens: number, pages: number): AiDocument => ({
  id,
  title: filename.replace(/\.[a-z]+$/, ''),
  filename,
  type: filename.endsWith('.pdf') ? 'pdf' : 'docx',
  size,
  tokens,
  pages,
  pageUnit: 'page',
  uploadDate: '2026-11-25T12:00:00.000Z',
  tags: [],
})
const REPORT = doc('5a0e2f61-3d4b-4c8e-9f10-1a2b3c4d5e6f', 'Market Report.pdf', 1536, 120, 2)
const PLAN = doc('6b1f3072-4e5c-4d9f-8a21-2b3c4d5e6f70', 'Territory Plan.docx', 5 * 1024 * 1024, 1_234, 1)
const ANSWER: AiResponse = {
  id: '9c8b7a65-4321-4fed-8cba-0987654321ab',
  content: '- “CroFab usage in Texas reached 1,234 vials.” (page 2) [S1]',
  citations: [
    {
      documentId: REPORT.id,
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
  tokensUsed: 1_042,
  model: 'citrus-offline-analyst',
  status: 'complete',
  answered: true,
  unverifiedNumbers: [],
}

const withContext = (context: Partial<AiContext> = {}) => ({
  ...EMPTY,
  documents: [REPORT],
  pinnedInsights: [TEXAS],
  totalTokens: 220,
  ...context,
})

/** The streamed answer endpoint under the test's control: each event is pushed when the test says so. */
function controlledStream(fallback: typeof fetch) {
  const sent: unknown[] = []
  let controller: ReadableStreamDefaultController<Uint8Array> | null = null
  const encoder = new TextEncoder()
  vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
    if (!String(input).endsWith('/ai-hub/generate/stream')) return fallback(input, init)
    sent.push(JSON.parse(String(init?.body)))
    const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) })
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } })
  })
  return {
    sent,
    push(event: 'delta' | 'done' | 'error', data: unknown) {
      controller!.enqueue(encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`))
    },
    end: () => controller!.close(),
  }
}

const textbox = () => screen.getByRole('textbox', { name: 'Ask the AI assistant' }) as HTMLTextAreaElement

beforeEach(() => {
  localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'user', email: 'lee@example.com' }))
})
afterEach(() => {
  vi.restoreAllMocks()
})

describe('AI Hub response', () => {
  it("shows 'Analyzing Your Data' and disables the composer while generating, then the answer with chips, copy, export and sources", async () => {
    const api = mockApi({ 'GET /ai-hub/context': withContext(), 'GET /ai-hub/templates': { templates: TEMPLATES } })
    const stream = controlledStream(api.fetchMock as unknown as typeof fetch)
    renderWithRouter(<AiHubPanel productGroup="ATLAS" />)
    await screen.findByText(AI_HUB_MESSAGES.contextLoaded)
    expect(screen.getByText('Hello Lee')).toBeTruthy()

    fireEvent.change(textbox(), { target: { value: '  CroFab in Texas  ' } })
    fireEvent.keyDown(textbox(), { key: 'Enter' })
    // nothing has arrived yet: the overlay, the generating status line, a disabled composer
    expect(await screen.findByText(AI_HUB_MESSAGES.overlay)).toBeTruthy()
    expect(screen.getByTestId('ai-status').textContent).toBe(AI_HUB_MESSAGES.statusGenerating)
    expect(textbox().disabled).toBe(true)
    expect(screen.getByRole('button', { name: 'Send' }).hasAttribute('disabled')).toBe(true)
    expect(stream.sent).toEqual([{ prompt: 'CroFab in Texas', templateId: null, productGroup: 'ATLAS' }])

    // the first piece replaces the overlay with the text as it streams
    stream.push('delta', { text: '- “CroFab usage in Texas' })
    await waitFor(() => expect(screen.queryByText(AI_HUB_MESSAGES.overlay)).toBeNull())
    expect(screen.getByTestId('ai-response').textContent).toContain('CroFab usage in Texas')
    expect(screen.getByTestId('ai-status').textContent).toBe(AI_HUB_MESSAGES.statusGenerating)

    stream.push('done', ANSWER)
    stream.end()
    expect(await screen.findByText(AI_HUB_MESSAGES.statusComplete)).toBeTruthy()
    expect(textbox().disabled).toBe(false)
    expect(textbox().value).toBe('')
    const chips = screen.getByTestId('ai-chips').textContent
    expect(chips).toContain('citrus-offline-analyst')
    expect(chips).toContain('1,042 tokens')
    expect(chips).toContain('1 citation')

    // sources: open, then collapsed by their heading
    const heading = screen.getByRole('button', { name: `${AI_HUB_MESSAGES.sources} (1) ▾` })
    expect(heading.getAttribute('aria-expanded')).toBe('true')
    expect(within(screen.getByTestId('ai-citations')).getByText('CroFab usage in Texas reached 1,234 vials.')).toBeTruthy()
    fireEvent.click(heading)
    const collapsed = screen.getByRole('button', { name: `${AI_HUB_MESSAGES.sources} (1) ▸` })
    expect(collapsed.getAttribute('aria-expanded')).toBe('false')
    fireEvent.click(collapsed)
    expect(screen.getByRole('button', { name: `${AI_HUB_MESSAGES.sources} (1) ▾` })).toBeTruthy()

    // export: the answer as Markdown with its prompt, sources, model and tokens
    const blobs: Blob[] = []
    // jsdom has no object URLs: the export's Blob is caught here
    Object.assign(URL, {
      createObjectURL: (blob: Blob) => {
        blobs.push(blob)
        return 'blob:answer'
      },
      revokeObjectURL: () => undefined,
    })
    const clicked = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {})
    fireEvent.click(screen.getByRole('button', { name: 'Markdown' }))
    expect(clicked).toHaveBeenCalledTimes(1)
    const markdown = await blobs[0]!.text()
    expect(markdown).toContain('**Prompt:** CroFab in Texas')
    expect(markdown).toContain(ANSWER.content)
    expect(markdown).toContain(`## ${AI_HUB_MESSAGES.sources}`)
    expect(markdown).toContain('- [S1] Market Report, page 2: "CroFab usage in Texas reached 1,234 vials."')
    expect(markdown).toContain('Model: citrus-offline-analyst; 1042 tokens')

    // copy: 'Copied!' for 2 seconds, then 'Copy' again
    const writeText = vi.fn(async (_text: string) => undefined)
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true })
    fireEvent.click(screen.getByRole('button', { name: AI_HUB_MESSAGES.copy }))
    await screen.findByRole('button', { name: AI_HUB_MESSAGES.copied })
    const copiedAt = Date.now()
    expect(writeText).toHaveBeenCalledWith(ANSWER.content)
    await waitFor(() => expect(screen.getByRole('button', { name: AI_HUB_MESSAGES.copy })).toBeTruthy(), {
      timeout: AI_COPIED_MS + 1500,
    })
    expect(Date.now() - copiedAt).toBeGreaterThanOrEqual(AI_COPIED_MS - 150)

    // a clipboard the browser refuses
    writeText.mockRejectedValueOnce(new Error('denied'))
    fireEvent.click(screen.getByRole('button', { name: AI_HUB_MESSAGES.copy }))
    expect(await screen.findByText(AI_HUB_MESSAGES.copyFailed)).toBeTruthy()

    // New Analysis: back to the dashboard
    fireEvent.click(screen.getByRole('button', { name: AI_HUB_MESSAGES.newAnalysis }))
    expect(await screen.findByText('Hello Lee')).toBeTruthy()
    expect(screen.queryByTestId('ai-response')).toBeNull()
  }, 15_000)

  it('keeps the question and the context when the provider fails mid-answer', async () => {
    const api = mockApi({ 'GET /ai-hub/context': withContext(), 'GET /ai-hub/templates': { templates: TEMPLATES } })
    const stream = controlledStream(api.fetchMock as unknown as typeof fetch)
    renderWithRouter(<AiHubPanel productGroup="ATLAS" />)
    await screen.findByText(AI_HUB_MESSAGES.contextLoaded)
    fireEvent.change(textbox(), { target: { value: 'CroFab in Texas' } })
    fireEvent.keyDown(textbox(), { key: 'Enter' })
    stream.push('delta', { text: 'Texas used ' })
    const message = AI_HUB_MESSAGES.providerError('HTTP 500: upstream failure')
    stream.push('error', { message, code: 'AI_PROVIDER_ERROR', status: 503 })
    stream.end()
    expect(await screen.findByText(message)).toBeTruthy()
    expect(screen.getByText(AI_HUB_MESSAGES.generateFailedTitle)).toBeTruthy()
    // the question is still in the composer, ready to send again; the context is untouched
    expect(textbox().value).toBe('CroFab in Texas')
    expect(textbox().disabled).toBe(false)
    expect(screen.getByTestId('ai-budget-text').textContent).toBe('220 / 32,000 tokens')
    expect(api.calls.filter((call) => call.path.startsWith('/ai-hub') && call.method !== 'GET')).toEqual([])
  })
})

describe('AI Hub composer and templates', () => {
  it('Escape closes the template list and clears the text; the chip is removable; quick starts send their template', async () => {
    const api = mockApi({ 'GET /ai-hub/context': withContext(), 'GET /ai-hub/templates': { templates: TEMPLATES } })
    const stream = controlledStream(api.fetchMock as unknown as typeof fetch)
    renderWithRouter(<AiHubPanel productGroup="NOVA" />)
    await screen.findByText(AI_HUB_MESSAGES.contextLoaded)

    fireEvent.change(textbox(), { target: { value: 'Draft' } })
    fireEvent.click(screen.getByRole('button', { name: 'Templates' }))
    const list = await screen.findByTestId('ai-templates')
    // the four categories, each template under its own, with its usage
    expect(within(list).getByText('Analysis')).toBeTruthy()
    expect(within(list).getByText('Strategy')).toBeTruthy()
    expect(within(list).getByTestId('ai-template-territory-overview').textContent).toContain('used 3×')
    fireEvent.keyDown(textbox(), { key: 'Escape' })
    expect(screen.queryByTestId('ai-templates')).toBeNull()
    expect(textbox().value).toBe('')
    expect(screen.getByTestId('ai-char-count').textContent).toBe('0/4000')

    // a picked template fills the prompt and shows the chip; removing the chip keeps the text
    fireEvent.click(screen.getByRole('button', { name: 'Templates' }))
    fireEvent.click(await screen.findByTestId('ai-template-market-analysis'))
    expect(screen.queryByTestId('ai-templates')).toBeNull()
    expect(textbox().value).toBe(TEMPLATES[0]!.prompt)
    expect(screen.getByTestId('ai-char-count').textContent).toBe(`${TEMPLATES[0]!.prompt.length}/4000`)
    expect(screen.getByTestId('ai-using-template').textContent).toBe(`${AI_HUB_MESSAGES.usingTemplate}: Market Analysis`)
    fireEvent.click(screen.getByRole('button', { name: 'Remove template' }))
    expect(screen.queryByTestId('ai-using-template')).toBeNull()
    expect(textbox().value).toBe(TEMPLATES[0]!.prompt)
    // Escape also drops the chip
    fireEvent.click(screen.getByRole('button', { name: 'Templates' }))
    fireEvent.click(await screen.findByTestId('ai-template-market-analysis'))
    fireEvent.keyDown(textbox(), { key: 'Escape' })
    expect(screen.queryByTestId('ai-using-template')).toBeNull()
    // an empty or blank prompt is not sent: Send stays disabled, and Enter shows the contract's message
    fireEvent.change(textbox(), { target: { value: '   ' } })
    expect(screen.getByRole('button', { name: 'Send' }).hasAttribute('disabled')).toBe(true)
    fireEvent.keyDown(textbox(), { key: 'Enter' })
    expect(await screen.findByText('Enter a question or choose a template')).toBeTruthy()
    expect(stream.sent).toEqual([])
    // typing clears it
    fireEvent.change(textbox(), { target: { value: '  ' } })
    expect(screen.queryByText('Enter a question or choose a template')).toBeNull()

    // with context, the quick starts are enabled and send their template
    const territory = screen.getByTestId('ai-quick-territory-overview')
    expect(territory.hasAttribute('disabled')).toBe(false)
    fireEvent.click(territory)
    await waitFor(() => expect(stream.sent).toHaveLength(1))
    expect(stream.sent[0]).toEqual({ prompt: TEMPLATES[1]!.prompt, templateId: 'territory-overview', productGroup: 'NOVA' })
    stream.push('done', { ...ANSWER, templateId: 'territory-overview', prompt: TEMPLATES[1]!.prompt })
    stream.end()
    await screen.findByText(AI_HUB_MESSAGES.statusComplete)
    expect(screen.getByTestId('ai-chips').textContent).toContain('Territory Overview')
  })
})

describe('Document Library', () => {
  it('uploads chosen and dropped files one after another, shows sizes and tokens, reports a refusal and removes a document', async () => {
    let documents: AiDocument[] = [REPORT]
    const api = mockApi({
      'GET /ai-hub/context': () => withContext({ documents, pinnedInsights: [] }),
      'GET /ai-hub/templates': { templates: TEMPLATES },
      [`DELETE /ai-hub/documents/${REPORT.id}`]: () => {
        documents = documents.filter((d) => d.id !== REPORT.id)
        return reply(204, undefined)
      },
    })
    // the upload is multipart: its files are read here, each answer given after a pause so overlaps would show
    const uploads: { name: string; start: number; end: number }[] = []
    vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
      if (!String(input).endsWith('/ai-hub/documents') || init?.method !== 'POST') {
        return (api.fetchMock as unknown as typeof fetch)(input, init)
      }
      const files = (init.body as FormData).getAll('files') as File[]
      expect(files).toHaveLength(1)
      const name = files[0]!.name
      const start = performance.now()
      await new Promise((resolve) => setTimeout(resolve, 30))
      uploads.push({ name, start, end: performance.now() })
      if (name === 'locked.pdf') {
        const envelope = { message: AI_HUB_MESSAGES.encrypted('locked.pdf'), code: 'DOCUMENT_ENCRYPTED', status: 422 }
        return new Response(JSON.stringify(envelope), { status: 422, headers: { 'content-type': 'application/json' } })
      }
      const stored = name === PLAN.filename ? PLAN : doc('7c2a4183-5f6d-4eaf-9b32-3c4d5e6f7081', name, 2048, 40, 1)
      documents = [stored, ...documents]
      return new Response(JSON.stringify({ documents: [stored] }), { status: 201, headers: { 'content-type': 'application/json' } })
    })
    renderWithRouter(<AiHubPanel productGroup="ATLAS" />)
    fireEvent.click(await screen.findByRole('tab', { name: /Documents \(1\)/ }))
    expect(screen.getByTestId('ai-document').textContent).toContain('Market Report.pdf')
    expect(screen.getByTestId('ai-document').textContent).toContain('1.5 KB • 120 tokens • 2 pages')
    expect(screen.getByText(AI_HUB_MESSAGES.dropFiles)).toBeTruthy()

    // click-to-upload: the input takes several files (of the accepted types) and sends them one after another
    const input = screen.getByTestId('ai-upload-input') as HTMLInputElement
    expect(input.multiple).toBe(true)
    expect(input.accept).toBe('.pdf,.docx,.pptx,.xlsx,.txt')
    fireEvent.change(input, {
      target: { files: [new File(['%PDF-1.7'], 'locked.pdf', { type: 'application/pdf' }), new File(['PK'], 'Territory Plan.docx')] },
    })
    expect(await screen.findByText(AI_HUB_MESSAGES.encrypted('locked.pdf'))).toBeTruthy()
    await waitFor(() => expect(screen.getAllByTestId('ai-document')).toHaveLength(2))
    expect(uploads.map((u) => u.name)).toEqual(['locked.pdf', 'Territory Plan.docx'])
    expect(uploads[1]!.start).toBeGreaterThanOrEqual(uploads[0]!.end)
    expect(screen.getAllByTestId('ai-document')[0]!.textContent).toContain('5 MB • 1,234 tokens • 1 page')
    expect(screen.getByRole('tab', { name: /Documents \(2\)/ })).toBeTruthy()

    // drag and drop
    const area = screen.getByTestId('ai-upload-area')
    fireEvent.dragOver(area, { dataTransfer: { files: [] } })
    fireEvent.drop(area, { dataTransfer: { files: [new File(['PK'], 'Dropped.docx')] } })
    await waitFor(() => expect(uploads.map((u) => u.name)).toEqual(['locked.pdf', 'Territory Plan.docx', 'Dropped.docx']))
    await waitFor(() => expect(screen.getAllByTestId('ai-document')).toHaveLength(3))
    expect(screen.getAllByTestId('ai-document')[0]!.textContent).toContain('Dropped.docx')
    expect(screen.getAllByTestId('ai-document')[0]!.textContent).toContain('2 KB • 40 tokens • 1 page')

    // remove
    fireEvent.click(screen.getByRole('button', { name: 'Remove Market Report.pdf' }))
    await waitFor(() => expect(api.callsTo(`DELETE /ai-hub/documents/${REPORT.id}`)).toHaveLength(1))
    await waitFor(() => expect(screen.queryByText('Market Report.pdf')).toBeNull())
  })
})

describe('Document Library: the upload rules of the contract (aiUploadSelectionSchema)', () => {
  it("refuses a dropped or chosen selection the server would refuse, with the server's message, and sends nothing", async () => {
    const api = mockApi({ 'GET /ai-hub/context': withContext({ pinnedInsights: [] }), 'GET /ai-hub/templates': { templates: TEMPLATES } })
    // the uploads the client sends, counted before the mock API would answer them
    const sent: string[] = []
    vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
      if (String(input).endsWith('/ai-hub/documents') && init?.method === 'POST') {
        sent.push(...((init.body as FormData).getAll('files') as File[]).map((file) => file.name))
        const stored = doc('7c2a4183-5f6d-4eaf-9b32-3c4d5e6f7081', 'Notes.txt', 12, 3, 1)
        return new Response(JSON.stringify({ documents: [stored] }), { status: 201, headers: { 'content-type': 'application/json' } })
      }
      return (api.fetchMock as unknown as typeof fetch)(input, init)
    })
    renderWithRouter(<AiHubPanel productGroup="ATLAS" />)
    fireEvent.click(await screen.findByRole('tab', { name: /Documents \(1\)/ }))
    const area = screen.getByTestId('ai-upload-area')
    const input = screen.getByTestId('ai-upload-input') as HTMLInputElement
    const message = () => screen.getByTestId('ai-upload-error').textContent

    // a drop skips the input's accept filter: a type the AI Hub does not read
    fireEvent.drop(area, { dataTransfer: { files: [new File(['a,b'], 'claims.csv', { type: 'text/csv' })] } })
    expect(await screen.findByText(AI_HUB_MESSAGES.unsupportedType('claims.csv'))).toBeTruthy()

    // a file over the size limit, dropped or chosen
    const large = new File(['%PDF-1.7'], 'Big Report.pdf', { type: 'application/pdf' })
    Object.defineProperty(large, 'size', { value: AI_MAX_FILE_BYTES + 1 })
    fireEvent.drop(area, { dataTransfer: { files: [large] } })
    await waitFor(() => expect(message()).toBe(AI_HUB_MESSAGES.fileTooLarge('Big Report.pdf')))
    fireEvent.change(input, { target: { files: [new File(['ok'], 'Notes.txt'), large] } })
    await waitFor(() => expect(message()).toBe(AI_HUB_MESSAGES.fileTooLarge('Big Report.pdf')))

    // more files than one upload takes
    const many = Array.from({ length: AI_MAX_FILES_PER_UPLOAD + 1 }, (_, i) => new File(['x'], `Part ${i + 1}.txt`))
    fireEvent.change(input, { target: { files: many } })
    await waitFor(() => expect(message()).toBe(AI_HUB_MESSAGES.tooManyFiles))
    expect(sent).toEqual([])
    expect(api.calls.filter((call) => call.method === 'POST')).toEqual([])

    // a valid selection clears the message and is sent
    fireEvent.change(input, { target: { files: [new File(['ok'], 'Notes.txt')] } })
    await waitFor(() => expect(sent).toEqual(['Notes.txt']))
    expect(screen.queryByTestId('ai-upload-error')).toBeNull()
  })
})

describe('Pinned Insights', () => {
  it('reorders by keyboard and by drag, unpins with its toast and clears all', async () => {
    let pins: AiPin[] = [TEXAS, ARIZONA]
    const api = mockApi({
      'GET /ai-hub/context': () => withContext({ documents: [], pinnedInsights: pins, totalTokens: pins.length * 100 }),
      'GET /ai-hub/templates': { templates: TEMPLATES },
      'PUT /ai-hub/pins/order': (call: { body: unknown }) => {
        const ids = (call.body as { ids: string[] }).ids
        pins = ids.map((id, order) => ({ ...pins.find((p) => p.id === id)!, order }))
        return { pinnedInsights: pins }
      },
      [`DELETE /ai-hub/pins/${ARIZONA.id}`]: () => {
        pins = pins.filter((p) => p.id !== ARIZONA.id)
        return reply(204, undefined)
      },
      'DELETE /ai-hub/pins': () => {
        pins = []
        return reply(204, undefined)
      },
    })
    renderWithRouter(<AiHubPanel productGroup="ATLAS" />)
    const names = () => screen.getAllByTestId('ai-pin').map((item) => item.textContent ?? '')
    await waitFor(() => expect(screen.getAllByTestId('ai-pin')).toHaveLength(2))
    expect(names()[0]).toContain('Texas')
    expect(screen.getByTestId('ai-budget-text').textContent).toBe('200 / 32,000 tokens')

    // keyboard: the first pin's handle, Arrow Down
    const handle = screen.getByRole('button', { name: 'Reorder Texas (Arrow Up / Arrow Down)' })
    fireEvent.keyDown(handle, { key: 'ArrowUp' }) // already first: nothing happens
    expect(api.callsTo('PUT /ai-hub/pins/order')).toHaveLength(0)
    fireEvent.keyDown(handle, { key: 'ArrowDown' })
    expect(names()[0]).toContain('Arizona') // at once, before the server answers
    await waitFor(() => expect(api.callsTo('PUT /ai-hub/pins/order')).toHaveLength(1))
    expect(api.callsTo('PUT /ai-hub/pins/order')[0]!.body).toEqual({ ids: [ARIZONA.id, TEXAS.id] })

    // drag: Texas (now second) onto the first place
    await waitFor(() => expect(names()[1]).toContain('Texas'))
    const items = screen.getAllByTestId('ai-pin')
    fireEvent.dragStart(items[1]!)
    fireEvent.dragOver(items[0]!)
    fireEvent.drop(items[0]!)
    await waitFor(() => expect(api.callsTo('PUT /ai-hub/pins/order')).toHaveLength(2))
    expect(api.callsTo('PUT /ai-hub/pins/order')[1]!.body).toEqual({ ids: [TEXAS.id, ARIZONA.id] })
    await waitFor(() => expect(names()[0]).toContain('Texas'))

    // unpin one: its toast and 100 tokens fewer
    fireEvent.click(screen.getByRole('button', { name: 'Unpin Arizona' }))
    expect(await screen.findByText(AI_HUB_MESSAGES.pinRemoved('Arizona'))).toBeTruthy()
    await waitFor(() => expect(screen.getByTestId('ai-budget-text').textContent).toBe('100 / 32,000 tokens'))

    // Clear All Pinned: the empty texts
    fireEvent.click(screen.getByRole('button', { name: AI_HUB_MESSAGES.clearPinned }))
    expect(await screen.findByText(AI_HUB_MESSAGES.pinsEmpty)).toBeTruthy()
    expect(screen.getByText(AI_HUB_MESSAGES.pinsEmptyHint)).toBeTruthy()
    expect(api.callsTo('DELETE /ai-hub/pins')).toHaveLength(1)
    expect(screen.getByTestId('ai-budget-text').textContent).toBe('0 / 32,000 tokens')
  })
})
