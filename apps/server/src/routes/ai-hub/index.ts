import { PassThrough } from 'node:stream'
import multipart from '@fastify/multipart'
import {
  AI_HUB_MESSAGES,
  AI_MAX_FILE_BYTES,
  AI_MAX_FILES_PER_UPLOAD,
  AUTH_MESSAGES,
  ERROR_CODES,
  HTTP_MESSAGES,
  PRODUCT_NAMES,
  aiHubEndpoints,
  type AiHubProduct,
  type ErrorEnvelope,
} from '@citrus/contracts'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { AiContextStore, type Owner } from '../../domain/ai-hub/context.js'
import { ExtractionPool, ReaderBusy } from '../../domain/ai-hub/extract-pool.js'
import { AiAnalyst } from '../../domain/ai-hub/generate.js'
import { HUB_ROLES, addUploadedDocuments, assertAppRole, uploadName, type UploadedFile } from '../../domain/ai-hub/uploads.js'
import { route } from '../../lib/endpoint.js'
import { AppError, badRequest, forbidden } from '../../lib/errors.js'
import { companyHasProduct, userOf } from '../../plugins/auth.js'
import { malformedMultipart } from '../../plugins/error-handler.js'

/**
 * The AI Hub API (spec 2 §2-§9, spec 4 §5; docs/decisions/0042-ai-hub.md). Documents, pins and templates are
 * the caller's own (domain/ai-hub/context.ts); who may use the hub and how an upload is read are in
 * domain/ai-hub/uploads.ts, the analyst in domain/ai-hub/generate.ts. Generation is a product call: allowed by, and
 * metered against, the app it is used from (body.productGroup).
 */
const ownerOf = (request: FastifyRequest): Owner => {
  const user = userOf(request)
  return { user_id: user.user_id, company_id: user.company_id }
}

export const aiHubRoutes: FastifyPluginAsyncZod = async (app) => {
  await app.register(multipart, {
    limits: {
      fileSize: AI_MAX_FILE_BYTES,
      files: AI_MAX_FILES_PER_UPLOAD,
      fields: 20,
      fieldSize: 1024,
      parts: AI_MAX_FILES_PER_UPLOAD + 20,
    },
  })

  // documents are read on worker threads with memory and time limits, never on the event loop (issue 32 §1)
  const extraction = new ExtractionPool({}, (message) => app.log.warn(message))
  app.addHook('onClose', () => extraction.close())

  const store = new AiContextStore(app.db.prisma)
  const env = app.config.env
  const analyst = new AiAnalyst(
    app.db.prisma,
    store,
    env.AI_BASE_URL && env.AI_MODEL
      ? { baseUrl: env.AI_BASE_URL, apiKey: env.AI_API_KEY, model: env.AI_MODEL, timeoutMs: env.AI_TIMEOUT_MS }
      : null,
  )

  const staff = app.requireAccess({ roles: HUB_ROLES })
  /** A staff role of a company with Atlas or Nova. */
  async function hubAccess(request: FastifyRequest, reply: FastifyReply) {
    await staff(request, reply)
    const { company_id } = userOf(request)
    if (!(await companyHasProduct(request, company_id, 'ATLAS')) && !(await companyHasProduct(request, company_id, 'NOVA'))) {
      throw forbidden(AUTH_MESSAGES.productDenied(`${PRODUCT_NAMES.ATLAS} or ${PRODUCT_NAMES.NOVA}`))
    }
  }
  const prepared = new WeakMap<FastifyRequest, Awaited<ReturnType<AiAnalyst['prepare']>>>()
  /**
   * After validation: the caller may use the app the generation is for, the question can be asked (a known
   * template, a context that is not empty: read once, kept for the handler); then one credit of that app.
   */
  async function appAccessAndMeter(
    request: FastifyRequest<{ Body: { productGroup: AiHubProduct; prompt: string; templateId?: string | null | undefined } }>,
    reply: FastifyReply,
  ) {
    const product = request.body.productGroup
    const user = userOf(request)
    assertAppRole(user.role, product)
    if (!(await companyHasProduct(request, user.company_id, product))) throw forbidden(AUTH_MESSAGES.productDenied(PRODUCT_NAMES[product]))
    prepared.set(request, await analyst.prepare(ownerOf(request), request.body))
    await app.meterProduct(product)(request, reply)
  }
  const guard = { onRequest: hubAccess }

  route(app, aiHubEndpoints.context, guard, async (request) => store.context(ownerOf(request)))
  route(app, aiHubEndpoints.listDocuments, guard, async (request) => ({ documents: await store.documents(ownerOf(request)) }))

  route(app, aiHubEndpoints.uploadDocuments, guard, async (request, reply) => {
    const owner = ownerOf(request)
    if (!request.isMultipart()) {
      throw new AppError(
        415,
        ERROR_CODES.UNSUPPORTED_MEDIA_TYPE,
        `${HTTP_MESSAGES.unsupportedMediaType}: upload documents as multipart/form-data`,
      )
    }
    const files: UploadedFile[] = []
    let current = ''
    try {
      for await (const part of request.parts()) {
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
    try {
      return reply.status(201).send({ documents: await addUploadedDocuments(store, extraction, owner, files) })
    } catch (error) {
      // the reader was busy with other documents: when to try again (the error handler keeps the header)
      if (error instanceof ReaderBusy) reply.header('retry-after', String(error.retryAfterSeconds))
      throw error
    }
  })

  route(app, aiHubEndpoints.deleteDocument, guard, async (request, reply) => {
    await store.deleteDocument(ownerOf(request), request.params.document_id)
    return reply.status(204).send()
  })

  route(app, aiHubEndpoints.listPins, guard, async (request) => ({ pinnedInsights: await store.pins(ownerOf(request)) }))
  route(app, aiHubEndpoints.pin, guard, async (request, reply) => reply.status(201).send(await store.pin(ownerOf(request), request.body)))
  route(app, aiHubEndpoints.unpin, guard, async (request, reply) => {
    await store.unpin(ownerOf(request), request.params.pin_id)
    return reply.status(204).send()
  })
  route(app, aiHubEndpoints.clearPins, guard, async (request, reply) => {
    await store.clearPins(ownerOf(request))
    return reply.status(204).send()
  })
  route(app, aiHubEndpoints.reorderPins, guard, async (request) => ({
    pinnedInsights: await store.reorderPins(ownerOf(request), request.body.ids),
  }))
  route(app, aiHubEndpoints.templates, guard, async (request) => ({ templates: await store.templates(ownerOf(request)) }))

  // the context appAccessAndMeter read for the request (before its credit was taken)
  const contextOf = (request: FastifyRequest) => {
    const context = prepared.get(request)
    if (!context) throw new Error('the AI Hub context is read by the preHandler')
    return context
  }

  route(app, aiHubEndpoints.generate, { onRequest: hubAccess, preHandler: appAccessAndMeter }, async (request) => {
    const { pages, pins } = contextOf(request)
    return analyst.answer(ownerOf(request), request.body, pages, pins, () => undefined)
  })

  route(app, aiHubEndpoints.generateStream, { onRequest: hubAccess, preHandler: appAccessAndMeter }, async (request, reply) => {
    const owner = ownerOf(request)
    // Refusals came before the credit and the stream (appAccessAndMeter), with their status; only the answer streams.
    const { pages, pins } = contextOf(request)
    const stream = new PassThrough()
    const event = (name: string, data: unknown) => {
      if (!stream.writableEnded) stream.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`)
    }
    void analyst
      .answer(owner, request.body, pages, pins, (text) => event('delta', { text }))
      .then((response) => event('done', response))
      .catch(async (error: unknown) => {
        let envelope: ErrorEnvelope
        if (error instanceof AppError) envelope = error.toEnvelope()
        else {
          request.log.error({ err: error }, 'AI Hub generation failed')
          envelope = { message: HTTP_MESSAGES.internal, code: ERROR_CODES.INTERNAL, status: 500 }
        }
        event('error', envelope)
        // the answer failed on our side or the provider's: the credit is given back
        const charge = request.creditCharge
        if (charge && envelope.status >= 500) {
          request.creditCharge = null
          await app.credits.refund(charge).catch((refundError: unknown) => request.log.warn({ err: refundError }, 'credit refund failed'))
        }
      })
      .finally(() => stream.end())
    return reply
      .header('content-type', 'text/event-stream; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('x-accel-buffering', 'no')
      .send(stream as unknown as string) // a stream is sent as it is, not serialised
  })
}
