import { z } from 'zod'
import { productGroupSchema, roleSchema, type ProductGroup } from './access.js'
import { ACTIVATION_KEY_PATTERN, EMAIL_PATTERN, INT32_MAX, INPUT_MESSAGES, MESSAGES, idParamSchema } from './validation.js'
import { defineEndpoint } from './endpoint.js'
import { messageIdResponseSchema } from './users.js'

/** Roles that may use /admin/* (spec 1 §2: /api-keys and /team-management are admin and citrus). */
export const ADMIN_ROLES = ['admin', 'citrus'] as const

// ---- API keys ----------------------------------------------------------------------------------

/** An API key is 'sk-' followed by this many base64url characters (36 random bytes). */
export const API_TOKEN_PREFIX = 'sk-'
export const API_TOKEN_SECRET_LENGTH = 48
export const API_TOKEN_PATTERN = /^sk-[A-Za-z0-9_-]{48}$/
/** Characters of the secret shown as masked_token; the client renders 'sk-' + masked_token + '...'. */
export const API_TOKEN_MASK_LENGTH = 4
/** Active (not revoked) keys one user may hold. */
export const MAX_API_TOKENS_PER_USER = 10
export const API_TOKEN_NAME_MAX = 100

export const API_TOKEN_MESSAGES = {
  /** spec 1 §8: the client shows this when create returns no token */
  maxTokens: 'User has reached max number of tokens.',
  /** spec 1 §5 */
  nameRequired: 'Please provide a name for the key.',
  deleted: 'Token Deleted',
  notFound: 'API token not found',
  idRequired: 'Token id is required',
  ownCompanyOnly: 'API keys can only be created for your own company',
  revoked: 'This API key has been revoked',
  ownerInactive: 'This API key is disabled because its owner is no longer active in the organization',
} as const

export const apiTokenSchema = z
  .object({
    id: z.string(),
    name: z.string().nullable().describe("null shows as 'Unnamed Token'"),
    masked_token: z.string().describe("the first characters of the secret; shown as 'sk-' + masked_token + '...'"),
    created_at: z.string().describe('ISO 8601'),
    last_used_at: z.string().nullable().describe('ISO 8601; null = never used'),
    user_id: z.number().int().describe('owner: the key acts as this user'),
    user_email: z.string(),
    company_id: z.number().int(),
  })
  .meta({ id: 'ApiToken' })
export type ApiToken = z.infer<typeof apiTokenSchema>

/** GET /admin/api-token answers a bare list (spec 1 §7 "response list"). */
export const apiTokenListSchema = z.array(apiTokenSchema).meta({ id: 'ApiTokenList' })

export const companyIdQuerySchema = z.object({
  company_id: z
    .preprocess((value) => (value === '' ? undefined : value), idParamSchema.optional())
    .describe("the company (default: the caller's); an admin may name only their own company, citrus any"),
})

export const createApiTokenRequestSchema = z
  .object({
    name: z.string({ error: API_TOKEN_MESSAGES.nameRequired }).trim().min(1, API_TOKEN_MESSAGES.nameRequired).max(API_TOKEN_NAME_MAX),
    company_id: z
      .number()
      .int()
      .positive()
      .max(INT32_MAX, INPUT_MESSAGES.int32TooLarge)
      .nullable()
      .optional()
      .describe("must be the caller's company (the key acts as the caller); default the caller's company"),
  })
  .meta({ id: 'CreateApiTokenRequest' })

export const createApiTokenResponseSchema = apiTokenSchema
  .extend({ token: z.string().describe('the full key; shown once, never again') })
  .meta({ id: 'CreatedApiToken' })
export type CreatedApiToken = z.infer<typeof createApiTokenResponseSchema>

export const deleteApiTokenRequestSchema = z
  .object({ id: z.string({ error: API_TOKEN_MESSAGES.idRequired }).trim().min(1, API_TOKEN_MESSAGES.idRequired).max(100) })
  .meta({ id: 'DeleteApiTokenRequest' })
export const deleteApiTokenResponseSchema = z.object({ message: z.string() }).meta({ id: 'DeleteApiTokenResponse' })

// ---- Team: seats, usage, activation key, permissions -----------------------------------------

export const ADMIN_MESSAGES = {
  otherCompany: "You do not have access to another company's administration",
  userNotFound: 'User not found',
} as const

export const companyUserSchema = z
  .object({
    id: z.number().int(),
    email: z.string(),
    role: roleSchema,
    created_at: z.string().describe('ISO 8601'),
  })
  .meta({ id: 'CompanyUser' })
export type CompanyUser = z.infer<typeof companyUserSchema>

export const activeSeatsResponseSchema = z
  .object({ users: z.array(companyUserSchema).describe('active users of the company, oldest first') })
  .meta({ id: 'ActiveSeats' })

export const productUsageSchema = z
  .object({
    id: z.number().int().describe('the policy id'),
    product_group: productGroupSchema,
    remaining_count: z.number().int().nullable().describe('credits left in the current cycle; null when unlimited'),
    is_infinite: z.boolean(),
    limit: z.number().int().nullable().describe('credits per cycle; null = unlimited'),
    used_count: z.number().int().describe('credits used in the current cycle'),
    cycle_start: z.string().describe('ISO 8601 start of the current cycle'),
    renews_on: z.string().describe('YYYY-MM-DD (UTC) when the next cycle starts'),
  })
  .meta({ id: 'ProductUsage' })
export type ProductUsage = z.infer<typeof productUsageSchema>
export const productUsageResponseSchema = z.object({ products: z.array(productUsageSchema) }).meta({ id: 'ProductUsageList' })

export const activationKeyResponseSchema = z.object({ activation_key: z.string() }).meta({ id: 'ActivationKey' })

export const userIdParamsSchema = z.object({ user_id: idParamSchema })
export const userPermissionSchema = z
  .object({
    user_id: z.number().int(),
    email: z.string(),
    role: roleSchema,
    is_active: z.boolean(),
    company_id: z.number().int(),
    company_name: z.string(),
    product_groups: z.array(productGroupSchema).describe("the product groups of the user's company"),
  })
  .meta({ id: 'UserPermission' })

// ---- Onboarding e-mail -------------------------------------------------------------------------

/** Roles a company admin may invite (spec 1 §6: the team form offers User and Admin); citrus may also invite citrus. */
export const ONBOARDING_ROLES = ['user', 'admin', 'citrus'] as const
export const ADMIN_INVITABLE_ROLES = ['user', 'admin'] as const

export const ONBOARDING_MESSAGES = {
  allFieldsRequired: MESSAGES.allFieldsRequired,
  emailInvalid: MESSAGES.emailInvalidDot,
  activationKeyInvalid: MESSAGES.activationKeyInvalid,
  roleInvalid: 'Role must be one of user, admin or citrus.',
  roleNotAllowed: 'You can only invite users with the role user or admin.',
  notYourCompany: 'This activation key does not belong to your organization.',
  unknownKey: 'No company matches this activation key',
  alreadyMember: 'An account with this email already exists',
  /** spec 1 §8 (client) */
  sent: (email: string) => `Onboarding email sent successfully to ${email}`,
} as const

const missing = (input: unknown) => input === undefined || input === null || (typeof input === 'string' && input.trim() === '')

export const onboardingEmailRequestSchema = z
  .object({
    email: z
      .string({ error: ONBOARDING_MESSAGES.allFieldsRequired })
      .trim()
      .min(1, ONBOARDING_MESSAGES.allFieldsRequired)
      .max(254)
      .regex(EMAIL_PATTERN, ONBOARDING_MESSAGES.emailInvalid),
    company_activation_key: z
      .string({ error: ONBOARDING_MESSAGES.allFieldsRequired })
      .trim()
      .min(1, ONBOARDING_MESSAGES.allFieldsRequired)
      .regex(ACTIVATION_KEY_PATTERN, ONBOARDING_MESSAGES.activationKeyInvalid),
    role: z
      .preprocess(
        (value) => (typeof value === 'string' ? value.trim().toLowerCase() : value),
        z.enum(ONBOARDING_ROLES, {
          error: (issue) => (missing(issue.input) ? ONBOARDING_MESSAGES.allFieldsRequired : ONBOARDING_MESSAGES.roleInvalid),
        }),
      )
      .describe('user, admin or citrus; upper case (USER, ADMIN, CITRUS) is accepted. The invited account gets this role.'),
    is_trial: z.boolean({
      error: (issue) => (missing(issue.input) ? ONBOARDING_MESSAGES.allFieldsRequired : 'is_trial must be true or false'),
    }),
  })
  .meta({ id: 'OnboardingEmailRequest' })
export type OnboardingEmailRequest = z.infer<typeof onboardingEmailRequestSchema>

export const ONBOARDING_MESSAGE_PRIORITY = [
  ONBOARDING_MESSAGES.allFieldsRequired,
  ONBOARDING_MESSAGES.emailInvalid,
  ONBOARDING_MESSAGES.activationKeyInvalid,
  ONBOARDING_MESSAGES.roleInvalid,
] as const

// ---- Credits -----------------------------------------------------------------------------------

/** How a product group is named on the Products and Credits tab (spec 1 §2: 'CITRUS ' plus the group). */
export const productServiceName = (group: ProductGroup) => `CITRUS ${group}`

export const CREDIT_MESSAGES = {
  exhausted: (group: ProductGroup, renewsOn: string) =>
    `Your organization has used all ${productServiceName(group)} credits for this cycle. Credits renew on ${renewsOn}.`,
} as const

// ---- Endpoints ---------------------------------------------------------------------------------

const adminTags = ['admin'] as const
const adminSecurity = ['bearer'] as const

/**
 * Company administration (spec 1 §2 API Keys and Team Management; §7): roles admin and citrus.
 * An admin works on their own company only; citrus on any company (query company_id).
 */
export const adminEndpoints = {
  listApiTokens: defineEndpoint({
    method: 'GET',
    path: '/admin/api-token',
    summary:
      "The company's active API keys, newest first: every key of every user of the company (the workspace owner can view and manage all keys); masked, never the secret",
    tags: adminTags,
    security: adminSecurity,
    query: companyIdQuerySchema,
    response: apiTokenListSchema,
    errors: [400, 401, 403, 404],
  }),
  createApiToken: defineEndpoint({
    method: 'POST',
    path: '/admin/api-token',
    summary: `Create an API key that acts as the caller in the caller's company; the full key is in \`token\`, shown once. At most ${MAX_API_TOKENS_PER_USER} active keys per user, then 409 '${API_TOKEN_MESSAGES.maxTokens}'`,
    tags: adminTags,
    security: adminSecurity,
    body: createApiTokenRequestSchema,
    response: createApiTokenResponseSchema,
    errors: [400, 401, 403, 409],
    invalidInput: { priority: [API_TOKEN_MESSAGES.nameRequired] },
  }),
  deleteApiToken: defineEndpoint({
    method: 'DELETE',
    path: '/admin/api-token',
    summary: 'Revoke an API key at once: an admin any key of their company, citrus any key',
    tags: adminTags,
    security: adminSecurity,
    body: deleteApiTokenRequestSchema,
    response: deleteApiTokenResponseSchema,
    errors: [400, 401, 403, 404],
  }),
  activeSeats: defineEndpoint({
    method: 'GET',
    path: '/admin/active-seats',
    summary: "The company's active users (seats), oldest first",
    tags: adminTags,
    security: adminSecurity,
    query: companyIdQuerySchema,
    response: activeSeatsResponseSchema,
    errors: [400, 401, 403, 404],
  }),
  productUsage: defineEndpoint({
    method: 'GET',
    path: '/admin/product-usage',
    summary: "The company's product groups with the credits left in the current renewal cycle (null = unlimited)",
    tags: adminTags,
    security: adminSecurity,
    query: companyIdQuerySchema,
    response: productUsageResponseSchema,
    errors: [400, 401, 403, 404],
  }),
  activationKey: defineEndpoint({
    method: 'GET',
    path: '/admin/activation-key',
    summary: "The company's activation key (sign-up joins the company with it)",
    tags: adminTags,
    security: adminSecurity,
    query: companyIdQuerySchema,
    response: activationKeyResponseSchema,
    errors: [400, 401, 403, 404],
  }),
  permission: defineEndpoint({
    method: 'GET',
    path: '/admin/permission/{user_id}',
    summary: "A user's role and the product groups of their company; an admin sees users of their own company only (404 otherwise)",
    tags: adminTags,
    security: adminSecurity,
    params: userIdParamsSchema,
    response: userPermissionSchema,
    errors: [400, 401, 403, 404],
  }),
  onboardingEmail: defineEndpoint({
    method: 'POST',
    path: '/admin/email/onboarding',
    summary:
      'Invite someone to the company: e-mails a sign-up link with the activation key; signing up with that e-mail gives the chosen role. An admin invites user or admin into their own company; citrus also citrus, into any company',
    tags: adminTags,
    security: adminSecurity,
    body: onboardingEmailRequestSchema,
    response: messageIdResponseSchema,
    errors: [400, 401, 403, 409],
    invalidInput: { priority: ONBOARDING_MESSAGE_PRIORITY },
  }),
} as const
