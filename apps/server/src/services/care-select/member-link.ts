import { MEMBER_LINK_MESSAGES, normalizeUsPhone, type sendMemberLinkRequestSchema } from '@citrus/contracts'
import type { z } from 'zod'
import type { UserPrincipal } from '../../auth/principal.js'
import type { ShareTokenClaims, Verified } from '../../auth/tokens.js'
import type { PrismaClient } from '../../generated/prisma/client.js'
import { badRequest, notFound } from '../../lib/errors.js'
import type { Outbox } from '../outbox.js'

export type MemberLinkInput = z.output<typeof sendMemberLinkRequestSchema>

/** What sending a member link needs of the app. */
export interface MemberLinkDeps {
  prisma: PrismaClient
  outbox: Outbox
  /** this server's public origin (PUBLIC_URL) */
  publicUrl: string
  verifyShare: (token: string) => Verified<ShareTokenClaims>
}

/** The staff member sending the link: their company (the link must be its own). */
export type MemberLinkSender = Pick<UserPrincipal, 'company_id' | 'company_name'>

/**
 * Sends a member the link to their recommendations (spec 3 §5) by SMS or e-mail through the outbox: the link must be
 * the sender's company's, live, and the URL sent must be this link's (its token names it) on this server's origin.
 */
export async function sendMemberLink(
  deps: MemberLinkDeps,
  sender: MemberLinkSender,
  body: MemberLinkInput,
): Promise<{ message_id: string }> {
  const link = await deps.prisma.shareableLink.findUnique({ where: { id: body.share_id } })
  if (
    !link ||
    link.company_id !== sender.company_id ||
    link.revoked_at !== null ||
    (link.expires_at !== null && link.expires_at <= new Date())
  )
    throw notFound(MEMBER_LINK_MESSAGES.linkUnknown)
  // The URL sent must be this link's (its token names the link) on this server's public origin.
  const url = parseUrl(body.shareable_url)
  const token = url?.searchParams.get('token')
  const verified = token ? deps.verifyShare(token) : null
  if (!url || url.origin !== new URL(deps.publicUrl).origin || !verified?.ok || verified.claims.id !== link.id) {
    throw badRequest(MEMBER_LINK_MESSAGES.urlMismatch, [{ path: 'body.shareable_url', message: MEMBER_LINK_MESSAGES.urlMismatch }])
  }
  const intro = `${sender.company_name} shared provider recommendations with you.`
  if (body.contact_type === 'phone') {
    const phone = normalizeUsPhone(body.member_contact)
    if (!phone.ok) throw badRequest(phone.message, [{ path: 'body.member_contact', message: phone.message }])
    const message = await deps.outbox.enqueue({
      channel: 'sms',
      recipient: phone.e164,
      body: `${intro} Open: ${url.href}`,
      payload: { kind: 'member_link', share_id: link.id },
    })
    return { message_id: message.id }
  }
  const email = body.member_contact.trim().toLowerCase()
  const message = await deps.outbox.enqueue({
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
