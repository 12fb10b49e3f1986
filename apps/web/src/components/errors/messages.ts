import type { SessionRole } from '@citrus/contracts'

/** Texts of spec 1 §2 and §8 for error and denial screens. */
export const NOT_FOUND_MESSAGE = "Looks like the page you are looking for can't be found"
export const ROUTE_ERROR_MESSAGE = 'Something went wrong while loading this page. Please try again.'

export const ACCESS_RESTRICTED_TITLE = 'Access Restricted'
export const accessRestrictedMessage = (role: SessionRole | string) =>
  `Your current role (${role}) doesn't have permission to access this area. Please contact your administrator if you believe this is an error.`

export const PRODUCT_ACCESS_TITLE = 'Product Access Required'
export const productAccessMessage = (product: string) =>
  `You don't have access to ${product}. Please contact your administrator to request access or upgrade your subscription.`

export const INVALID_LINK_TITLE = 'Invalid or Expired Link'
export const INVALID_LINK_MESSAGE =
  'This shared link is no longer valid or has expired. Please request a new link from the person who originally shared it with you.'

export const accessDeniedMessage = (product: string) =>
  `You do not have access to the ${product} product. Please contact your administrator or reach out to us for more information`

export const NOT_AUTHORIZED_TITLE = 'Not Authorized'
export const NOT_AUTHORIZED_MESSAGE = 'This shared link does not give access to this page.'
