import multipart from '@fastify/multipart'
import { AI_MAX_FILE_BYTES, AI_MAX_FILES_PER_UPLOAD, aiHubEndpoints } from '@citrus/contracts'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import type { PolicyReader } from '../../domain/administration.js'
import { route } from '../../lib/endpoint.js'
import { policyOf, userOf } from '../../plugins/auth.js'
import type { Owner } from '../../services/ai-hub/context.js'
import { ReaderBusy } from '../../services/ai-hub/extract-pool.js'
import { AiHubService, EVENT_STREAM_HEADERS, type GenerationInput, type PreparedContext } from '../../services/ai-hub/service.js'
import { HUB_ROLES } from '../../services/ai-hub/uploads.js'

/**
 * The AI Hub API (spec 2 §2-§9, spec 4 §5; docs/decisions/0042-ai-hub.md). The rules (who may use the hub and each
 * app, the upload's reading and refusals, the analyst, the event stream and its credit) are in
 * services/ai-hub/service.ts; generation is metered against the app it is used from (body.productGroup).
 */
const ownerOf = (request: FastifyRequest): Owner => {
  const user = userOf(request)
  return { user_id: user.user_id, company_id: user.company_id }
}

/** The company policies as this request reads them: those read with the login principal (plugins/auth.ts policyOf). */
const policiesOf =
  (request: FastifyRequest): PolicyReader =>
  (companyId, product) =>
    policyOf(request, companyId, product)

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

  const hub = new AiHubService({
    prisma: app.db.prisma,
    credits: app.credits,
    env: app.config.env,
    warn: (message) => app.log.warn(message),
  })
  app.addHook('onClose', () => hub.close())
  const { store } = hub

  const staff = app.requireAccess({ roles: HUB_ROLES })
  async function hubAccess(request: FastifyRequest, reply: FastifyReply) {
    await staff(request, reply)
    await hub.assertHubAccess(userOf(request).company_id, policiesOf(request))
  }
  // the context each generation was prepared from, before its credit was taken (read by the handler)
  const prepared = new WeakMap<FastifyRequest, PreparedContext>()
  async function prepareAndMeter(request: FastifyRequest<{ Body: GenerationInput }>, reply: FastifyReply) {
    prepared.set(request, await hub.prepareGeneration(ownerOf(request), userOf(request).role, request.body, policiesOf(request)))
    await app.meterProduct(request.body.productGroup)(request, reply)
  }
  const contextOf = (request: FastifyRequest) => {
    const context = prepared.get(request)
    if (!context) throw new Error('the AI Hub context is read by the preHandler')
    return context
  }
  const guard = { onRequest: hubAccess }
  const generation = { onRequest: hubAccess, preHandler: prepareAndMeter }

  route(app, aiHubEndpoints.context, guard, async (request) => store.context(ownerOf(request)))
  route(app, aiHubEndpoints.listDocuments, guard, async (request) => ({ documents: await store.documents(ownerOf(request)) }))

  route(app, aiHubEndpoints.uploadDocuments, guard, async (request, reply) => {
    try {
      const documents = await hub.upload(ownerOf(request), { multipart: request.isMultipart(), parts: () => request.parts() })
      return reply.status(201).send({ documents })
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

  route(app, aiHubEndpoints.generate, generation, async (request) => hub.answer(ownerOf(request), request.body, contextOf(request)))

  route(app, aiHubEndpoints.generateStream, generation, async (request, reply) => {
    const stream = hub.stream(ownerOf(request), request.body, contextOf(request), {
      log: request.log,
      takeCharge: () => {
        const charge = request.creditCharge
        request.creditCharge = null
        return charge
      },
    })
    return reply.headers(EVENT_STREAM_HEADERS).send(stream as unknown as string) // a stream is sent as it is, not serialised
  })
}
