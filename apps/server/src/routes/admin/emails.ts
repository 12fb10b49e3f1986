import type { Role } from '@citrus/contracts'
import type { OutboxMessageInput } from '../../services/outbox.js'

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c)

const ROLE_WORDS: Record<Role, string> = { user: 'a user', admin: 'an admin', citrus: 'Citrus staff', member: 'a member' }

export function onboardingEmail(input: {
  to: string
  companyName: string
  role: Role
  invitedBy: string
  link: string
  isTrial: boolean
}): OutboxMessageInput {
  const { to, companyName, role, invitedBy, link, isTrial } = input
  const access = isTrial ? 'trial access' : 'access'
  const text = [
    'Hello,',
    '',
    `${invitedBy} invited you to join ${companyName} on Citrus as ${ROLE_WORDS[role]} (${access}).`,
    'Create your account with this link; it fills in your organization\'s activation key:',
    '',
    link,
    '',
    `Sign up with this e-mail address (${to}) to receive the role you were invited with.`,
  ].join('\n')
  const html =
    `<p>Hello,</p><p>${escapeHtml(invitedBy)} invited you to join ${escapeHtml(companyName)} on Citrus as ${ROLE_WORDS[role]} (${access}).</p>` +
    `<p><a href="${escapeHtml(link)}">Create your account</a></p>` +
    `<p>Sign up with this e-mail address (${escapeHtml(to)}) to receive the role you were invited with.</p>`
  return {
    channel: 'email',
    recipient: to,
    subject: `You're invited to ${companyName} on Citrus`,
    body: text,
    payload: { html, kind: 'onboarding', role, is_trial: isTrial },
  }
}
