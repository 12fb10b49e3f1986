/**
 * An OpenAI-compatible chat completions API (OpenAI, Azure OpenAI's v1 surface, vLLM, Ollama, LM Studio, ...):
 * POST {base}/chat/completions with stream: true, read as server-sent events (`data: {chunk}` ... `data: [DONE]`).
 */
export interface ProviderConfig {
  baseUrl: string
  apiKey?: string | undefined
  model: string
  timeoutMs: number
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant'
  content: string
}

export interface Completion {
  text: string
  model: string
  totalTokens: number | null
}

/** The provider did not answer: unreachable, refused, timed out or sent something else than a completion. */
export class ProviderError extends Error {
  override name = 'ProviderError'
}

interface ChunkShape {
  model?: string
  choices?: { delta?: { content?: string | null }; finish_reason?: string | null }[]
  usage?: { total_tokens?: number } | null
  error?: { message?: string }
}

async function providerErrorOf(response: Response): Promise<ProviderError> {
  const body = await response.text().catch(() => '')
  let detail: string
  try {
    const parsed = JSON.parse(body) as { error?: { message?: string } | string; message?: string }
    detail = typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? parsed.message ?? '')
  } catch {
    detail = body.slice(0, 200)
  }
  return new ProviderError(`HTTP ${response.status}${detail ? `: ${detail.slice(0, 300)}` : ''}`)
}

export async function streamChatCompletion(
  config: ProviderConfig,
  messages: ChatMessage[],
  onDelta: (text: string) => void,
): Promise<Completion> {
  const url = `${config.baseUrl.replace(/\/+$/, '')}/chat/completions`
  let response: Response
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
      },
      body: JSON.stringify({ model: config.model, messages, stream: true, stream_options: { include_usage: true }, temperature: 0.2 }),
      signal: AbortSignal.timeout(config.timeoutMs),
    })
  } catch (error) {
    throw new ProviderError(describeFailure(error))
  }
  if (!response.ok) throw await providerErrorOf(response)
  if (!response.body) throw new ProviderError('empty response')

  let text = ''
  let model = config.model
  let totalTokens: number | null = null
  const decoder = new TextDecoder()
  let buffer = ''
  let done = false
  const handle = (line: string) => {
    if (!line.startsWith('data:')) return
    const data = line.slice(5).trim()
    if (data === '[DONE]') {
      done = true
      return
    }
    let chunk: ChunkShape
    try {
      chunk = JSON.parse(data) as ChunkShape
    } catch {
      throw new ProviderError('the response is not a chat completions stream')
    }
    if (chunk.error) throw new ProviderError(chunk.error.message ?? 'error event')
    if (chunk.model) model = chunk.model
    if (chunk.usage?.total_tokens !== undefined) totalTokens = chunk.usage.total_tokens
    const delta = chunk.choices?.[0]?.delta?.content
    if (delta) {
      text += delta
      onDelta(delta)
    }
  }
  try {
    const reader = response.body.getReader()
    while (!done) {
      const { value, done: ended } = await reader.read()
      if (ended) break
      buffer += decoder.decode(value, { stream: true })
      let newline: number
      while ((newline = buffer.indexOf('\n')) >= 0) {
        handle(buffer.slice(0, newline).replace(/\r$/, ''))
        buffer = buffer.slice(newline + 1)
        if (done) break
      }
    }
    if (!done && buffer.trim() !== '') handle(buffer.trim())
    await reader.cancel().catch(() => undefined)
  } catch (error) {
    if (error instanceof ProviderError) throw error
    throw new ProviderError(describeFailure(error))
  }
  if (text === '') throw new ProviderError('the model returned no text')
  return { text, model, totalTokens }
}

function describeFailure(error: unknown): string {
  const failure = error as Error & { cause?: { code?: string; message?: string } }
  if (failure.name === 'TimeoutError' || failure.name === 'AbortError') return 'no answer in time'
  return failure.cause?.code ?? failure.cause?.message ?? failure.message ?? 'connection failed'
}
