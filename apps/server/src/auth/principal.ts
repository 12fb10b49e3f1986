import type { ProductGroup, Role, SessionRole } from '@citrus/contracts'

/** A signed-in user, from a login JWT or (issue 4) an `sk-` API key. */
export interface UserPrincipal {
  kind: 'user'
  credential: 'jwt' | 'api_key'
  /** the API key's id when credential is api_key */
  credential_id: string | null
  user_id: number
  email: string
  company_id: number
  company_name: string
  role: Role
  phone_number: string | null
}

/** The principal of a user row (read with its company's name): the database, not the credential, is the truth. */
export function userPrincipal(
  user: { id: number; email: string; company_id: number; role: Role; phone_number: string | null; company: { company_name: string } },
  credential: UserPrincipal['credential'],
  credentialId: string | null = null,
): UserPrincipal {
  return {
    kind: 'user',
    credential,
    credential_id: credentialId,
    user_id: user.id,
    email: user.email,
    company_id: user.company_id,
    company_name: user.company.company_name,
    role: user.role,
    phone_number: user.phone_number,
  }
}

/** What a guest may do, taken from the shareable link the request carries. */
export interface GuestLink {
  id: string
  url_type: string
  role: string | null
  api_endpoints: string[]
  authorized_user_ids: number[]
  requires_email_verification: boolean
  requires_phone_verification: boolean
  requires_account_creation: boolean
  /** contacts of the link the holder proved with a verification code (docs/decisions/0023) */
  verified_channels: ('email' | 'phone')[]
}

/** A visitor holding only a shareable-link token (`?token=`). */
export interface GuestPrincipal {
  kind: 'guest'
  credential: 'share_link'
  role: 'guest'
  share_id: string
  /** the link owner's company: product access and credits are theirs */
  company_id: number
  company_name: string
  link: GuestLink
}

export type Principal = UserPrincipal | GuestPrincipal

export interface AccessRule {
  /** who may call; 'guest' admits shareable-link holders whose link lists the endpoint. Default: every signed-in role. */
  roles?: readonly SessionRole[]
  /** the caller's company must hold this product group */
  product?: ProductGroup
}

export type { ProductGroup, Role, SessionRole }
