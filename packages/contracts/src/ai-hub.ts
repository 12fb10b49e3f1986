import { z } from 'zod'
import { defineEndpoint } from './endpoint.js'

/**
 * The AI Hub (spec 2 §2-§9, spec 4 §5; docs/decisions/0042-ai-hub.md): documents a user uploads (text kept
 * page by page), insights pinned from Atlas and Nova, a 32,000-token context the server enforces, templates,
 * and generation by an OpenAI-compatible endpoint or the built-in offline analyst, with citations.
 */

/** Spec 2 §9: AI context maximum 32000 tokens; 100 tokens per pinned insight. */
export const AI_MAX_CONTEXT_TOKENS = 32_000
export const AI_TOKENS_PER_PIN = 100
/** Largest file one upload accepts (the server answers 413 above it). */
export const AI_MAX_FILE_BYTES = 10 * 1024 * 1024
/** Files one upload request may carry. */
export const AI_MAX_FILES_PER_UPLOAD = 10
/** Most a .docx, .pptx or .xlsx may unpack to (the parts read, together), so a zip bomb is refused before it fills memory. */
export const AI_MAX_UNPACKED_BYTES = 32 * 1024 * 1024
/** Longest prompt the composer sends. */
export const AI_MAX_PROMPT_CHARS = 4_000
/** Spec 2 §9: copied-state 2000 ms; composer 1 to 6 rows. */
export const AI_COPIED_MS = 2_000
export const AI_COMPOSER_MIN_ROWS = 1
export const AI_COMPOSER_MAX_ROWS = 6

/** Spec 2 §5: upload accepts .pdf, .docx, .pptx, .xlsx and .txt. */
export const AI_DOCUMENT_TYPES = ['pdf', 'docx', 'pptx', 'xlsx', 'txt'] as const
export const aiDocumentTypeSchema = z.enum(AI_DOCUMENT_TYPES)
export type AiDocumentType = z.infer<typeof aiDocumentTypeSchema>
export const AI_DOCUMENT_ACCEPT = AI_DOCUMENT_TYPES.map((type) => `.${type}`).join(',')
/** What one page of each type is called (citations say 'page 3', 'slide 3', 'sheet 3'). */
export const AI_PAGE_UNIT: Record<AiDocumentType, 'page' | 'slide' | 'sheet'> = {
  pdf: 'page',
  docx: 'page',
  pptx: 'slide',
  xlsx: 'sheet',
  txt: 'page',
}
const TYPE_NAMES: Record<AiDocumentType, string> = {
  pdf: 'PDF document',
  docx: 'Word document (.docx)',
  pptx: 'PowerPoint presentation (.pptx)',
  xlsx: 'Excel workbook (.xlsx)',
  txt: 'plain-text file (UTF-8)',
}

/** Spec 2 §3: pinned insight types. */
export const AI_PIN_TYPES = ['provider', 'health-system', 'state', 'facility', 'other'] as const
export const aiPinTypeSchema = z.enum(AI_PIN_TYPES)
export type AiPinType = z.infer<typeof aiPinTypeSchema>
/** The apps the AI Hub is used from; generation is metered against that app's product group. */
export const AI_HUB_PRODUCTS = ['ATLAS', 'NOVA'] as const
export const aiHubProductSchema = z.enum(AI_HUB_PRODUCTS)
export type AiHubProduct = z.infer<typeof aiHubProductSchema>

/** Spec 2 §3: template categories. */
export const AI_TEMPLATE_CATEGORIES = ['analysis', 'strategy', 'communication', 'planning'] as const
export const aiTemplateCategorySchema = z.enum(AI_TEMPLATE_CATEGORIES)
export type AiTemplateCategory = z.infer<typeof aiTemplateCategorySchema>

const formatTokens = (value: number) => value.toLocaleString('en-US')

/** Every AI Hub text of spec 2 (§2, §4, §8) and the server's own refusals. */
export const AI_HUB_MESSAGES = {
  greeting: (name: string) => `Hello ${name}`,
  greetingPrompt: 'How can I help you today?',
  contextLoaded: 'Context Loaded • Ready to Generate Insights',
  contextEmpty: 'Add documents or insights to get started',
  quickStartMarket: 'Market Analysis',
  quickStartTerritory: 'Territory Overview',
  responseHeading: 'AI Assistant',
  statusGenerating: 'Analyzing your pharmaceutical data...',
  statusComplete: 'Analysis complete',
  overlay: 'Analyzing Your Data',
  sources: 'Sources & Citations',
  documentsEmpty: 'No documents uploaded yet',
  pinsEmpty: 'No insights pinned yet',
  pinsEmptyHint: 'Pin insights from detail panels to build context for AI-powered analysis',
  clearPinned: 'Clear All Pinned',
  usingTemplate: 'Using template',
  copy: 'Copy',
  copied: 'Copied!',
  copyFailed: 'Failed to copy to clipboard',
  saveToHub: 'Save to Hub',
  savedToHub: 'Saved to Hub',
  /** Spec 2 §4 Pinning: success toast 'saved to AI Hub!' and info toast 'removed from AI Hub' */
  pinSaved: (name: string) => `${name} saved to AI Hub!`,
  pinRemoved: (name: string) => `${name} removed from AI Hub`,
  dropFiles: 'Drag files here or click to upload',
  dropFilesHint: `PDF, DOCX, PPTX, XLSX or TXT, up to ${AI_MAX_FILE_BYTES / 1024 / 1024} MB each`,
  // ---- client states and fallbacks (shown when a failure carries no server message) ----
  uploading: (filename: string) => `Uploading ${filename}...`,
  uploadFailed: (filename: string) => `Failed to upload ${filename}`,
  removeFailed: 'Failed to remove the document',
  reorderFailed: 'Failed to reorder the pinned insights',
  clearFailed: 'Failed to clear the pinned insights',
  pinFailed: 'The AI Hub could not be updated',
  composerPlaceholder: 'Ask about your documents and pinned insights...',
  generateFailedTitle: 'The answer could not be generated',
  generateFailed: 'The answer could not be generated. Try again.',
  newAnalysis: 'New Analysis',
  // ---- server refusals (one per rule; the names of spec 4 §5) ----
  budgetExceeded: (total: number, overflow: number) =>
    `The AI context would hold ${formatTokens(total)} tokens, ${formatTokens(overflow)} over the ${formatTokens(AI_MAX_CONTEXT_TOKENS)}-token budget. Remove documents or pinned insights first.`,
  noFiles: 'Choose at least one file to upload',
  tooManyFiles: `Upload at most ${AI_MAX_FILES_PER_UPLOAD} files at once`,
  fileTooLarge: (filename: string) =>
    `${filename} is larger than ${AI_MAX_FILE_BYTES / 1024 / 1024} MB, the largest file the AI Hub accepts`,
  unsupportedType: (filename: string) => `${filename}: only .pdf, .docx, .pptx, .xlsx and .txt files can be uploaded`,
  mislabelled: (filename: string, type: AiDocumentType) =>
    `${filename} is not a ${TYPE_NAMES[type]}; its content does not match its extension`,
  encrypted: (filename: string) => `${filename} is password-protected; remove the password and upload it again`,
  emptyDocument: (filename: string) => `${filename} contains no text to analyze`,
  unpacksTooLarge: (filename: string) =>
    `${filename} unpacks to more than ${AI_MAX_UNPACKED_BYTES / 1024 / 1024} MB, more than the AI Hub reads from one document`,
  documentTooLarge: (filename: string) =>
    `${filename} holds more text than the whole ${formatTokens(AI_MAX_CONTEXT_TOKENS)}-token budget of the AI context; upload a shorter document`,
  documentTooComplex: (filename: string) =>
    `${filename} could not be read within the time and memory the AI Hub gives one document; upload a smaller or simpler document`,
  readerBusy: (filename: string, seconds: number) =>
    `${filename} could not be read now: the AI Hub's document reader is busy with other documents; try again in ${seconds} second${seconds === 1 ? '' : 's'}`,
  readerUnavailable: 'The AI Hub cannot read documents right now; try again later',
  documentNotFound: 'Document not found',
  pinNotFound: 'Pinned insight not found',
  alreadyPinned: 'This insight is already pinned',
  reorderMismatch: 'The order must list every pinned insight exactly once',
  templateNotFound: 'Template not found',
  noContext: 'Add documents or insights to get started',
  providerError: (detail: string) =>
    `The AI provider could not answer (${detail}). Your documents and pinned insights are kept; try again.`,
  /** the offline analyst's answer when retrieval finds nothing relevant */
  cannotAnswer: 'Your documents and pinned insights do not answer this question.',
} as const

/** Error codes of the AI Hub's refusals (the envelope's `code`). */
export const AI_HUB_ERROR_CODES = {
  budgetExceeded: 'CONTEXT_BUDGET_EXCEEDED',
  mislabelled: 'DOCUMENT_TYPE_MISMATCH',
  encrypted: 'DOCUMENT_ENCRYPTED',
  empty: 'DOCUMENT_EMPTY',
  providerError: 'AI_PROVIDER_ERROR',
  noContext: 'CONTEXT_EMPTY',
  unpacksTooLarge: 'DOCUMENT_TOO_LARGE',
  tooComplex: 'DOCUMENT_TOO_COMPLEX',
  readerBusy: 'DOCUMENT_READER_BUSY',
} as const

// ---- entities ----------------------------------------------------------------------------------

export const aiDocumentSchema = z
  .object({
    id: z.uuid(),
    title: z.string().describe('the file name without its extension'),
    filename: z.string(),
    type: aiDocumentTypeSchema,
    size: z.number().int().describe('bytes'),
    tokens: z.number().int().describe('tokens of the extracted text (cl100k_base)'),
    pages: z.number().int().describe('pages (slides of a pptx, sheets of an xlsx)'),
    pageUnit: z.enum(['page', 'slide', 'sheet']),
    uploadDate: z.iso.datetime(),
    tags: z.array(z.string()),
  })
  .meta({ id: 'AiDocument' })
export type AiDocument = z.infer<typeof aiDocumentSchema>

const metricValueSchema = z.union([z.number(), z.string(), z.null()])
export const aiPinDataSchema = z.object({
  entity: z.object({ name: z.string().max(300), full_name: z.string().max(300).nullish() }),
  display_name: z.string().trim().min(1).max(300),
  metrics: z
    .record(z.string().max(120), metricValueSchema)
    .refine((metrics) => Object.keys(metrics).length <= 60, 'at most 60 metrics')
    .describe('metric name → value, as shown in the panel the insight was pinned from'),
})
export type AiPinData = z.infer<typeof aiPinDataSchema>

export const aiPinSchema = z
  .object({
    id: z.uuid(),
    type: aiPinTypeSchema,
    entityKey: z.string(),
    source: aiHubProductSchema,
    data: aiPinDataSchema,
    pinnedAt: z.iso.datetime(),
    order: z.number().int(),
    tokens: z.number().int(),
  })
  .meta({ id: 'AiPinnedInsight' })
export type AiPin = z.infer<typeof aiPinSchema>

/** Spec 2 §3 AI context: documents, pinnedInsights, totalTokens, maxTokens. */
export const aiContextSchema = z
  .object({
    documents: z.array(aiDocumentSchema),
    pinnedInsights: z.array(aiPinSchema),
    totalTokens: z.number().int(),
    maxTokens: z.literal(AI_MAX_CONTEXT_TOKENS),
  })
  .meta({ id: 'AiContext' })
export type AiContext = z.infer<typeof aiContextSchema>

export const aiTemplateSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    category: aiTemplateCategorySchema,
    prompt: z.string(),
    requiredMetadata: z.array(z.string()),
    suggestedDocuments: z.array(z.string()),
    suggestedInsights: z.array(z.string()),
    icon: z.string(),
    quickStart: z.boolean().describe('shown as a quick-start card on the dashboard'),
    usageCount: z.number().int().describe("the caller's generations with this template"),
  })
  .meta({ id: 'AiTemplate' })
export type AiTemplate = z.infer<typeof aiTemplateSchema>

export const aiCitationSchema = z
  .object({
    documentId: z.uuid(),
    documentTitle: z.string(),
    page: z.number().int().describe('1-based page (slide, sheet) of the document'),
    pageUnit: z.enum(['page', 'slide', 'sheet']).describe('what a page of the document is'),
    text: z.string().describe('quoted verbatim from that page'),
    marker: z.string().describe('the marker that refers to it in the content, e.g. [S1]'),
  })
  .meta({ id: 'AiCitation' })
export type AiCitation = z.infer<typeof aiCitationSchema>

export const aiResponseSchema = z
  .object({
    id: z.uuid(),
    content: z.string().describe('Markdown; [S1]-style markers refer to citations'),
    citations: z.array(aiCitationSchema),
    insightsUsed: z.array(z.string()).describe('display names of the pinned insights the answer used'),
    generatedAt: z.iso.datetime(),
    prompt: z.string(),
    templateId: z.string().nullable(),
    tokensUsed: z.number().int().describe('prompt plus answer tokens'),
    model: z.string(),
    status: z.literal('complete'),
    answered: z.boolean().describe('false when the context does not answer the question'),
    unverifiedNumbers: z.array(z.string()).describe('numbers of a model answer not found in the context (replaced in content)'),
  })
  .meta({ id: 'AiResponse' })
export type AiResponse = z.infer<typeof aiResponseSchema>

// ---- requests ----------------------------------------------------------------------------------

export const aiPinCreateSchema = z.object({
  type: aiPinTypeSchema,
  entityKey: z.string().trim().min(1).max(200).describe('the entity id in its app (npi, state code, system id)'),
  source: aiHubProductSchema,
  data: aiPinDataSchema,
})
export type AiPinCreate = z.infer<typeof aiPinCreateSchema>

export const aiPinOrderSchema = z.object({ ids: z.array(z.uuid()).max(1_000) })

/**
 * The AI Hub's type of a file by its name's extension (case-insensitive), as the server reads an upload; null for a
 * type it does not read.
 */
export function aiDocumentTypeOf(filename: string): AiDocumentType | null {
  const extension = /\.([A-Za-z0-9]+)$/.exec(filename)?.[1]?.toLowerCase()
  return (AI_DOCUMENT_TYPES as readonly string[]).includes(extension ?? '') ? (extension as AiDocumentType) : null
}

/** A file chosen for upload, as the browser describes it: its name and its size in bytes. */
export const aiUploadFileSchema = z.object({ name: z.string(), size: z.number().nonnegative() })

/**
 * The files one upload (POST /ai-hub/documents) may carry, checked before they are sent by the server's rules and with
 * its texts: at least one file, at most AI_MAX_FILES_PER_UPLOAD, each at most AI_MAX_FILE_BYTES and of a type the AI
 * Hub reads (.pdf, .docx, .pptx, .xlsx, .txt by the extension). One message, on `files`: the first rule broken, in
 * the order the server meets them (count, size, type).
 */
export const aiUploadSelectionSchema = z.object({ files: z.array(aiUploadFileSchema) }).superRefine(({ files }, ctx) => {
  const refuse = (message: string) => ctx.addIssue({ code: 'custom', path: ['files'], message })
  if (files.length === 0) return refuse(AI_HUB_MESSAGES.noFiles)
  if (files.length > AI_MAX_FILES_PER_UPLOAD) return refuse(AI_HUB_MESSAGES.tooManyFiles)
  const tooLarge = files.find((file) => file.size > AI_MAX_FILE_BYTES)
  if (tooLarge) return refuse(AI_HUB_MESSAGES.fileTooLarge(tooLarge.name))
  const unsupported = files.find((file) => aiDocumentTypeOf(file.name) === null)
  if (unsupported) refuse(AI_HUB_MESSAGES.unsupportedType(unsupported.name || '(unnamed)'))
})
export type AiUploadSelection = z.input<typeof aiUploadSelectionSchema>

export const aiGenerateSchema = z.object({
  prompt: z
    .string()
    .trim()
    .min(1, 'Enter a question or choose a template')
    .max(AI_MAX_PROMPT_CHARS, `At most ${AI_MAX_PROMPT_CHARS} characters`),
  templateId: z.string().max(100).nullish(),
  productGroup: aiHubProductSchema.describe('the app the AI Hub is used from; its credits pay for the generation'),
})
export type AiGenerateRequest = z.input<typeof aiGenerateSchema>

/** Events of the streamed generation (text/event-stream): `delta` {text}, then `done` (AiResponse) or `error` (envelope). */
export const aiStreamDeltaSchema = z.object({ text: z.string() })

const documentParams = z.object({ document_id: z.uuid() })
const pinParams = z.object({ pin_id: z.uuid() })

const tags = ['ai-hub'] as const
const security = ['bearer'] as const

export const aiHubEndpoints = {
  context: defineEndpoint({
    method: 'GET',
    path: '/ai-hub/context',
    summary: "The caller's AI context: documents, pinned insights, totalTokens and maxTokens (32000)",
    tags,
    security,
    response: aiContextSchema,
    errors: [401, 403],
  }),
  listDocuments: defineEndpoint({
    method: 'GET',
    path: '/ai-hub/documents',
    summary: "The caller's documents, newest first",
    tags,
    security,
    response: z.object({ documents: z.array(aiDocumentSchema) }),
    errors: [401, 403],
  }),
  uploadDocuments: defineEndpoint({
    method: 'POST',
    path: '/ai-hub/documents',
    summary: 'Upload documents (multipart/form-data, field files; pdf, docx, pptx, xlsx, txt; several at once)',
    description:
      `Each file at most ${AI_MAX_FILE_BYTES} bytes (413 above), at most ${AI_MAX_FILES_PER_UPLOAD} files. The text is extracted page by page ` +
      '(slide by slide, sheet by sheet) and counted in tokens. A file whose content is not its extension, that is encrypted or ' +
      'holds no text is refused with 422 and nothing of the upload is stored; so is an upload that would take the context over ' +
      `${AI_MAX_CONTEXT_TOKENS} tokens, a document whose text alone is over that budget, an Office file that unpacks to more than ` +
      `${AI_MAX_UNPACKED_BYTES} bytes, and a document that cannot be read within the time and memory given to one document. ` +
      'A malformed multipart body is refused with 400. Each document is answered within about 5 s of its arrival: one that no ' +
      'document reader could take in that time, because others are being read, is refused with 429 `DOCUMENT_READER_BUSY` and a ' +
      'Retry-After header (seconds); 503 while the server stops.',
    tags,
    security,
    status: 201,
    response: z.object({ documents: z.array(aiDocumentSchema) }),
    errors: [400, 401, 403, 413, 415, 422, 429, 503],
  }),
  deleteDocument: defineEndpoint({
    method: 'DELETE',
    path: '/ai-hub/documents/{document_id}',
    summary: 'Remove a document (and its text) from the context',
    tags,
    security,
    params: documentParams,
    status: 204,
    response: z.undefined(),
    errors: [400, 401, 403, 404],
  }),
  listPins: defineEndpoint({
    method: 'GET',
    path: '/ai-hub/pins',
    summary: "The caller's pinned insights in their order",
    tags,
    security,
    response: z.object({ pinnedInsights: z.array(aiPinSchema) }),
    errors: [401, 403],
  }),
  pin: defineEndpoint({
    method: 'POST',
    path: '/ai-hub/pins',
    summary: 'Pin an entity from Atlas or Nova (type, entity key, display name, metrics snapshot); 100 tokens of the budget',
    tags,
    security,
    body: aiPinCreateSchema,
    status: 201,
    response: aiPinSchema,
    errors: [400, 401, 403, 409, 422],
  }),
  unpin: defineEndpoint({
    method: 'DELETE',
    path: '/ai-hub/pins/{pin_id}',
    summary: 'Unpin an insight',
    tags,
    security,
    params: pinParams,
    status: 204,
    response: z.undefined(),
    errors: [400, 401, 403, 404],
  }),
  clearPins: defineEndpoint({
    method: 'DELETE',
    path: '/ai-hub/pins',
    summary: "Clear all the caller's pinned insights",
    tags,
    security,
    status: 204,
    response: z.undefined(),
    errors: [401, 403],
  }),
  reorderPins: defineEndpoint({
    method: 'PUT',
    path: '/ai-hub/pins/order',
    summary: 'Reorder the pinned insights: ids lists every pinned insight once, in the new order',
    tags,
    security,
    body: aiPinOrderSchema,
    response: z.object({ pinnedInsights: z.array(aiPinSchema) }),
    errors: [400, 401, 403],
  }),
  templates: defineEndpoint({
    method: 'GET',
    path: '/ai-hub/templates',
    summary: "Templates of the four categories with the caller's usageCount",
    tags,
    security,
    response: z.object({ templates: z.array(aiTemplateSchema) }),
    errors: [401, 403],
  }),
  generate: defineEndpoint({
    method: 'POST',
    path: '/ai-hub/generate',
    summary: 'Answer a prompt from the context (the configured OpenAI-compatible model, else the offline analyst), with citations',
    description:
      'Metered against productGroup: one credit of that app per answer. A refused question (unknown template, empty context) ' +
      'takes no credit; an answer that fails on the server or the provider (503) gives it back. The streamed form is POST /ai-hub/generate/stream.',
    tags,
    security,
    body: aiGenerateSchema,
    response: aiResponseSchema,
    errors: [400, 401, 402, 403, 404, 422, 503],
  }),
  generateStream: defineEndpoint({
    method: 'POST',
    path: '/ai-hub/generate/stream',
    summary: 'As POST /ai-hub/generate, streamed as text/event-stream: delta events {text}, then done (AiResponse) or error (envelope)',
    description:
      'Refusals before the stream starts (validation, access, credits, empty context) answer with the error envelope and their status; ' +
      'a provider failure after it started is an `error` event.',
    tags,
    security,
    body: aiGenerateSchema,
    response: z.string().describe('text/event-stream'),
    errors: [400, 401, 402, 403, 404, 422],
  }),
} as const
