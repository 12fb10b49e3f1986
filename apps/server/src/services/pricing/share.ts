import { PRICE_CHECK_MESSAGES, PROVIDER_SHARE_DAYS } from '@citrus/contracts'
import type { UserPrincipal } from '../../auth/principal.js'
import { signShareToken } from '../../auth/tokens.js'
import type { PrismaClient } from '../../generated/prisma/client.js'
import { notFound } from '../../lib/errors.js'

/**
 * A member shares a provider cost page: the server fixes the scope (this page, its endpoint, public,
 * PROVIDER_SHARE_DAYS days). The page is a clinician's or a facility's, as GET /cost-transparency/provider/{npi}
 * reads it; an NPI of neither is a 404.
 */
export async function shareProviderPage(
  deps: { prisma: PrismaClient; secret: string; publicUrl: string },
  user: Pick<UserPrincipal, 'company_id' | 'user_id'>,
  npi: string,
): Promise<{ id: string; url: string; expires_at: string }> {
  const { prisma } = deps
  // on the primary, as the link written below: a write path, not a read-only look-up (docs/decisions/0078)
  const [provider, facility] = await Promise.all([
    prisma.provider.findUnique({ where: { npi }, select: { id: true } }),
    prisma.facility.findUnique({ where: { npi }, select: { id: true } }),
  ])
  if (!provider && !facility) throw notFound(PRICE_CHECK_MESSAGES.providerNotFound(npi))
  const page = `/provider-cost-transparency/${npi}`
  const expires = new Date(Date.now() + PROVIDER_SHARE_DAYS * 24 * 60 * 60 * 1000)
  const link = await prisma.shareableLink.create({
    data: {
      company_id: user.company_id,
      created_by_user_id: user.user_id,
      url: page,
      url_type: 'public',
      expiration_days: PROVIDER_SHARE_DAYS,
      expires_at: expires,
      client_routes: [page],
      api_endpoints: [`GET /cost-transparency/provider/${npi}`],
      incoming_url: page,
      authorized_user_ids: [],
      role: 'member',
    },
  })
  const token = await signShareToken(deps.secret, link)
  return { id: link.id, url: `${deps.publicUrl}${page}?token=${encodeURIComponent(token)}`, expires_at: expires.toISOString() }
}
