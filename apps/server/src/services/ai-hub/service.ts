import { PassThrough, type Readable } from 'node:stream'
import {
  AI_HUB_MESSAGES,
  AUTH_MESSAGES,
  ERROR_CODES,
  HTTP_MESSAGES,
  PRODUCT_NAMES,
  type AiDocument,
  type AiHubProduct,
  type AiResponse,
  type ErrorEnvelope,
  type Role,
} from '@citrus/contracts'
import type { FastifyBaseLogger } from 'fastify'
import type { Env } from '../../config.js'
import type { PrismaClient } from '../../db/database.js'
import { holdsProduct, type PolicyReader } from '../../domain/administration.js'
import type { Charge, CreditService } from '../../domain/credits.js'
import { AppError, badRequest, forbidden } from '../../lib/errors.js'
import { malformedMultipart } from '../../plugins/error-handler.js'
import { AiContextStore, type Owner } from './context.js'
import { ExtractionPool } from './extract-pool.js'
import { AiAnalyst, type GenerateInput } from './generate.js'
import { addUploadedDocuments, assertAppRole, uploadName, type UploadedFile } from './uploads.js'

/** A generation's input (the contract's body): the question, and the app it is asked from. */
export interface GenerationInput extends GenerateInput {
  productGroup: AiHubProduct
}

/** The context an answer is made from: read and checked before the credit is taken (AiAnalyst.prepare). */
export type PreparedContext = Awaited<ReturnType<AiAnalyst['prepare']>>

/** One part of a multipart/form-data body as @fastify/multipart yields it: a file, or a field (ignored). */
export type UploadPart = { type: 'file'; filename: string; toBuffer(): Promise<Buffer> } | { type: 'field' }

/** An upload as the request carries it: whether it is multipart/form-data, and its parts (read once). */
export interface UploadBody {
  multipart: boolean
  parts(): AsyncIterable<UploadPart>
}

/** What a streamed generation needs of its request: its log, and the credit it took (taken back once). */
export interface StreamCall {
  log: FastifyBaseLogger
  /** the credit the request took, cleared from the request so that it is given back only once (null: none) */
  takeCharge(): Charge | null
}

/** The headers of the event stream (text/event-stream, never buffered on the way). */
export const EVENT_STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
} as const

export interface AiHubDependencies {
  prisma: PrismaClient
  credits: CreditService
  env: Pick<Env, 'AI_BASE_URL' | 'AI_API_KEY' | 'AI_MODEL' | 'AI_TIMEOUT_MS'>
  /** where the extraction threads' warnings go (the app's log) */
  warn: (message: string) => void
}

/**
 * The AI Hub (spec 2 §2-§9, spec 4 §5; docs/decisions/0042-ai-hub.md), what routes/ai-hub/index.ts calls. Documents,
 * pins and templates are the caller's own (context.ts); who may use the hub and how an upload is read are in
 * uploads.ts, the analyst in generate.ts. Generation is a product call: allowed by, and metered against, the app it is
 * used from (body.productGroup): its refusals come before the credit is taken (prepareGeneration), and an answer that
 * fails on our side or the provider's while it streams gives the credit back (stream).
 */
export class AiHubService {
  readonly store: AiContextStore
  /** documents are read on worker threads with memory and time limits, never on the event loop (issue 32 §1) */
  private readonly extraction: ExtractionPool
  private readonly analyst: AiAnalyst
  private readonly credits: CreditService

  constructor({ prisma, credits, env, warn }: AiHubDependencies) {
    this.extraction = new ExtractionPool({}, warn)
    this.store = new AiContextStore(prisma)
    this.analyst = new AiAnalyst(
      prisma,
      this.store,
      env.AI_BASE_URL && env.AI_MODEL
        ? { baseUrl: env.AI_BASE_URL, apiKey: env.AI_API_KEY, model: env.AI_MODEL, timeoutMs: env.AI_TIMEOUT_MS }
        : null,
    )
    this.credits = credits
  }

  /** Ends the extraction threads (the server is stopping). */
  close(): Promise<void> {
    return this.extraction.close()
  }

  /** The hub is used by a staff role (HUB_ROLES, the route's guard) of a company with Atlas or Nova: 403 otherwise. */
  async assertHubAccess(companyId: number, readPolicy: PolicyReader): Promise<void> {
    if (!(await holdsProduct(readPolicy, companyId, 'ATLAS')) && !(await holdsProduct(readPolicy, companyId, 'NOVA'))) {
      throw forbidden(AUTH_MESSAGES.productDenied(`${PRODUCT_NAMES.ATLAS} or ${PRODUCT_NAMES.NOVA}`))
    }
  }

  /**
   * Before the credit is taken: the caller may use the app the generation is for (role, then the company's product),
   * and the question can be asked (a known template, a context that is not empty): the context is read once, and
   * the answer is made from it. The caller then takes one credit of `input.productGroup`.
   */
  async prepareGeneration(owner: Owner, role: Role, input: GenerationInput, readPolicy: PolicyReader): Promise<PreparedContext> {
    const product = input.productGroup
    assertAppRole(role, product)
    if (!(await holdsProduct(readPolicy, owner.company_id, product))) throw forbidden(AUTH_MESSAGES.productDenied(PRODUCT_NAMES[product]))
    return this.analyst.prepare(owner, input)
  }

  /** The answer in one piece. */
  answer(owner: Owner, input: GenerationInput, { pages, pins }: PreparedContext): Promise<AiResponse> {
    return this.analyst.answer(owner, input, pages, pins, () => undefined)
  }

  /**
   * The answer as an event stream: `delta` events of text as it is written, then `done` with the whole answer, or
   * `error` with the error envelope. Refusals came before the stream and the credit (prepareGeneration), with their
   * status; only the answer streams, so a failure here is told in the stream and, when it is on our side or the
   * provider's (5xx), the credit is given back.
   */
  stream(owner: Owner, input: GenerationInput, { pages, pins }: PreparedContext, call: StreamCall): Readable {
    const stream = new PassThrough()
    const event = (name: string, data: unknown) => {
      if (!stream.writableEnded) stream.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`)
    }
    void this.analyst
      .answer(owner, input, pages, pins, (text) => event('delta', { text }))
      .then((response) => event('done', response))
      .catch(async (error: unknown) => {
        let envelope: ErrorEnvelope
        if (error instanceof AppError) envelope = error.toEnvelope()
        else {
          call.log.error({ err: error }, 'AI Hub generation failed')
          envelope = { message: HTTP_MESSAGES.internal, code: ERROR_CODES.INTERNAL, status: 500 }
        }
        event('error', envelope)
        // the answer failed on our side or the provider's: the credit is given back
        if (envelope.status >= 500) {
          const charge = call.takeCharge()
          if (charge)
            await this.credits.refund(charge).catch((refundError: unknown) => call.log.warn({ err: refundError }, 'credit refund failed'))
        }
      })
      .finally(() => stream.end())
    return stream
  }

  /**
   * An upload of documents (multipart/form-data, 415 otherwise): read whole, then each document read on the
   * extraction threads and all of them stored together (uploads.ts addUploadedDocuments). A file over the size
   * limit or too many files is 413; no file, or a body that is not a well-formed form, is 400. A busy reader is
   * ReaderBusy (429 with the seconds to wait).
   */
  async upload(owner: Owner, body: UploadBody): Promise<AiDocument[]> {
    if (!body.multipart) {
      throw new AppError(
        415,
        ERROR_CODES.UNSUPPORTED_MEDIA_TYPE,
        `${HTTP_MESSAGES.unsupportedMediaType}: upload documents as multipart/form-data`,
      )
    }
    const files = await readUploadParts(body.parts())
    return addUploadedDocuments(this.store, this.extraction, owner, files)
  }
}

/** The files of a multipart body (its fields ignored), with the multipart reader's refusals as the API's errors. */
async function readUploadParts(parts: AsyncIterable<UploadPart>): Promise<UploadedFile[]> {
  const files: UploadedFile[] = []
  let current = ''
  try {
    for await (const part of parts) {
      if (part.type !== 'file') continue
      current = uploadName(part.filename)
      const bytes = await part.toBuffer()
      files.push({ filename: current, bytes })
    }
  } catch (error) {
    const code = (error as { code?: string }).code
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw new AppError(413, ERROR_CODES.PAYLOAD_TOO_LARGE, AI_HUB_MESSAGES.fileTooLarge(current))
    if (code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT')
      throw new AppError(413, ERROR_CODES.PAYLOAD_TOO_LARGE, AI_HUB_MESSAGES.tooManyFiles)
    if (
      code === 'FST_INVALID_MULTIPART_CONTENT_TYPE' ||
      code === 'FST_NO_FORM_DATA' ||
      (error as Error).message?.includes('Unexpected end of form')
    ) {
      throw badRequest(AI_HUB_MESSAGES.noFiles)
    }
    // no boundary, a boundary the body does not use, a body cut short: the client's fault (issue 32 §9)
    const malformed = malformedMultipart(error)
    if (malformed) throw new AppError(malformed.status, malformed.code, malformed.message)
    throw error
  }
  return files
}
