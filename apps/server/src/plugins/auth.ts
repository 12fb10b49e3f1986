import { AUTH_MESSAGES, PRODUCT_NAMES, ROLES, SHARE_MESSAGES, API_ENDPOINT_PATTERN, type ProductGroup } from '@citrus/contracts'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import {
  userPrincipal,
  type AccessRule,
  type Role,
  type GuestLink,
  type GuestPrincipal,
  type Principal,
  type UserPrincipal,
} from '../auth/principal.js'
import { loginTokenRevoked } from '../auth/tokens.js'
import type { Row } from '../db/kysely.js'
import { holdsProduct } from '../domain/administration.js'
import { productPolicyOf, type ProductPolicy } from '../domain/credits.js'
import { AppError, forbidden, unauthorized } from '../lib/errors.js'
import fp from 'fastify-plugin'
import type pg from 'pg'
import { batchLoader } from '../lib/coalesce.js'
import { DATA_VERSION_SQL } from '../lib/versioned-cache.js'

/**
 * Authentication for everything under /api (docs: README "Auth").
 *
 * Every request is inspected once, in onRequest, and gets `request.auth`:
 *  - `Authorization: Bearer <token>`: a credential resolver that accepts the token (an `sk-` API key
 *    resolver is added by issue 4 through `app.credentials.register`), else the login JWT;
 *  - otherwise `?token=<shareable link token>`: a guest principal limited to the link's api_endpoints.
 * A signed-in caller who also presents a link token (`?token=` beside the Bearer credential) is held to the
 * link as well (docs/decisions/0046): the link must list the user when it has authorized_user_ids, and the
 * request must be one of the link's api_endpoints. A link only narrows what the caller may do, never widens it.
 * A bad credential does not fail the request by itself (public endpoints still answer); it is kept in
 * `request.authError` and thrown by the guard of a protected route. Guards: `app.authenticate`,
 * `requireAccess({ roles, product })`, `requireRoles([...])`, `requireProduct('ATLAS')`.
 */

export interface BearerCredentialResolver {
  /** e.g. 'api_key' */
  name: string
  accepts(token: string): boolean
  /** a principal, or throw an AppError (401) when the credential is not valid */
  resolve(token: string, request: FastifyRequest): Promise<UserPrincipal>
}

export interface CredentialRegistry {
  register(resolver: BearerCredentialResolver): void
  readonly resolvers: readonly BearerCredentialResolver[]
}

type Guard = (request: FastifyRequest, reply: FastifyReply) => Promise<void>

declare module 'fastify' {
  interface FastifyRequest {
    /** who is calling; null = anonymous (or the credential was not valid, see authError) */
    auth: Principal | null
    /** why the credential the request carried was refused (thrown by guards of protected routes) */
    authError: AppError | null
    /** the shareable link a signed-in caller presented beside the credential (`?token=`), or why it was refused */
    presentedLink: { link: GuestLink } | { error: AppError } | null
    /** the caller's company policies the access guard read during this request, by product group */
    productPolicies: Map<ProductGroup, ProductPolicy>
    /**
     * every policy of the signed-in user's company and its Atlas plan tier (as stored), read with the user (null: not
     * read, e.g. API keys, guests)
     */
    companyPolicies: { company_id: number; policies: Map<ProductGroup, ProductPolicy>; plan_tier: string } | null
    /** the data version read with the login principal (null: not read; lib/versioned-cache.ts requestDataVersion) */
    dataVersion: string | null
  }
  interface FastifyInstance {
    credentials: CredentialRegistry
    /** guard: any signed-in role (login JWT or API key) */
    authenticate: Guard
    requireAccess(rule?: AccessRule): Guard
  }
}

const SIGNED_IN = ROLES

/** The documented path (relative to /api) of the request, without query string or trailing slash. */
export function apiPathOf(request: FastifyRequest): string {
  const path = (request.url.split('?')[0] ?? '/').replace(/^\/api(?=\/|$)/, '')
  return trimSlash(path)
}

function trimSlash(path: string): string {
  const trimmed = path.replace(/\/+$/, '')
  return trimmed === '' ? '/' : trimmed
}

/** "GET /care-select/rankings", "/shareable-url/{share_id}/revoke" (GET when no method); {x} or :x match one segment. */
export function endpointAllowed(endpoints: readonly string[], method: string, path: string): boolean {
  const requestMethod = method === 'HEAD' ? 'GET' : method.toUpperCase()
  const requestSegments = trimSlash(path).split('/')
  return endpoints.some((entry) => {
    const match = API_ENDPOINT_PATTERN.exec(entry.trim())
    if (!match) return false
    const allowedMethod = match[1] ?? 'GET'
    if (allowedMethod !== requestMethod) return false
    const pattern = trimSlash((match[2] ?? '').replace(/^\/api(?=\/|$)/, '')).split('/')
    if (pattern.length !== requestSegments.length) return false
    return pattern.every((segment, index) => segmentMatches(segment, requestSegments[index] ?? ''))
  })
}

/**
 * One path segment of an api_endpoints entry: `:name` or `{name}` is any non-empty value; a placeholder
 * may sit inside literal text (`{y}.mvt` matches `12.mvt`, not `12.png`); anything else matches itself.
 */
function segmentMatches(segment: string, actual: string): boolean {
  if (/^:.+/.test(segment)) return actual !== ''
  if (!/\{[^}]+\}/.test(segment)) return segment === actual
  const literal = segment.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
  return new RegExp(`^${literal.join('[^/]+')}$`).test(actual)
}

/**
 * The company's policy for a product group: from the policies read with the login principal when the company is
 * the caller's (no query), else one query (kept on the request for the meter).
 */
export async function policyOf(request: FastifyRequest, companyId: number, product: ProductGroup): Promise<ProductPolicy | null> {
  const known = request.companyPolicies
  if (known?.company_id === companyId) return known.policies.get(product) ?? null
  const cached = request.productPolicies.get(product)
  if (cached?.company_id === companyId) return cached
  const policy = await productPolicyOf(request.server.db.pool, companyId, product)
  // kept for the meter of this request (plugins/credits.ts), which would read the same row again
  if (policy && request.auth?.company_id === companyId) request.productPolicies.set(product, policy)
  return policy
}

export async function companyHasProduct(request: FastifyRequest, companyId: number, product: ProductGroup): Promise<boolean> {
  return holdsProduct((company, group) => policyOf(request, company, group), companyId, product)
}

/** Whether a link with these authorized_user_ids admits the signed-in user (an empty list admits everyone). */
export function linkAdmitsUser(authorizedUserIds: readonly number[], userId: number): boolean {
  return authorizedUserIds.length === 0 || authorizedUserIds.includes(userId)
}

/** The route guard. Roles default to every signed-in role; add 'guest' to admit shareable-link holders. */
export function requireAccess(rule: AccessRule = {}): Guard {
  const roles = rule.roles ?? SIGNED_IN
  return async function accessGuard(request) {
    const principal = request.auth
    if (!principal) throw request.authError ?? unauthorized(AUTH_MESSAGES.authRequired)
    const presented = request.presentedLink
    if (principal.kind === 'user' && presented) {
      // A link presented by a signed-in caller binds the request: refused when it is not valid, when it is
      // restricted to other users, or when it does not list this endpoint (docs/decisions/0046).
      if ('error' in presented) throw presented.error
      if (!linkAdmitsUser(presented.link.authorized_user_ids, principal.user_id)) throw forbidden(SHARE_MESSAGES.userNotAuthorized)
      if (!endpointAllowed(presented.link.api_endpoints, request.method, apiPathOf(request))) {
        throw forbidden(SHARE_MESSAGES.endpointNotAllowed)
      }
    }
    if (principal.kind === 'guest') {
      const { link } = principal
      if (link.authorized_user_ids.length > 0) throw unauthorized(SHARE_MESSAGES.signInRequired)
      if (!roles.includes('guest') || !endpointAllowed(link.api_endpoints, request.method, apiPathOf(request))) {
        throw forbidden(SHARE_MESSAGES.endpointNotAllowed)
      }
      // A link that needs verification or an account grants no data to an anonymous holder (spec 4 §5):
      // the holder verifies (a token whose verifications the server recorded, docs/decisions/0023) or
      // signs up and then calls as a signed-in user.
      const unverified =
        (link.requires_email_verification && !link.verified_channels.includes('email')) ||
        (link.requires_phone_verification && !link.verified_channels.includes('phone'))
      if (unverified || link.requires_account_creation) {
        throw forbidden(SHARE_MESSAGES.verificationRequired)
      }
    } else if (!(roles as readonly string[]).includes(principal.role)) {
      throw forbidden(AUTH_MESSAGES.roleDenied(principal.role))
    }
    if (rule.product && !(await companyHasProduct(request, principal.company_id, rule.product))) {
      throw forbidden(AUTH_MESSAGES.productDenied(PRODUCT_NAMES[rule.product]))
    }
  }
}

export const requireRoles = (roles: NonNullable<AccessRule['roles']>) => requireAccess({ roles })
/** Product check alone (combine after a role guard); admits the same callers as `app.authenticate`. */
export const requireProduct = (product: ProductGroup) => requireAccess({ product })

/** The signed-in user of a route guarded without 'guest'; a programming error otherwise. */
export function userOf(request: FastifyRequest): UserPrincipal {
  const principal = request.auth
  if (principal?.kind !== 'user') throw request.authError ?? unauthorized(AUTH_MESSAGES.authRequired)
  return principal
}

/** A user row as the login check reads it, with the company's policies (one statement for both). */
type LoginRow = Pick<Row<'users'>, 'id' | 'email' | 'company_id' | 'phone_number' | 'is_active' | 'sessions_revoked_at'> &
  Pick<Row<'companies'>, 'company_name' | 'created_at' | 'renewal_cycle_days'> & {
    /** role::text */
    role: Role
    /** plan_tier::text: the company's Atlas plan tier (services/atlas/tiers.ts planTierOf) */
    plan_tier: string
    policies: Pick<Row<'company_policies'>, 'product_group' | 'limit'>[]
    /** the data version (lib/versioned-cache.ts), read in the same statement */
    data_version: string
  }

/** The login read's batch sizes with a statement of their own; a batch is padded up to the next one, a larger one split. */
export const LOGIN_BATCH_SIZES = [1, 2, 4, 8, 16, 32] as const

/**
 * The login read of `size` users by id, named per size: `u.id IN ($1, …, $size)`, not `u.id = ANY($1::int[])`.
 * PostgreSQL estimates an array parameter at 10 elements, so the generic plan of the array form cost more than a
 * custom plan for the one or few ids it is given, `plan_cache_mode = auto` never kept it, and each call was
 * planned again (most of the statement's time; docs/decisions/0083). With one parameter per id the generic plan
 * costs what a custom plan of the same ids does, and each pool connection keeps it after five executions (0067).
 */
export const LOGIN_STATEMENTS = LOGIN_BATCH_SIZES.map((size) => ({
  size,
  name: `login-principals-${size}`,
  text: `SELECT u.id, u.email, u.company_id, u.role::text AS role, u.phone_number, u.is_active, u.sessions_revoked_at,
         c.company_name, c.created_at,
         c.renewal_cycle_days, c.plan_tier::text AS plan_tier,
         coalesce((SELECT json_agg(json_build_object('product_group', p.product_group, 'limit', p."limit"))
                   FROM company_policies p WHERE p.company_id = c.id), '[]'::json) AS policies,
         ${DATA_VERSION_SQL} AS data_version
       FROM users u JOIN companies c ON c.id = u.company_id
       WHERE u.id IN (${Array.from({ length: size }, (_, k) => `$${k + 1}`).join(', ')})`,
}))

/** The most ids one login statement reads. */
export const LARGEST_LOGIN_BATCH = Math.max(...LOGIN_BATCH_SIZES)

/** Reads the users of up to LARGEST_LOGIN_BATCH distinct ids with the statement of the next size (the first id repeated). */
async function readLoginRows(pool: pg.Pool, ids: readonly number[]): Promise<LoginRow[]> {
  const statement = LOGIN_STATEMENTS.find((candidate) => candidate.size >= ids.length)
  if (!statement) throw new Error(`a login read of ${ids.length} ids: at most ${LARGEST_LOGIN_BATCH}`)
  const values = Array.from({ length: statement.size }, (_, k) => ids[k] ?? ids[0])
  const { rows } = await pool.query<LoginRow>({ name: statement.name, text: statement.text, values })
  return rows
}

/**
 * The login principals' reader: the users (joined with their company and its product policies) of every request
 * that arrived while the previous read was in flight, in one indexed statement (lib/coalesce.ts,
 * docs/decisions/0051; more than LARGEST_LOGIN_BATCH users in several, at once). Each request still sees the
 * database as of after its arrival.
 */
export function loginReader(pool: pg.Pool) {
  return batchLoader<number, LoginRow>(async (ids) => {
    const chunks: number[][] = []
    for (let at = 0; at < ids.length; at += LARGEST_LOGIN_BATCH) chunks.push(ids.slice(at, at + LARGEST_LOGIN_BATCH))
    const rows = await Promise.all(chunks.map((chunk) => readLoginRows(pool, chunk)))
    return new Map(rows.flat().map((row) => [row.id, row]))
  })
}

async function principalFromLoginToken(
  request: FastifyRequest,
  token: string,
  readLogin: (id: number) => Promise<LoginRow | undefined>,
): Promise<UserPrincipal> {
  const verified = request.server.tokens.verifyLogin(token)
  if (!verified.ok) {
    throw unauthorized(verified.reason === 'expired' ? AUTH_MESSAGES.sessionExpired : AUTH_MESSAGES.invalidToken)
  }
  const id = Number(verified.claims.sub)
  if (!Number.isSafeInteger(id) || id > 2_147_483_647) throw unauthorized(AUTH_MESSAGES.invalidToken)
  // One indexed statement (shared by the requests that arrive together) rather than Prisma's include: it runs on
  // every signed-in request. It reads the company's policies too, so that no guard or meter reads them again.
  const row = await readLogin(id)
  if (!row || !row.is_active) throw unauthorized(AUTH_MESSAGES.accountInactive)
  // a password reset, a role change or a deactivation ends the sessions opened before it (issue 32 §6)
  if (loginTokenRevoked(verified.claims.exp, row.sessions_revoked_at)) throw unauthorized(AUTH_MESSAGES.sessionRevoked)
  const policies = new Map<ProductGroup, ProductPolicy>()
  for (const policy of row.policies)
    policies.set(policy.product_group, {
      company_id: row.company_id,
      product_group: policy.product_group,
      limit: policy.limit,
      company_created_at: row.created_at,
      renewal_cycle_days: row.renewal_cycle_days,
    })
  request.companyPolicies = { company_id: row.company_id, policies, plan_tier: row.plan_tier }
  request.dataVersion = row.data_version
  const user = { ...row, company: { company_name: row.company_name } }
  // The database, not the token, is the truth: a role change or deactivation applies at once.
  return userPrincipal(user, 'jwt')
}

async function principalFromShareToken(request: FastifyRequest, token: string): Promise<GuestPrincipal> {
  const verified = request.server.tokens.verifyShare(token)
  if (!verified.ok) throw unauthorized(SHARE_MESSAGES.invalidToken)
  const link = await request.server.db.prisma.shareableLink.findUnique({
    where: { id: verified.claims.id },
    include: { company: { select: { company_name: true } } },
  })
  if (!link || link.revoked_at || (link.expires_at && link.expires_at.getTime() <= Date.now())) {
    throw unauthorized(SHARE_MESSAGES.invalidToken)
  }
  // verifications the token names count only when the server recorded them as passed for this link
  const verifications = verified.claims.vf?.length
    ? await request.server.db.prisma.shareVerification.findMany({
        where: { id: { in: verified.claims.vf }, link_id: link.id, verified_at: { not: null } },
        select: { channel: true },
      })
    : []
  return {
    kind: 'guest',
    credential: 'share_link',
    role: 'guest',
    share_id: link.id,
    company_id: link.company_id,
    company_name: link.company.company_name,
    link: {
      id: link.id,
      url_type: link.url_type,
      role: link.role,
      api_endpoints: link.api_endpoints,
      authorized_user_ids: link.authorized_user_ids,
      requires_email_verification: link.requires_email_verification,
      requires_phone_verification: link.requires_phone_verification,
      requires_account_creation: link.requires_account_creation,
      verified_channels: verifications.map((v) => v.channel as 'email' | 'phone'),
    },
  }
}

function queryToken(request: FastifyRequest): string | null {
  const query = request.query
  if (query && typeof query === 'object' && 'token' in query) {
    const value = (query as Record<string, unknown>).token
    if (typeof value === 'string' && value !== '') return value
  }
  return null
}

/** Adds the credential handling to the given context (the /api scope) and everything registered in it. */
export function registerAuth(app: FastifyInstance) {
  const resolvers: BearerCredentialResolver[] = []
  app.decorate('credentials', {
    register(resolver: BearerCredentialResolver) {
      resolvers.push(resolver)
    },
    get resolvers() {
      return resolvers
    },
  })
  app.decorateRequest('auth', null)
  app.decorateRequest('authError', null)
  app.decorateRequest('presentedLink', null)
  app.decorateRequest('companyPolicies', null)
  app.decorateRequest('dataVersion', null)
  app.decorateRequest('productPolicies', {
    getter(this: FastifyRequest & { _productPolicies?: Map<ProductGroup, ProductPolicy> }) {
      this._productPolicies ??= new Map()
      return this._productPolicies
    },
  })
  app.decorate('authenticate', requireAccess())
  app.decorate('requireAccess', requireAccess)
  const readLogin = loginReader(app.db.pool)

  app.addHook('onRequest', async (request) => {
    try {
      const header = request.headers.authorization
      if (header !== undefined) {
        const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
        if (!match?.[1]) throw unauthorized(AUTH_MESSAGES.malformedHeader)
        const token = match[1]
        const resolver = resolvers.find((candidate) => candidate.accepts(token))
        if (resolver) request.auth = await resolver.resolve(token, request)
        else if (token.startsWith('sk-')) throw unauthorized(AUTH_MESSAGES.invalidApiKey)
        else request.auth = await principalFromLoginToken(request, token, readLogin)
        const linkToken = queryToken(request)
        if (linkToken) {
          try {
            request.presentedLink = { link: (await principalFromShareToken(request, linkToken)).link }
          } catch (error) {
            if (error instanceof AppError) request.presentedLink = { error }
            else throw error
          }
        }
        return
      }
      const token = queryToken(request)
      if (token) request.auth = await principalFromShareToken(request, token)
    } catch (error) {
      if (error instanceof AppError) request.authError = error
      else throw error
    }
  })
}

/** The credential handling as a plugin of the scope it is registered in (the /api scope). */
export const authPlugin = fp(async (app) => registerAuth(app), { name: 'auth', fastify: '5.x' })
