import {
  aiResponseSchema,
  endpoints,
  errorEnvelopeSchema,
  type AiGenerateRequest,
  type AiPinCreate,
  type AiResponse,
  type EndpointOutput,
} from '@citrus/contracts'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { endpointKey, useApiMutation, useApiQuery } from '../../../hooks/use-api'
import { ApiError, networkError, streamEndpoint, uploadEndpoint } from '../../../lib/api-client'

const hub = endpoints.aiHub

/** The endpoints whose answers change with the context (documents, pins). */
const CONTEXT_QUERIES = [hub.context, hub.listDocuments, hub.listPins] as const

/** GET /ai-hub/context: documents, pinned insights, totalTokens, maxTokens. */
export function useAiContext() {
  return useApiQuery(hub.context, {})
}

export function useAiTemplates() {
  return useApiQuery(hub.templates, {})
}

/** GET /ai-hub/pins, for the Save to Hub toggles of Atlas and Nova panels. */
export function useAiPins() {
  return useApiQuery(hub.listPins, {})
}

export type UploadResult = EndpointOutput<typeof hub.uploadDocuments>

/** POST /ai-hub/documents (multipart): one file per call, so that each file succeeds or fails on its own. */
export async function uploadDocument(file: File): Promise<UploadResult> {
  const form = new FormData()
  form.append('files', file, file.name)
  return uploadEndpoint(hub.uploadDocuments, form)
}

export function useUploadDocument() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: uploadDocument,
    onSuccess: () => Promise.all(CONTEXT_QUERIES.map((query) => queryClient.invalidateQueries({ queryKey: endpointKey(query) }))),
  })
}

export function useDeleteDocument() {
  return useApiMutation(hub.deleteDocument, { invalidates: CONTEXT_QUERIES })
}

export function usePinInsight() {
  return useApiMutation(hub.pin, { invalidates: CONTEXT_QUERIES })
}

export function useUnpinInsight() {
  return useApiMutation(hub.unpin, { invalidates: CONTEXT_QUERIES })
}

export function useClearPins() {
  return useApiMutation(hub.clearPins, { invalidates: CONTEXT_QUERIES })
}

export function useReorderPins() {
  return useApiMutation(hub.reorderPins, { invalidates: CONTEXT_QUERIES })
}

export function useRecordTemplateUse() {
  const queryClient = useQueryClient()
  return () => queryClient.invalidateQueries({ queryKey: endpointKey(hub.templates) })
}

export type { AiPinCreate }

/**
 * POST /ai-hub/generate/stream: calls `onDelta` with each piece of the answer as it arrives and resolves with
 * the final response (citations, model, tokens). Refusals (status ≠ 200) and `error` events reject with an
 * ApiError carrying the server's message. The request goes through the API client (lib/api-client.ts).
 */
export async function streamGenerate(
  request: AiGenerateRequest,
  onDelta: (text: string) => void,
  signal?: AbortSignal,
): Promise<AiResponse> {
  const stream = await streamEndpoint(hub.generateStream, { body: request }, { signal, headers: { Accept: 'text/event-stream' } })
  const reader = stream.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  for (;;) {
    const { value, done } = await reader.read()
    if (value) buffer += decoder.decode(value, { stream: !done })
    let boundary: number
    while ((boundary = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, boundary)
      buffer = buffer.slice(boundary + 2)
      const event = /^event: (.*)$/m.exec(block)?.[1]
      const data = /^data: (.*)$/m.exec(block)?.[1]
      if (!event || data === undefined) continue
      const parsed = JSON.parse(data) as unknown
      if (event === 'delta') onDelta((parsed as { text: string }).text)
      else if (event === 'done') return aiResponseSchema.parse(parsed)
      else if (event === 'error') {
        const envelope = errorEnvelopeSchema.parse(parsed)
        throw new ApiError({ message: envelope.message, code: envelope.code, status: envelope.status, fromServer: true })
      }
    }
    if (done) break
  }
  throw networkError(new Error('the answer stream ended early'))
}
