import {
  MEMBER_LINK_MESSAGES,
  REFERRAL_LETTER_FILENAME,
  ROLES,
  careSelectEndpoints,
  normalizeUsPhone,
  type ParsedRankingsQuery,
} from '@citrus/contracts'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { badRequest, notFound } from '../../lib/errors.js'
import { route, sendJsonText } from '../../lib/endpoint.js'
import { userOf } from '../../plugins/auth.js'
import { CREDITS_REMAINING_HEADER } from '../../plugins/credits.js'
import { rankProviders, rankingsJson, resolveSearch, type ResolvedSearch } from '../../services/care-select/rankings.js'
import { renderReferralLetter, type LetterProvider } from '../../services/care-select/referral-letter.js'

const STAFF = ['admin', 'citrus', 'user'] as const

/** The referral letter's selected clinicians and facilities (by NPI), with a clinician's facility name. */
const LETTER_SELECTION_SQL = `
SELECT
  (SELECT coalesce(json_agg(json_build_object(
      'npi', p.npi, 'full_name', p.full_name, 'cms_specialization', p.cms_specialization, 'address', p.address,
      'city', p.city, 'state', p.state, 'zip_code', p.zip_code, 'phone_number', p.phone_number, 'facility_name', f.name)), '[]')
   FROM providers p LEFT JOIN facilities f ON f.id = p.facility_id WHERE p.npi = ANY($1::bpchar[])) AS clinicians,
  (SELECT coalesce(json_agg(json_build_object(
      'npi', f.npi, 'name', f.name, 'hco_compile_level_1', f.hco_compile_level_1, 'address_line_1', f.address_line_1,
      'city', f.city, 'state', f.state, 'zip_code', f.zip_code, 'phone_number', f.phone_number)), '[]')
   FROM facilities f WHERE f.npi = ANY($1::bpchar[])) AS facilities`

interface LetterClinician {
  npi: string
  full_name: string
  cms_specialization: string
  address: string
  city: string
  state: string
  zip_code: string
  phone_number: string | null
  facility_name: string | null
}
interface LetterFacility {
  npi: string
  name: string
  hco_compile_level_1: string
  address_line_1: string
  city: string
  state: string
  zip_code: string
  phone_number: string | null
}

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
      const search = await resolveSearch(pool, request.query)
      // The credit is taken while the search runs (docs/decisions/0047), on a cache hit too (0060): a refusal (402)
      // discards the ranking, and both settle before an error is thrown so that a failed search's credit is known
      // to the refund (5xx).
      const [charged, ranked] = await Promise.allSettled([
        app.meter(request, 'CARE_SELECT'),
        rankingsJson(pool, search, request.query._bypass_cache),
      ])
      if (charged.status === 'rejected') throw charged.reason
      if (ranked.status === 'rejected') throw ranked.reason
      const charge = charged.value
      if (charge.remaining !== null) reply.header(CREDITS_REMAINING_HEADER, String(charge.remaining))
      // Sent as written (JSON.stringify of the typed RankingsResponse, kept with the search's scoring: 0063), not through
      // the zod serialiser: validating this large answer on every response cost 6-17 ms, more than the search's SQL.
      // The integration tests parse every answer with rankingsResponseSchema. The answer has no per-request field.
      return sendJsonText(reply, ranked.value.body)
    },
  )

  route(
    app,
    careSelectEndpoints.referralLetter,
    { onRequest: app.requireAccess({ roles: [...STAFF], product: 'CARE_SELECT' }) },
    async (request, reply) => {
      const user = userOf(request)
      const body = request.body
      const npis = [...new Set(body.selected_npis)]
      // The search the selection came from (for the scores), parsed by the contract; the selection is its filter.
      const parsedSearch: ParsedRankingsQuery | null = body.search && npis.length > 0 ? { ...body.search, filter_npis: npis } : null
      // The selection's rows and the search's inputs are read together (one round trip each, on the pool); an
      // unknown NPI is reported before an invalid search.
      const [selection, resolved] = await Promise.allSettled([
        pool.query<{ clinicians: LetterClinician[]; facilities: LetterFacility[] }>(LETTER_SELECTION_SQL, [npis]),
        parsedSearch ? resolveSearch(pool, parsedSearch) : Promise.resolve(null),
      ])
      if (selection.status === 'rejected') throw selection.reason
      const { clinicians, facilities } = selection.value.rows[0] as { clinicians: LetterClinician[]; facilities: LetterFacility[] }
      const unknown = npis.find((npi) => !clinicians.some((c) => c.npi === npi) && !facilities.some((f) => f.npi === npi))
      if (unknown)
        throw badRequest(`Unknown NPI ${unknown} in selected_npis`, [{ path: 'body.selected_npis', message: `Unknown NPI ${unknown}` }])
      if (resolved.status === 'rejected') throw resolved.reason
      const search: ResolvedSearch | null = resolved.value

      // The credit is taken while the search is scored (as for rankings, docs/decisions/0047).
      const [charged, ranked] = await Promise.allSettled([
        app.meter(request, 'CARE_SELECT'),
        // the clinician's search was just scored: its scoring comes from the result cache (docs/decisions/0060)
        search ? rankProviders(pool, search, parsedSearch?._bypass_cache ?? false) : Promise.resolve(null),
      ])
      if (charged.status === 'rejected') throw charged.reason
      if (ranked.status === 'rejected') throw ranked.reason
      const charge = charged.value
      const rankings = ranked.value ? { hcp: ranked.value.hcp_rankings, hco: ranked.value.hco_rankings } : { hcp: [], hco: [] }
      if (charge.remaining !== null) reply.header(CREDITS_REMAINING_HEADER, String(charge.remaining))

      const providers: LetterProvider[] = npis.map((npi) => {
        const clinician = clinicians.find((c) => c.npi === npi)
        if (clinician) {
          return {
            kind: 'HCP',
            npi,
            name: clinician.full_name,
            specialty: clinician.cms_specialization,
            address: `${clinician.address}, ${clinician.city}, ${clinician.state} ${clinician.zip_code}`,
            phone_number: clinician.phone_number,
            affiliation: clinician.facility_name,
            ranking: rankings.hcp.find((r) => r.hcp_entity.npi === npi) ?? null,
          }
        }
        const facility = facilities.find((f) => f.npi === npi)!
        return {
          kind: 'HCO',
          npi,
          name: facility.name,
          specialty: facility.hco_compile_level_1,
          address: `${facility.address_line_1}, ${facility.city}, ${facility.state} ${facility.zip_code}`,
          phone_number: facility.phone_number,
          affiliation: null,
          ranking: rankings.hco.find((r) => r.hco_npi === npi) ?? null,
        }
      })
      const pdf = await renderReferralLetter({
        patient_name: body.patient_name,
        dob: body.dob,
        condition: body.condition,
        destination_fax: body.destination_fax,
        referring: { email: user.email, company_name: user.company_name, role: user.role },
        search: search ? { city: search.city, state: search.state, zip: search.zip, specialty: search.specialty } : null,
        providers,
        generated_at: new Date(),
      })
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
    async (request) => {
      const user = userOf(request)
      const body = request.body
      const link = await prisma.shareableLink.findUnique({ where: { id: body.share_id } })
      if (
        !link ||
        link.company_id !== user.company_id ||
        link.revoked_at !== null ||
        (link.expires_at !== null && link.expires_at <= new Date())
      )
        throw notFound(MEMBER_LINK_MESSAGES.linkUnknown)
      // The URL sent must be this link's (its token names the link) on this server's public origin.
      const url = parseUrl(body.shareable_url)
      const token = url?.searchParams.get('token')
      const verified = token ? app.tokens.verifyShare(token) : null
      if (!url || url.origin !== new URL(app.services.publicUrl).origin || !verified?.ok || verified.claims.id !== link.id) {
        throw badRequest(MEMBER_LINK_MESSAGES.urlMismatch, [{ path: 'body.shareable_url', message: MEMBER_LINK_MESSAGES.urlMismatch }])
      }
      const intro = `${user.company_name} shared provider recommendations with you.`
      if (body.contact_type === 'phone') {
        const phone = normalizeUsPhone(body.member_contact)
        if (!phone.ok) throw badRequest(phone.message, [{ path: 'body.member_contact', message: phone.message }])
        const message = await app.services.outbox.enqueue({
          channel: 'sms',
          recipient: phone.e164,
          body: `${intro} Open: ${url.href}`,
          payload: { kind: 'member_link', share_id: link.id },
        })
        return { message_id: message.id }
      }
      const email = body.member_contact.trim().toLowerCase()
      const message = await app.services.outbox.enqueue({
        channel: 'email',
        recipient: email,
        subject: 'Your provider recommendations',
        body: `${intro}\n\nOpen your recommendations: ${url.href}\n\nYou will be asked to confirm this e-mail address before they are shown.`,
        payload: {
          kind: 'member_link',
          share_id: link.id,
          html: `<p>${escapeHtml(intro)}</p><p><a href="${escapeHtml(url.href)}">Open your recommendations</a></p><p>You will be asked to confirm this e-mail address before they are shown.</p>`,
        },
      })
      return { message_id: message.id }
    },
  )
}

function parseUrl(text: string): URL | null {
  try {
    return new URL(text)
  } catch {
    return null
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}
