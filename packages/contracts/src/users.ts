import { z } from 'zod'
import { productGroupSchema, roleSchema } from './access.js'
import { EMAIL_PATTERN, MESSAGES } from './validation.js'
import { defineEndpoint } from './endpoint.js'

/** Server messages of the accounts endpoints (spec 1 §5, §8; spec 3 §9). Tests pin every one of them. */
export const USER_MESSAGES = {
  invalidCredentials: 'Invalid email or password',
  signupSuccess: 'User created successfully',
  emailTaken: 'An account with this email already exists',
  activationKeyUnknown: 'No company matches this activation key',
  resetTokenInvalid: 'This password reset link is invalid or has expired. Please request a new one.',
  verifyNeedsContact: 'At least one of email or phone must be provided for verification',
  newPasswordRequired: 'New password is required',
  resetTokenRequired: 'Missing required token parameter',
  /** a sign-up that presents an invitation token which is unknown, used, expired, or for another address or company */
  invitationInvalid:
    'This invitation link is invalid, has expired or was made for another e-mail address. Ask your administrator for a new invitation.',
  /** a sign-up with the activation key alone for an address that has a pending invitation (issue 32 §8) */
  invitationPending:
    'This e-mail address has a pending invitation. Create your account with the link in the invitation e-mail, or ask your administrator to send it again.',
} as const

/** Lifetime of the token in an onboarding invitation link (docs/decisions/0012). */
export const INVITATION_TTL_SECONDS = 7 * 24 * 60 * 60

/** Lifetime of a login token (docs: 12 hours; the client treats an expired token as signed out). */
export const LOGIN_TOKEN_TTL_SECONDS = 12 * 60 * 60
/** Lifetime of a password reset token (spec 4 §5: 1 hour, single use). */
export const PASSWORD_RESET_TTL_SECONDS = 60 * 60

/** Claims of the login token, exactly these (spec 1 §3, spec 4 §5). */
export const loginTokenClaimsSchema = z.object({
  sub: z.string(),
  email: z.string(),
  exp: z.number().int(),
  company_id: z.number().int(),
  company_name: z.string(),
  role: roleSchema,
  phone_number: z.string().nullable(),
})
export type LoginTokenClaims = z.infer<typeof loginTokenClaimsSchema>

const requiredString = (message: string, max = 256) => z.string({ error: message }).min(1, message).max(max)
/** A required e-mail ('Email is required'); with a shape message, also checked against EMAIL_PATTERN. */
const requiredEmail = (invalidMessage?: string) => {
  const email = z.string({ error: MESSAGES.emailRequired }).trim().min(1, MESSAGES.emailRequired).max(254)
  return invalidMessage ? email.regex(EMAIL_PATTERN, invalidMessage) : email
}

export const loginRequestSchema = z
  .object({
    email: requiredEmail(),
    password: requiredString(MESSAGES.passwordRequired),
  })
  .meta({ id: 'LoginRequest' })
export const loginResponseSchema = z.object({ token: z.string() }).meta({ id: 'LoginResponse' })

export const signupRequestSchema = z
  .object({
    email: requiredEmail(MESSAGES.emailNotValid),
    password: requiredString(MESSAGES.passwordRequired),
    activation_key: z.string({ error: MESSAGES.activationKeyRequired }).trim().min(1, MESSAGES.activationKeyRequired).max(256),
    invitation_token: z
      .string()
      .trim()
      .max(256)
      .nullable()
      .optional()
      .describe("the `invitation` parameter of the invitation link; without it the account's role is user"),
  })
  .meta({ id: 'SignupRequest' })
export const messageResponseSchema = z.object({ message: z.string() }).meta({ id: 'MessageResponse' })

export const passwordResetEmailRequestSchema = z
  .object({
    email: requiredEmail(MESSAGES.emailInvalid),
  })
  .meta({ id: 'PasswordResetEmailRequest' })
export const messageIdResponseSchema = z
  .object({ message_id: z.string().describe('id of the outgoing message in the outbox') })
  .meta({ id: 'MessageIdResponse' })

export const passwordResetRequestSchema = z
  .object({
    new_password: requiredString(USER_MESSAGES.newPasswordRequired),
    temp_jwt_token: requiredString(USER_MESSAGES.resetTokenRequired, 2048),
  })
  .meta({ id: 'PasswordResetRequest' })

export const userInfoSchema = z
  .object({
    id: z.number().int(),
    email: z.string(),
    role: roleSchema,
    company_id: z.number().int(),
    company_name: z.string(),
    phone_number: z.string().nullable(),
    created_at: z.string().describe('ISO 8601'),
    product_groups: z.array(productGroupSchema),
  })
  .meta({ id: 'UserInfo' })
export type UserInfo = z.infer<typeof userInfoSchema>

export const verifyUserRequestSchema = z
  .object({
    email: z.string().trim().max(254).nullable().optional(),
    phone_number: z.string().trim().max(32).nullable().optional(),
  })
  .meta({ id: 'VerifyUserRequest' })
export const verifyUserResponseSchema = z.object({ exists: z.boolean() }).meta({ id: 'VerifyUserResponse' })

/** Messages of the auth layer (401 and 403 envelopes). */
export const AUTH_MESSAGES = {
  authRequired: 'Authentication required',
  malformedHeader: 'The Authorization header must be "Bearer <token>"',
  invalidToken: 'Invalid authentication token',
  sessionExpired: 'Your session has expired. Please sign in again.',
  accountInactive: 'Your account is no longer active. Please sign in again.',
  /** a login token issued before a password reset, a role change or a deactivation (issue 32 §6) */
  sessionRevoked: 'Your session has ended because your account changed. Please sign in again.',
  invalidApiKey: 'Invalid API key',
  rateLimited: (after: string) => `Too many attempts. Please try again in ${after}.`,
  roleDenied: (role: string) => `Your current role (${role}) doesn't have permission to perform this action`,
  productDenied: (product: string) => `Your organization doesn't have access to the ${product} product`,
} as const

// ---- Endpoints ---------------------------------------------------------------------------------

const usersTags = ['users'] as const

/** The accounts endpoints (spec 1 §7): sign-in, sign-up, password reset, profile, verification. */
export const usersEndpoints = {
  login: defineEndpoint({
    method: 'POST',
    path: '/users/login',
    summary: 'Sign in with e-mail and password; returns a login JWT valid for 12 hours',
    tags: usersTags,
    body: loginRequestSchema,
    response: loginResponseSchema,
    errors: [400, 401, 429],
  }),
  signup: defineEndpoint({
    method: 'POST',
    path: '/users/user-signup',
    summary: 'Create an account in the company whose activation key is given; the role is that of a pending invitation, else user',
    tags: usersTags,
    body: signupRequestSchema,
    response: messageResponseSchema,
    errors: [400, 409, 429],
  }),
  passwordResetEmail: defineEndpoint({
    method: 'POST',
    path: '/users/password-reset-email',
    summary: 'Send a password reset link (valid 1 hour, single use); the answer is the same for unknown addresses',
    tags: usersTags,
    body: passwordResetEmailRequestSchema,
    response: messageIdResponseSchema,
    errors: [400, 429],
  }),
  passwordReset: defineEndpoint({
    method: 'POST',
    path: '/users/password-reset',
    summary: 'Set a new password with the token from the reset e-mail; the token works once',
    tags: usersTags,
    body: passwordResetRequestSchema,
    response: messageIdResponseSchema,
    errors: [400, 429],
  }),
  info: defineEndpoint({
    method: 'GET',
    path: '/users/info',
    summary: "The signed-in user's profile and the company's product groups",
    tags: usersTags,
    security: ['bearer'],
    response: userInfoSchema,
    errors: [401, 403],
  }),
  verify: defineEndpoint({
    method: 'POST',
    path: '/users/verify',
    summary: 'Whether an account exists for the e-mail (case-insensitive) or the US phone number (shareable-link access flow)',
    tags: usersTags,
    body: verifyUserRequestSchema,
    response: verifyUserResponseSchema,
    errors: [400, 429],
  }),
} as const
