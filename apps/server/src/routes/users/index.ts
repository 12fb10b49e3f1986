import { memberAccessEndpoints, usersEndpoints } from '@citrus/contracts'
import type { FastifyInstance } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { AccountService } from '../../domain/accounts.js'
import { MemberAccessService } from '../../domain/member-access.js'
import { SignupService } from '../../domain/signup.js'
import { accountInfo } from '../../domain/users.js'
import { route } from '../../lib/endpoint.js'
import { userOf } from '../../plugins/auth.js'

// Keyed by the HTTP server (as servicesOf): tests wait for the reset e-mails prepared after the answer.
const accountServices = new WeakMap<object, AccountService>()

export function accountsOf(app: FastifyInstance): AccountService {
  const accounts = accountServices.get(app.server)
  if (!accounts) throw new Error('the users routes are not registered on this app')
  return accounts
}

/** Handlers stay thin: the logic and the credential limits are in domain/accounts.ts, domain/signup.ts and domain/users.ts. */
export const userRoutes: FastifyPluginAsyncZod = async (app) => {
  const { prisma } = app.db
  const limits = app.credentialLimiters
  const accounts = new AccountService({
    prisma,
    tokens: app.tokens,
    outbox: app.services.outbox,
    publicUrl: app.services.publicUrl,
    limits,
    log: app.log,
  })
  const signups = new SignupService(prisma, limits)
  accountServices.set(app.server, accounts)
  app.addHook('onClose', async () => {
    await accounts.stop()
    accountServices.delete(app.server)
  })

  route(app, usersEndpoints.login, {}, async (request) => accounts.login(request.ip, request.body))

  route(app, usersEndpoints.signup, {}, async (request) => signups.signUp(request.ip, request.body))

  route(app, usersEndpoints.passwordResetEmail, {}, async (request) => accounts.requestPasswordReset(request.ip, request.body))

  route(app, usersEndpoints.passwordReset, {}, async (request) => accounts.resetPassword(request.ip, request.body))

  route(app, usersEndpoints.info, { onRequest: app.authenticate }, async (request) => accountInfo(prisma, userOf(request).user_id))

  route(app, usersEndpoints.verify, {}, async (request) => accounts.verifyContact(request.ip, request.body))

  // member sign-up and the verification codes of shareable links (issue 11, docs/decisions/0023): the link token is
  // the credential
  const access = new MemberAccessService({ prisma, tokens: app.tokens, outbox: app.services.outbox })
  route(app, memberAccessEndpoints.memberSignup, {}, async (request) => access.memberSignup(request.query.token, request.body))
  route(app, memberAccessEndpoints.sendVerificationCode, {}, async (request) => access.sendCode(request.query.token, request.body))
  route(app, memberAccessEndpoints.confirmVerificationCode, {}, async (request) => access.confirmCode(request.query.token, request.body))
}
