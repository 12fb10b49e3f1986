import { memberAccessEndpoints } from '@citrus/contracts'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { MemberAccessService } from '../../domain/member-access.js'
import { route } from '../../lib/endpoint.js'

/** Member sign-up and the verification codes of shareable links (docs/decisions/0023); the link token is the credential. */
export const memberAccessRoutes: FastifyPluginAsyncZod = async (app) => {
  const access = new MemberAccessService({ prisma: app.db.prisma, tokens: app.tokens, outbox: app.services.outbox })

  route(app, memberAccessEndpoints.memberSignup, {}, async (request) => access.memberSignup(request.query.token, request.body))
  route(app, memberAccessEndpoints.sendVerificationCode, {}, async (request) => access.sendCode(request.query.token, request.body))
  route(app, memberAccessEndpoints.confirmVerificationCode, {}, async (request) => access.confirmCode(request.query.token, request.body))
}
