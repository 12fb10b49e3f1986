import { REFERRAL_LETTER_FILENAME, ROLES, careSelectEndpoints } from '@citrus/contracts'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { route, sendJsonText } from '../../lib/endpoint.js'
import { requestDataVersion } from '../../lib/versioned-cache.js'
import { userOf } from '../../plugins/auth.js'
import { CREDITS_REMAINING_HEADER } from '../../plugins/credits.js'
import { sendMemberLink } from '../../services/care-select/member-link.js'
import { answerRankings } from '../../services/care-select/rankings.js'
import { referralLetter } from '../../services/care-select/referral-letter.js'

const STAFF = ['admin', 'citrus', 'user'] as const

/**
 * Care Select (spec 3 §7, spec 4 §5). Rankings: staff (Care Connect), members (recommendations) and link
 * guests whose link lists the endpoint, all for a company with CARE_SELECT; one credit per answered search
 * (taken after the inputs are known to be valid, so a 400 costs nothing). The referral letter and the member
 * link belong to the clinician view (staff roles).
 */
export const careSelectRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool, prisma } = app.db

  route(
    app,
    careSelectEndpoints.rankings,
    {
      onRequest: app.requireAccess({ roles: [...ROLES, 'guest'], product: 'CARE_SELECT' }),
      // a repeat with the answer's ETag: 304 before the search is resolved or scored, a credit taken as for a 200
      // (one credit per answered search: docs/decisions/0060, 0077)
      preHandler: app.conditional({
        beforeNotModified: async (request, reply) => {
          const charge = await app.meter(request, 'CARE_SELECT')
          if (charge.remaining !== null) reply.header(CREDITS_REMAINING_HEADER, String(charge.remaining))
        },
      }),
    },
    async (request, reply) => {
      const { body, charge } = await answerRankings(
        pool,
        request.query,
        () => app.meter(request, 'CARE_SELECT'),
        await requestDataVersion(request),
      )
      if (charge.remaining !== null) reply.header(CREDITS_REMAINING_HEADER, String(charge.remaining))
      // Sent as written (JSON.stringify of the typed RankingsResponse, kept with the search's scoring: 0063), not through
      // the zod serialiser: validating this large answer on every response cost 6-17 ms, more than the search's SQL.
      // The integration tests parse every answer with rankingsResponseSchema. The answer has no per-request field.
      return sendJsonText(reply, body)
    },
  )

  route(
    app,
    careSelectEndpoints.referralLetter,
    { onRequest: app.requireAccess({ roles: [...STAFF], product: 'CARE_SELECT' }) },
    async (request, reply) => {
      // the credit is taken while the search is scored (as for rankings, docs/decisions/0047)
      const { pdf, charge } = await referralLetter(pool, userOf(request), request.body, () => app.meter(request, 'CARE_SELECT'))
      if (charge.remaining !== null) reply.header(CREDITS_REMAINING_HEADER, String(charge.remaining))
      return reply
        .type('application/pdf')
        .header('content-disposition', `attachment; filename="${REFERRAL_LETTER_FILENAME}"`)
        .header('cache-control', 'no-store')
        .send(pdf)
    },
  )

  route(
    app,
    careSelectEndpoints.sendMemberLink,
    { onRequest: app.requireAccess({ roles: [...STAFF], product: 'CARE_SELECT' }) },
    async (request) =>
      sendMemberLink(
        { prisma, outbox: app.services.outbox, publicUrl: app.services.publicUrl, verifyShare: (token) => app.tokens.verifyShare(token) },
        userOf(request),
        request.body,
      ),
  )
}
