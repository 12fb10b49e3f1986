import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { apiKeyResolver } from '../auth/api-keys.js'
import { authPlugin } from '../plugins/auth.js'
import { CREDITS_REMAINING_HEADER, creditsPlugin } from '../plugins/credits.js'

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>

/** The access rules of the /fhir interactions (fhir/index.ts). */
export interface FhirAccess {
  /** The guard alone, before any parsing: an anonymous caller learns nothing but 401. */
  guard: Hook
  /**
   * Access and metering: after the request is known to be valid (a 400 costs nothing), before the If-None-Match check:
   * a 304 costs what a 200 costs, as everywhere (docs/decisions/0077), so a company without credits gets 402.
   */
  admit: Hook
}

const open: Hook = async () => undefined

/**
 * Who may read the FHIR provider directory and what a call costs (docs/fhir.md): anyone when FHIR_PUBLIC=true;
 * otherwise a login token or an API key of a company with Care Select, one Care Select credit per answered call.
 * When calls are not public, the credential handling, API keys and credits are registered in the /fhir scope.
 */
export async function registerFhirAccess(app: FastifyInstance, publicAccess: boolean): Promise<FhirAccess> {
  if (publicAccess) return { guard: open, admit: open }
  await app.register(authPlugin)
  app.credentials.register(apiKeyResolver)
  await app.register(creditsPlugin)
  const careSelect = app.requireAccess({ product: 'CARE_SELECT' })
  return {
    guard: careSelect,
    async admit(request, reply) {
      await careSelect(request, reply)
      const charge = await app.meter(request, 'CARE_SELECT')
      if (charge.remaining !== null) reply.header(CREDITS_REMAINING_HEADER, String(charge.remaining))
    },
  }
}
