import { z } from 'zod'
import { EMAIL_PATTERN, MESSAGES } from './validation.js'
import { defineEndpoint } from './endpoint.js'

/**
 * Member access to a shared link (spec 3 §4.2, §8; spec 4 §5; docs/decisions/0023): verification codes sent to
 * the link's e-mail or phone (6 digits, 10 minutes, 5 attempts, resend), and the member sign-up of a link.
 */
export const VERIFICATION_CODE_LENGTH = 6
export const VERIFICATION_CODE_TTL_SECONDS = 10 * 60
export const VERIFICATION_MAX_ATTEMPTS = 5
/** codes a link may send per channel within VERIFICATION_CODE_TTL_SECONDS (first send and resends) */
export const VERIFICATION_MAX_SENDS = 5
/** how long a verified link token stays valid */
export const VERIFIED_LINK_TTL_SECONDS = 30 * 24 * 60 * 60

/** Messages of the access modals (spec 3 §5, §8) and of these endpoints. Pinned in test/messages-care.test.ts. */
export const ACCESS_MESSAGES = {
  phoneMismatch: "The phone number doesn't match our records",
  emailMismatch: "The email doesn't match our records",
  notAuthorized: 'You are not authorized to access this content',
  invalidToken: 'Invalid or expired token',
  noValidToken: 'No valid token found',
  credentialsRequired: 'Email and password are required',
  /** the access modal's phone rule: 10 digits (spec 3 §5) */
  phoneDigits: 'Please enter a valid phone number',
  confirmPassword: 'Please confirm your password',
  passwordsDiffer: 'Passwords do not match',
  /** the access modal's new-password rule (spec 3 §5) */
  memberPasswordRule: 'Password must be at least 6 characters with a number, uppercase, or special character',
  loginFailed: 'Failed to login',
  noUserId: 'Could not get user ID after login',
  verificationFailed: 'Verification failed',
  resendFailed: 'Failed to resend code',
  userVerificationFailed: 'User verification failed',
  needContact: 'At least one of email or phone must be provided for verification',
  missingToken: 'Missing required token parameter',
  noToken: 'No token provided',
  accountCreationFailed: 'Account creation failed. Please try again.',
  restrictedTitle: 'Access Restricted',
  restricted:
    'You are not authorized to view these provider recommendations. This content was shared with specific individuals. If you believe you should have access, please contact support for assistance.',
  requiredTitle: 'Access Required',
  required: 'You need a valid account or invitation link to view provider recommendations. Please sign in or contact support for access.',
  codeExpired: 'This code has expired. Please request a new code.',
  codeLocked: 'Too many incorrect attempts. Please request a new code.',
  tooManyCodes: 'Too many codes were requested. Please try again in a few minutes.',
  verificationNeeded: 'Verify your e-mail or phone number before creating the account',
  codeUsed: 'This code has already been used. Please request a new code.',
  signupNotAllowed: 'This link does not allow creating an account',
  emailChannelNotUsed: 'This link does not verify an e-mail address',
  phoneChannelNotUsed: 'This link does not verify a phone number',
  codeSent: (channel: 'email' | 'phone') =>
    `We sent a ${VERIFICATION_CODE_LENGTH}-digit code to your ${channel === 'email' ? 'e-mail' : 'phone'}.`,
} as const

/**
 * The access modal's new-password rule (spec 3 §5), shared by the modal and POST /users/member-signup: required, and
 * at least 6 characters with a number, an upper-case letter or a special character. It answers the message, or null.
 */
export function memberPasswordError(password: string): string | null {
  if (password === '') return MESSAGES.passwordRequired
  return password.length >= 6 && /[0-9A-Z#?!@$ %^&*-]/.test(password) ? null : ACCESS_MESSAGES.memberPasswordRule
}

/** Which of the access modal's fields a step checks: a new password (with its confirmation) or a sign-in password. */
export interface MemberAccessChecks {
  email?: boolean
  phone?: boolean
  password?: 'new' | 'sign-in'
}

/**
 * The access modal's fields (spec 3 §5) checked as the step needs: the e-mail ('Email is required', 'Please enter a
 * valid email address'), the phone (10 digits: 'Phone number is required', 'Please enter a valid phone number'), a new
 * password by memberPasswordError's rule and its confirmation ('Please confirm your password', 'Passwords do not
 * match'), or a sign-in password ('Password is required'). One message per field.
 */
export function memberAccessFormSchema(checks: MemberAccessChecks) {
  // one non-aborting check per field, so that the confirmation is checked whatever the other fields hold
  const email = z
    .string()
    .trim()
    .refine((value) => EMAIL_PATTERN.test(value), {
      error: (issue) => (issue.input === '' ? MESSAGES.emailRequired : MESSAGES.emailInvalid),
    })
  const phone = z
    .string()
    .transform((value) => value.replace(/\D/g, ''))
    .refine((digits) => digits.length === 10, {
      error: (issue) => (issue.input === '' ? MESSAGES.phoneRequired : ACCESS_MESSAGES.phoneDigits),
    })
  const password =
    checks.password === 'new'
      ? z.string().refine((value) => memberPasswordError(value) === null, { error: (issue) => memberPasswordError(issue.input as string) })
      : checks.password === 'sign-in'
        ? z.string().min(1, MESSAGES.passwordRequired)
        : z.string()
  return z
    .object({ email: checks.email ? email : z.string(), phone: checks.phone ? phone : z.string(), password, confirmation: z.string() })
    .superRefine((form, ctx) => {
      if (checks.password !== 'new') return
      if (form.confirmation === '') ctx.addIssue({ code: 'custom', path: ['confirmation'], message: ACCESS_MESSAGES.confirmPassword })
      else if (form.confirmation !== form.password)
        ctx.addIssue({ code: 'custom', path: ['confirmation'], message: ACCESS_MESSAGES.passwordsDiffer })
    })
}

const tokenQuery = z.object({
  token: z.string({ error: ACCESS_MESSAGES.missingToken }).min(1, ACCESS_MESSAGES.missingToken).max(4096),
})

export const sendVerificationCodeRequestSchema = z
  .object({
    channel: z.enum(['email', 'phone']),
    email: z.string().trim().max(254).nullable().optional(),
    phone_number: z.string().trim().max(32).nullable().optional(),
  })
  .meta({ id: 'SendVerificationCodeRequest' })
export const sendVerificationCodeResponseSchema = z
  .object({
    verification_id: z.string(),
    channel: z.enum(['email', 'phone']),
    expires_at: z.string().describe('ISO 8601; the code works for 10 minutes'),
    message_id: z.string().describe('outbox id of the e-mail or SMS carrying the code'),
  })
  .meta({ id: 'SendVerificationCodeResponse' })

export const confirmVerificationCodeRequestSchema = z
  .object({
    verification_id: z.uuid(ACCESS_MESSAGES.verificationFailed),
    code: z
      .string({ error: ACCESS_MESSAGES.verificationFailed })
      .trim()
      .regex(/^\d{6}$/, ACCESS_MESSAGES.verificationFailed),
  })
  .meta({ id: 'ConfirmVerificationCodeRequest' })
export const confirmVerificationCodeResponseSchema = z
  .object({
    token: z.string().describe('the link token with the passed verifications: use it instead of the link token'),
    verified_channels: z.array(z.enum(['email', 'phone'])),
    complete: z.boolean().describe('every verification the link requires has passed'),
  })
  .meta({ id: 'ConfirmVerificationCodeResponse' })

export const memberSignupRequestSchema = z
  .object({
    email: z.string({ error: MESSAGES.emailRequired }).trim().min(1, MESSAGES.emailRequired).max(254),
    password: z.string({ error: MESSAGES.passwordRequired }).min(1, MESSAGES.passwordRequired).max(256),
    first_name: z.string().trim().max(100).nullable().optional(),
    last_name: z.string().trim().max(100).nullable().optional(),
    phone_number: z.string().trim().max(32).nullable().optional(),
  })
  .meta({ id: 'MemberSignupRequest' })
export const memberSignupResponseSchema = z
  .object({ jwt_token: z.string().describe('login token of the new member'), user_id: z.number().int() })
  .meta({ id: 'MemberSignupResponse' })

const tags = ['users'] as const

export const memberAccessEndpoints = {
  memberSignup: defineEndpoint({
    method: 'POST',
    path: '/users/member-signup',
    summary:
      "Create a member account in the link's company (query token = the shareable link); only a member-access link (/member-recommendations, not public, with an invited contact or a verification) admits it, and a link that requires verification needs the verified token first",
    tags,
    query: tokenQuery,
    invalidInput: { priority: [ACCESS_MESSAGES.missingToken] },
    body: memberSignupRequestSchema,
    response: memberSignupResponseSchema,
    errors: [400, 401, 403, 409, 429],
  }),
  sendVerificationCode: defineEndpoint({
    method: 'POST',
    path: '/users/verification-code',
    summary:
      "Send a 6-digit code (valid 10 minutes, 5 attempts, one use) to the link's invited e-mail or phone (an invite naming no e-mail: the invitee's own); calling again resends a new code and voids the previous one",
    tags,
    query: tokenQuery,
    invalidInput: { priority: [ACCESS_MESSAGES.missingToken] },
    body: sendVerificationCodeRequestSchema,
    response: sendVerificationCodeResponseSchema,
    errors: [400, 401, 429],
  }),
  confirmVerificationCode: defineEndpoint({
    method: 'POST',
    path: '/users/verification-code/confirm',
    summary: 'Check a verification code; success answers the link token with the verification, which then grants the link',
    tags,
    query: tokenQuery,
    invalidInput: { priority: [ACCESS_MESSAGES.missingToken] },
    body: confirmVerificationCodeRequestSchema,
    response: confirmVerificationCodeResponseSchema,
    errors: [400, 401],
  }),
} as const
