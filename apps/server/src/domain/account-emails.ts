import type { Role } from '@citrus/contracts'
import type { OutboxMessageInput } from '../services/outbox.js'

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c)

export function passwordResetEmail(to: string, link: string, ttlSeconds: number): OutboxMessageInput {
  const minutes = Math.round(ttlSeconds / 60)
  const validity = minutes % 60 === 0 ? `${minutes / 60} hour${minutes === 60 ? '' : 's'}` : `${minutes} minutes`
  const text = [
    'Hello,',
    '',
    `We received a request to reset the password of your Citrus account (${to}).`,
    `Open this link within ${validity} to choose a new password. It works once:`,
    '',
    link,
    '',
    'If you did not ask for this, ignore this e-mail: your password stays the same.',
  ].join('\n')
  const html =
    `<p>Hello,</p><p>We received a request to reset the password of your Citrus account (${escapeHtml(to)}).<br>` +
    `Open this link within ${validity} to choose a new password. It works once:</p>` +
    `<p><a href="${escapeHtml(link)}">Reset your password</a></p>` +
    '<p>If you did not ask for this, ignore this e-mail: your password stays the same.</p>'
  return { channel: 'email', recipient: to, subject: 'Reset your Citrus password', body: text, payload: { html } }
}

/**
 * A reset request as recorded before the answer, the same for every address (issue 32 §5). Kept `held`, so never
 * sent as it is: it becomes the reset e-mail (same id) or is deleted when the address has no active account.
 */
export const RESET_REQUEST_KIND = 'password_reset_request'

export function passwordResetRequest(to: string) {
  return {
    channel: 'email',
    recipient: to,
    subject: 'Reset your Citrus password',
    body: 'Password reset requested; the e-mail is being prepared.',
    payload: { kind: RESET_REQUEST_KIND },
  } as const satisfies OutboxMessageInput
}

export function passwordChangedEmail(to: string): OutboxMessageInput {
  return {
    channel: 'email',
    recipient: to,
    subject: 'Your Citrus password was changed',
    body: [
      'Hello,',
      '',
      `The password of your Citrus account (${to}) was just changed.`,
      'If this was not you, reset your password at once and contact your administrator.',
    ].join('\n'),
  }
}

const ROLE_WORDS: Record<Role, string> = { user: 'a user', admin: 'an admin', citrus: 'Citrus staff', member: 'a member' }

export function onboardingEmail(input: {
  to: string
  companyName: string
  role: Role
  invitedBy: string
  link: string
  isTrial: boolean
  validDays: number
}): OutboxMessageInput {
  const { to, companyName, role, invitedBy, link, isTrial, validDays } = input
  const access = isTrial ? 'trial access' : 'access'
  const text = [
    'Hello,',
    '',
    `${invitedBy} invited you to join ${companyName} on Citrus as ${ROLE_WORDS[role]} (${access}).`,
    `Create your account with this link within ${validDays} days; it works once and fills in your organization's activation key:`,
    '',
    link,
    '',
    `Sign up with this e-mail address (${to}) through this link to receive the role you were invited with.`,
  ].join('\n')
  const html =
    `<p>Hello,</p><p>${escapeHtml(invitedBy)} invited you to join ${escapeHtml(companyName)} on Citrus as ${ROLE_WORDS[role]} (${access}).</p>` +
    `<p><a href="${escapeHtml(link)}">Create your account</a> (within ${validDays} days; the link works once)</p>` +
    `<p>Sign up with this e-mail address (${escapeHtml(to)}) through this link to receive the role you were invited with.</p>`
  return {
    channel: 'email',
    recipient: to,
    subject: `You're invited to ${companyName} on Citrus`,
    body: text,
    payload: { html, kind: 'onboarding', role, is_trial: isTrial },
  }
}
