import { z } from 'zod'
import { ROLES } from './access.js'
import { EMAIL_PATTERN, MESSAGES, idSchema, normalizeUsPhone } from './validation.js'
import { defineEndpoint } from './endpoint.js'

export const SHARE_URL_TYPES = ['public', 'private', 'invite'] as const
export const shareUrlTypeSchema = z.preprocess(
  (value) => (typeof value === 'string' ? value.trim().toLowerCase() : value),
  z.enum(SHARE_URL_TYPES),
)
export type ShareUrlType = (typeof SHARE_URL_TYPES)[number]

/**
 * Shared links never expire unless expiration_days is given (spec 1 §9). The client requires an exp
 * claim (spec 1 §5), so a never-expiring link carries this fixed exp: 9999-12-31T23:59:59Z.
 */
export const SHARE_TOKEN_NEVER_EXPIRES_EXP = 253_402_300_799

export const SHARE_MESSAGES = {
  created: 'Shareable URL created',
  revoked: 'Shareable link revoked',
  revokeDenied: 'Only the creator of this link, an admin of its company or Citrus staff can revoke it',
  notFound: 'Shareable link not found',
  invalidToken: 'This shared link is no longer valid or has expired.',
  endpointNotAllowed: 'This shared link does not grant access to this endpoint',
  verificationRequired: 'This shared link requires verification before it grants access',
  signInRequired: 'This shared link is restricted to specific users. Please sign in.',
  userNotAuthorized: 'You are not authorized to access this content',
  apiEndpointInvalid: 'API endpoints must look like "GET /path" or "/path"',
  clientRouteInvalid: 'Client routes must be paths starting with /',
  /** verification proves the invited contact; without one, whoever holds the link would verify their own */
  emailVerificationNeedsInvite: 'A link that requires e-mail verification must name the invited e-mail address (invite_email)',
  phoneVerificationNeedsInvite: 'A link that requires phone verification must name the invited phone number (invite_phone)',
} as const

/** An allowed API endpoint: "METHOD /path" or "/path" (GET); {param} or :param match one segment. */
export const API_ENDPOINT_PATTERN = /^(?:(GET|POST|PUT|PATCH|DELETE) )?(\/[^\s?#]*)$/

/** Link roles: a signed-in role or guest; upper-case legacy values are accepted and lower-cased. */
export const shareRoleSchema = z.preprocess(
  (value) => (typeof value === 'string' ? value.trim().toLowerCase() : value),
  z.enum([...ROLES, 'guest']),
)

const queryValue = z.union([z.string().max(2000), z.number(), z.boolean(), z.null()])

export const createShareableUrlRequestSchema = z
  .object({
    url: z.string().max(2000).nullable().optional().describe('the page being shared, as the client saw it (informational)'),
    url_type: shareUrlTypeSchema,
    expiration_days: z.number().int().min(0).max(3650).nullable().optional().describe('null or 0 = never expires'),
    client_routes: z.array(z.string().max(500).regex(/^\//, SHARE_MESSAGES.clientRouteInvalid)).max(50).default([]),
    api_endpoints: z.array(z.string().max(500).regex(API_ENDPOINT_PATTERN, SHARE_MESSAGES.apiEndpointInvalid)).max(50).default([]),
    incoming_url: z.string().max(2000).nullable().optional().describe('path (or URL) the link opens; default the first client route'),
    initial_query_params: z
      .union([z.record(z.string().max(100), z.union([queryValue, z.array(queryValue).max(200)])), z.string().max(4000)])
      .nullable()
      .optional(),
    authorized_user_ids: z.array(idSchema).max(500).nullable().optional(),
    invite_email: z.string().trim().max(254).regex(EMAIL_PATTERN, MESSAGES.emailInvalidDot).nullable().optional(),
    invite_phone: z
      .string()
      .max(32)
      .nullable()
      .optional()
      .transform((value, ctx) => {
        if (value === null || value === undefined || value.trim() === '') return null
        const result = normalizeUsPhone(value)
        if (!result.ok) {
          ctx.addIssue({ code: 'custom', message: result.message })
          return z.NEVER
        }
        return result.e164
      }),
    requires_email_verification: z.boolean().default(false),
    requires_phone_verification: z.boolean().default(false),
    requires_account_creation: z.boolean().default(false),
    role: shareRoleSchema.nullable().optional(),
  })
  .meta({ id: 'CreateShareableUrlRequest' })
export type CreateShareableUrlRequest = z.input<typeof createShareableUrlRequestSchema>

export const createShareableUrlResponseSchema = z.object({ id: z.string(), url: z.string() }).meta({ id: 'CreateShareableUrlResponse' })

export const shareableLinkSchema = z
  .object({
    id: z.string(),
    url: z.string().describe('the link with a freshly signed token'),
    source_url: z.string().nullable(),
    url_type: z.enum(SHARE_URL_TYPES),
    role: z.string().nullable(),
    expiration_days: z.number().int().nullable(),
    expires_at: z.string().nullable(),
    client_routes: z.array(z.string()),
    api_endpoints: z.array(z.string()),
    incoming_url: z.string().nullable(),
    authorized_user_ids: z.array(z.number().int()).nullable(),
    invite_email: z.string().nullable(),
    invite_phone: z.string().nullable(),
    requires_email_verification: z.boolean(),
    requires_phone_verification: z.boolean(),
    requires_account_creation: z.boolean(),
    created_by_user_id: z.number().int(),
    created_at: z.string(),
    revoked_at: z.string().nullable(),
    is_expired: z.boolean().describe('expired or revoked'),
  })
  .meta({ id: 'ShareableLink' })
export type ShareableLinkRecord = z.infer<typeof shareableLinkSchema>
export const shareableLinkListSchema = z.array(shareableLinkSchema)

export const validateShareableLinkQuerySchema = z.object({
  token: z.string({ error: 'No token provided' }).min(1, 'No token provided').max(4096),
})
/** Spec 1 §3 (plus the metadata of spec 3 §3). */
export const shareableLinkValidationSchema = z
  .object({
    url_type: z.enum(SHARE_URL_TYPES),
    role: z.string().nullable(),
    requires_phone_verification: z.boolean(),
    requires_email_verification: z.boolean(),
    requires_account_creation: z.boolean(),
    authorized_user_ids: z.array(z.number().int()).nullable(),
    is_expired: z.boolean(),
    client_routes: z.array(z.string()),
  })
  .meta({ id: 'ShareableLinkValidation' })
export type ShareableLinkValidationResponse = z.infer<typeof shareableLinkValidationSchema>

export const shareIdParamsSchema = z.object({ share_id: z.uuid('Shareable link not found') })
export const revokeShareableLinkResponseSchema = z
  .object({ id: z.string(), revoked_at: z.string(), message: z.string() })
  .meta({ id: 'RevokeShareableLinkResponse' })

const shareTags = ['shareable-url'] as const

/** Shareable guest links (spec 1 §3, §7, §9). */
export const shareableUrlEndpoints = {
  create: defineEndpoint({
    method: 'POST',
    path: '/shareable-url',
    summary: 'Create a shareable guest link (revocable; never expires unless expiration_days is given)',
    tags: shareTags,
    security: ['bearer'],
    body: createShareableUrlRequestSchema,
    response: createShareableUrlResponseSchema,
    errors: [400, 401, 403],
  }),
  list: defineEndpoint({
    method: 'GET',
    path: '/shareable-url',
    summary: 'The links the caller created, newest first (revoked ones included, with is_expired true)',
    tags: shareTags,
    security: ['bearer'],
    response: shareableLinkListSchema,
    errors: [401, 403],
  }),
  validate: defineEndpoint({
    method: 'GET',
    path: '/shareable-url/validate-shareable-link',
    summary: 'Check a shareable token: its type, role, verification needs, expiry (revoked = expired) and allowed client routes',
    tags: shareTags,
    query: validateShareableLinkQuerySchema,
    response: shareableLinkValidationSchema,
    errors: [400, 401, 403],
  }),
  revoke: defineEndpoint({
    method: 'POST',
    path: '/shareable-url/{share_id}/revoke',
    summary: "Revoke a link at once: its creator, an admin of the creator's company, or citrus staff",
    tags: shareTags,
    security: ['bearer'],
    params: shareIdParamsSchema,
    response: revokeShareableLinkResponseSchema,
    errors: [400, 401, 403, 404],
  }),
} as const
