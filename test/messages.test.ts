import {
  ADMIN_MESSAGES,
  API_TOKEN_MESSAGES,
  AUTH_MESSAGES,
  CLIENT_MESSAGES,
  COMPANY_MESSAGES,
  CREDIT_MESSAGES,
  FEEDBACK_MESSAGES,
  HTTP_MESSAGES,
  INPUT_MESSAGES,
  INSURER_MESSAGES,
  MESSAGES,
  ONBOARDING_MESSAGES,
  SHARE_MESSAGES,
  USER_MESSAGES,
} from '@citrus/contracts'
import { describe, expect, it } from 'vitest'
import { conflict, forbidden, notFound, unauthorized } from '../apps/server/src/lib/errors.ts'
import { DATABASE_UNAVAILABLE_MESSAGE } from '../apps/server/src/routes/health.ts'
import { ONBOARDING_CLIENT_MESSAGES } from '../apps/web/src/components/onboarding-email/onboarding-email.ts'
import * as errorScreens from '../apps/web/src/components/errors/messages.ts'
import { emptyListMessage, emptyListTitle } from '../apps/web/src/components/feedback/empty-state.tsx'
import { DEFAULT_LOADING_TEXT } from '../apps/web/src/components/feedback/loading.tsx'
import { API_KEY_MESSAGES } from '../apps/web/src/features/api-keys/utils/messages.ts'
import { NO_TOKEN_MESSAGE } from '../apps/web/src/features/auth/api/login.ts'
import { SIGN_IN_FAILED } from '../apps/web/src/features/auth/components/sign-in-form.tsx'
import { ACCOUNT_MESSAGES } from '../apps/web/src/features/auth/utils/messages.ts'
import { productUnavailableMessage } from '../apps/web/src/features/launcher/utils/apps.ts'
import { SUPER_ADMIN_MESSAGES } from '../apps/web/src/features/super-admin/utils/messages.ts'
import { TEAM_MESSAGES } from '../apps/web/src/features/team/utils/messages.ts'
import { buildPath } from '../apps/web/src/lib/api-client.ts'
import { CLIPBOARD_MESSAGES } from '../apps/web/src/lib/clipboard.ts'

/*
 * Every documented message, pinned as literal text. The expected strings are copied from the specification
 * (/work/shared/spec: "1 §8" = document 1, section 8), or, for the messages the specification leaves to the
 * server (its own errors, input guards, shareable links), from the API documentation of this repository; they
 * are never read from the constants under test, so a changed message fails here. A message object that gains a
 * key without a row here fails the completeness check below.
 */

type Row = readonly [name: string, actual: unknown, expected: string, source: string]

const S1_5 = 'spec 1 §5'
const S1_8 = 'spec 1 §8'
const S3_8 = 'spec 3 §8'
const OURS = 'server (not given by the specification)'
const OURS_CLIENT = 'client (not given by the specification)'

const rows: Row[] = [
  // packages/contracts: validation (spec 1 §5)
  ['MESSAGES.emailRequired', MESSAGES.emailRequired, 'Email is required', S1_5],
  ['MESSAGES.emailInvalid', MESSAGES.emailInvalid, 'Please enter a valid email address', S1_5],
  ['MESSAGES.emailInvalidDot', MESSAGES.emailInvalidDot, 'Please enter a valid email address.', S1_5],
  ['MESSAGES.emailNotValid', MESSAGES.emailNotValid, 'Email is not valid', S1_5],
  ['MESSAGES.passwordRequired', MESSAGES.passwordRequired, 'Password is required', S1_5],
  ['MESSAGES.activationKeyRequired', MESSAGES.activationKeyRequired, 'Activation key is required', S1_5],
  ['MESSAGES.passwordWeak', MESSAGES.passwordWeak, "Your password doesn't meet the requirements", S1_5],
  ['MESSAGES.passwordHint', MESSAGES.passwordHint, 'Use 6+ characters with uppercase, number & symbol', S1_5],
  ['MESSAGES.phoneRequiredField', MESSAGES.phoneRequiredField, 'Phone number is required.', S1_5],
  ['MESSAGES.phoneRequired', MESSAGES.phoneRequired, 'Phone number is required', S1_5],
  ['MESSAGES.phoneInvalid', MESSAGES.phoneInvalid, 'Invalid phone number format. Please enter a valid US phone number.', S1_5],
  ['MESSAGES.activationKeyInvalid', MESSAGES.activationKeyInvalid, 'Invalid activation key format.', S1_5],
  ['MESSAGES.allFieldsRequired', MESSAGES.allFieldsRequired, 'All fields are required.', S1_5],

  // packages/contracts: input guards (issue 9 §2: 400 with the field named)
  ['INPUT_MESSAGES.nulCharacter', INPUT_MESSAGES.nulCharacter, 'Text must not contain the NUL character', OURS],
  ['INPUT_MESSAGES.loneSurrogate', INPUT_MESSAGES.loneSurrogate, 'Text must be valid Unicode (it contains an unpaired surrogate)', OURS],
  ['INPUT_MESSAGES.keyNulCharacter', INPUT_MESSAGES.keyNulCharacter, 'Field names must not contain the NUL character', OURS],
  [
    'INPUT_MESSAGES.keyLoneSurrogate',
    INPUT_MESSAGES.keyLoneSurrogate,
    'Field names must be valid Unicode (a name contains an unpaired surrogate)',
    OURS,
  ],
  ['INPUT_MESSAGES.int32TooLarge', INPUT_MESSAGES.int32TooLarge, 'Must be at most 2147483647', OURS],
  ['INPUT_MESSAGES.int32TooSmall', INPUT_MESSAGES.int32TooSmall, 'Must be at least -2147483648', OURS],
  ['INPUT_MESSAGES.idInvalid', INPUT_MESSAGES.idInvalid, 'Must be a positive whole number', OURS],

  // packages/contracts: users and sign-in
  ['USER_MESSAGES.invalidCredentials', USER_MESSAGES.invalidCredentials, 'Invalid email or password', OURS],
  ['USER_MESSAGES.signupSuccess', USER_MESSAGES.signupSuccess, 'User created successfully', OURS],
  ['USER_MESSAGES.emailTaken', USER_MESSAGES.emailTaken, 'An account with this email already exists', OURS],
  ['USER_MESSAGES.activationKeyUnknown', USER_MESSAGES.activationKeyUnknown, 'No company matches this activation key', OURS],
  [
    'USER_MESSAGES.resetTokenInvalid',
    USER_MESSAGES.resetTokenInvalid,
    'This password reset link is invalid or has expired. Please request a new one.',
    OURS,
  ],
  [
    'USER_MESSAGES.verifyNeedsContact',
    USER_MESSAGES.verifyNeedsContact,
    'At least one of email or phone must be provided for verification',
    S3_8,
  ],
  ['USER_MESSAGES.newPasswordRequired', USER_MESSAGES.newPasswordRequired, 'New password is required', OURS],
  ['USER_MESSAGES.resetTokenRequired', USER_MESSAGES.resetTokenRequired, 'Missing required token parameter', S3_8],
  [
    'USER_MESSAGES.invitationInvalid',
    USER_MESSAGES.invitationInvalid,
    'This invitation link is invalid, has expired or was made for another e-mail address. Ask your administrator for a new invitation.',
    OURS,
  ],
  [
    'USER_MESSAGES.invitationPending',
    USER_MESSAGES.invitationPending,
    'This e-mail address has a pending invitation. Create your account with the link in the invitation e-mail, or ask your administrator to send it again.',
    OURS,
  ],
  ['AUTH_MESSAGES.authRequired', AUTH_MESSAGES.authRequired, 'Authentication required', OURS],
  ['AUTH_MESSAGES.malformedHeader', AUTH_MESSAGES.malformedHeader, 'The Authorization header must be "Bearer <token>"', OURS],
  ['AUTH_MESSAGES.invalidToken', AUTH_MESSAGES.invalidToken, 'Invalid authentication token', OURS],
  ['AUTH_MESSAGES.sessionExpired', AUTH_MESSAGES.sessionExpired, 'Your session has expired. Please sign in again.', OURS],
  ['AUTH_MESSAGES.accountInactive', AUTH_MESSAGES.accountInactive, 'Your account is no longer active. Please sign in again.', OURS],
  [
    'AUTH_MESSAGES.sessionRevoked',
    AUTH_MESSAGES.sessionRevoked,
    'Your session has ended because your account changed. Please sign in again.',
    OURS,
  ],
  ['AUTH_MESSAGES.invalidApiKey', AUTH_MESSAGES.invalidApiKey, 'Invalid API key', OURS],
  ['AUTH_MESSAGES.rateLimited', AUTH_MESSAGES.rateLimited('15 minutes'), 'Too many attempts. Please try again in 15 minutes.', OURS],
  [
    'AUTH_MESSAGES.roleDenied',
    AUTH_MESSAGES.roleDenied('member'),
    "Your current role (member) doesn't have permission to perform this action",
    OURS,
  ],
  ['AUTH_MESSAGES.productDenied', AUTH_MESSAGES.productDenied('ATLAS'), "Your organization doesn't have access to the ATLAS product", OURS],

  // packages/contracts: administration
  ['API_TOKEN_MESSAGES.maxTokens', API_TOKEN_MESSAGES.maxTokens, 'User has reached max number of tokens.', S1_8],
  ['API_TOKEN_MESSAGES.nameRequired', API_TOKEN_MESSAGES.nameRequired, 'Please provide a name for the key.', S1_5],
  ['API_TOKEN_MESSAGES.deleted', API_TOKEN_MESSAGES.deleted, 'Token Deleted', S1_8],
  ['API_TOKEN_MESSAGES.notFound', API_TOKEN_MESSAGES.notFound, 'API token not found', OURS],
  ['API_TOKEN_MESSAGES.idRequired', API_TOKEN_MESSAGES.idRequired, 'Token id is required', OURS],
  ['API_TOKEN_MESSAGES.ownCompanyOnly', API_TOKEN_MESSAGES.ownCompanyOnly, 'API keys can only be created for your own company', OURS],
  ['API_TOKEN_MESSAGES.revoked', API_TOKEN_MESSAGES.revoked, 'This API key has been revoked', OURS],
  [
    'API_TOKEN_MESSAGES.ownerInactive',
    API_TOKEN_MESSAGES.ownerInactive,
    'This API key is disabled because its owner is no longer active in the organization',
    OURS,
  ],
  ['ADMIN_MESSAGES.otherCompany', ADMIN_MESSAGES.otherCompany, "You do not have access to another company's administration", OURS],
  ['ADMIN_MESSAGES.userNotFound', ADMIN_MESSAGES.userNotFound, 'User not found', OURS],
  ['ONBOARDING_MESSAGES.allFieldsRequired', ONBOARDING_MESSAGES.allFieldsRequired, 'All fields are required.', S1_5],
  ['ONBOARDING_MESSAGES.emailInvalid', ONBOARDING_MESSAGES.emailInvalid, 'Please enter a valid email address.', S1_5],
  ['ONBOARDING_MESSAGES.activationKeyInvalid', ONBOARDING_MESSAGES.activationKeyInvalid, 'Invalid activation key format.', S1_5],
  ['ONBOARDING_MESSAGES.roleInvalid', ONBOARDING_MESSAGES.roleInvalid, 'Role must be one of user, admin or citrus.', OURS],
  [
    'ONBOARDING_MESSAGES.roleNotAllowed',
    ONBOARDING_MESSAGES.roleNotAllowed,
    'You can only invite users with the role user or admin.',
    OURS,
  ],
  [
    'ONBOARDING_MESSAGES.notYourCompany',
    ONBOARDING_MESSAGES.notYourCompany,
    'This activation key does not belong to your organization.',
    OURS,
  ],
  ['ONBOARDING_MESSAGES.unknownKey', ONBOARDING_MESSAGES.unknownKey, 'No company matches this activation key', OURS],
  ['ONBOARDING_MESSAGES.alreadyMember', ONBOARDING_MESSAGES.alreadyMember, 'An account with this email already exists', OURS],
  ['ONBOARDING_MESSAGES.sent', ONBOARDING_MESSAGES.sent('ana@example.com'), 'Onboarding email sent successfully to ana@example.com', S1_8],
  [
    'CREDIT_MESSAGES.exhausted',
    CREDIT_MESSAGES.exhausted('ATLAS', '2026-12-01'),
    'Your organization has used all CITRUS ATLAS credits for this cycle. Credits renew on 2026-12-01.',
    OURS,
  ],
  ['COMPANY_MESSAGES.fieldsRequired', COMPANY_MESSAGES.fieldsRequired, 'Please fill in all required fields correctly.', S1_5],
  ['COMPANY_MESSAGES.notFound', COMPANY_MESSAGES.notFound(7), 'Company 7 not found', OURS],
  ['COMPANY_MESSAGES.duplicateGroup', COMPANY_MESSAGES.duplicateGroup('NOVA'), 'Product group NOVA is listed twice', OURS],
  ['COMPANY_MESSAGES.updated', COMPANY_MESSAGES.updated, 'Company updated successfully', S1_8],
  ['COMPANY_MESSAGES.activated', COMPANY_MESSAGES.activated, 'Company activated successfully', S1_8],

  // packages/contracts: shareable links, feedback, insurers
  ['SHARE_MESSAGES.created', SHARE_MESSAGES.created, 'Shareable URL created', OURS],
  ['SHARE_MESSAGES.revoked', SHARE_MESSAGES.revoked, 'Shareable link revoked', OURS],
  [
    'SHARE_MESSAGES.revokeDenied',
    SHARE_MESSAGES.revokeDenied,
    'Only the creator of this link, an admin of its company or Citrus staff can revoke it',
    OURS,
  ],
  ['SHARE_MESSAGES.notFound', SHARE_MESSAGES.notFound, 'Shareable link not found', OURS],
  ['SHARE_MESSAGES.invalidToken', SHARE_MESSAGES.invalidToken, 'This shared link is no longer valid or has expired.', OURS],
  ['SHARE_MESSAGES.endpointNotAllowed', SHARE_MESSAGES.endpointNotAllowed, 'This shared link does not grant access to this endpoint', OURS],
  [
    'SHARE_MESSAGES.verificationRequired',
    SHARE_MESSAGES.verificationRequired,
    'This shared link requires verification before it grants access',
    OURS,
  ],
  [
    'SHARE_MESSAGES.signInRequired',
    SHARE_MESSAGES.signInRequired,
    'This shared link is restricted to specific users. Please sign in.',
    OURS,
  ],
  ['SHARE_MESSAGES.userNotAuthorized', SHARE_MESSAGES.userNotAuthorized, 'You are not authorized to access this content', S3_8],
  ['SHARE_MESSAGES.apiEndpointInvalid', SHARE_MESSAGES.apiEndpointInvalid, 'API endpoints must look like "GET /path" or "/path"', OURS],
  ['SHARE_MESSAGES.clientRouteInvalid', SHARE_MESSAGES.clientRouteInvalid, 'Client routes must be paths starting with /', OURS],
  [
    'SHARE_MESSAGES.emailVerificationNeedsInvite',
    SHARE_MESSAGES.emailVerificationNeedsInvite,
    'A link that requires e-mail verification must name the invited e-mail address (invite_email)',
    OURS,
  ],
  [
    'SHARE_MESSAGES.phoneVerificationNeedsInvite',
    SHARE_MESSAGES.phoneVerificationNeedsInvite,
    'A link that requires phone verification must name the invited phone number (invite_phone)',
    OURS,
  ],
  ['FEEDBACK_MESSAGES.success', FEEDBACK_MESSAGES.success, 'Feedback submitted successfully!', S1_8],
  ['FEEDBACK_MESSAGES.failedKey', FEEDBACK_MESSAGES.failedKey, 'feedback_submission_failed', S1_8],
  ['FEEDBACK_MESSAGES.ratingRange', FEEDBACK_MESSAGES.ratingRange, 'Rating must be a whole number from 1 to 5', OURS],
  ['INSURER_MESSAGES.careSearchFailed', INSURER_MESSAGES.careSearchFailed, 'Failed to fetch insurers', S3_8],
  ['INSURER_MESSAGES.priceCheckFailed', INSURER_MESSAGES.priceCheckFailed, 'Failed to load insurers', S3_8],

  // packages/contracts: HTTP-level errors (issue 9 §2: every response in the envelope) and the client's
  ['HTTP_MESSAGES.badUrl', HTTP_MESSAGES.badUrl, 'The request URL is not valid (bad percent-encoding)', OURS],
  ['HTTP_MESSAGES.paramTooLong', HTTP_MESSAGES.paramTooLong, 'A path parameter of the request URL is too long', OURS],
  ['HTTP_MESSAGES.headersTooLarge', HTTP_MESSAGES.headersTooLarge, 'The request URL or headers are too large', OURS],
  ['HTTP_MESSAGES.timeout', HTTP_MESSAGES.timeout, 'The request took too long to arrive', OURS],
  ['HTTP_MESSAGES.malformed', HTTP_MESSAGES.malformed, 'The request is not valid HTTP', OURS],
  ['HTTP_MESSAGES.bodyTooLarge', HTTP_MESSAGES.bodyTooLarge, 'Request body is too large', OURS],
  ['HTTP_MESSAGES.unsupportedMediaType', HTTP_MESSAGES.unsupportedMediaType, 'Unsupported content type', OURS],
  ['HTTP_MESSAGES.invalidJson', HTTP_MESSAGES.invalidJson, 'Request body is not valid JSON', OURS],
  [
    'HTTP_MESSAGES.malformedMultipart',
    HTTP_MESSAGES.malformedMultipart,
    'The multipart/form-data body is malformed (missing or mismatched boundary, or cut short)',
    OURS,
  ],
  ['HTTP_MESSAGES.internal', HTTP_MESSAGES.internal, 'Internal Server Error', OURS],
  ['CLIENT_MESSAGES.unexpected', CLIENT_MESSAGES.unexpected, 'An unexpected error occurred.', S1_8],
  ['CLIENT_MESSAGES.network', CLIENT_MESSAGES.network, 'Network Error - Please check your internet connection.', S1_8],
  ['CLIENT_MESSAGES.tokenError', CLIENT_MESSAGES.tokenError, 'Token Error', S1_8],

  // the server's own
  ['DATABASE_UNAVAILABLE_MESSAGE', DATABASE_UNAVAILABLE_MESSAGE, 'The database is not answering', OURS],
  ['unauthorized()', unauthorized().message, 'Authentication required', OURS],
  ['forbidden()', forbidden().message, 'You do not have permission to perform this action', OURS],
  ['notFound()', notFound().message, 'Not found', OURS],
  ['conflict(message)', conflict('Already there').message, 'Already there', OURS],

  // the client's screens
  ['NO_TOKEN_MESSAGE', NO_TOKEN_MESSAGE, 'No token received', 'spec 1 §7'],
  ['SIGN_IN_FAILED', SIGN_IN_FAILED, 'Authentication failed', S1_8],
  ['ACCOUNT_MESSAGES.signUpNotSuccessful', ACCOUNT_MESSAGES.signUpNotSuccessful, 'Signup was not successful. Please try again.', S1_8],
  ['ACCOUNT_MESSAGES.signUpFailed', ACCOUNT_MESSAGES.signUpFailed, 'Failed to create user. Please try again.', S1_8],
  ['ACCOUNT_MESSAGES.resetFailedTitle', ACCOUNT_MESSAGES.resetFailedTitle, 'Reset failed', S1_8],
  [
    'ACCOUNT_MESSAGES.resetNotSuccessful',
    ACCOUNT_MESSAGES.resetNotSuccessful,
    'Password reset was not successful. Please try again.',
    S1_8,
  ],
  ['ACCOUNT_MESSAGES.resetError', ACCOUNT_MESSAGES.resetError, 'Failed to reset password. Please try again.', S1_8],
  ['ACCOUNT_MESSAGES.noToken', ACCOUNT_MESSAGES.noToken, 'No Token Found', S1_8],
  ['ACCOUNT_MESSAGES.resetEmailSentTitle', ACCOUNT_MESSAGES.resetEmailSentTitle, 'Password Reset Email Sent!', 'spec 1 §4'],
  [
    'ACCOUNT_MESSAGES.resetEmailSentBody',
    ACCOUNT_MESSAGES.resetEmailSentBody,
    'Please check your email for a link to reset your password.',
    'spec 1 §4',
  ],
  ['ACCOUNT_MESSAGES.passwordPlaceholder', ACCOUNT_MESSAGES.passwordPlaceholder, 'Minimum 8 characters', S1_5],
  ['API_KEY_MESSAGES.nameRequired', API_KEY_MESSAGES.nameRequired, 'Please provide a name for the key.', S1_5],
  ['API_KEY_MESSAGES.maxTokens', API_KEY_MESSAGES.maxTokens, 'User has reached max number of tokens.', S1_8],
  ['API_KEY_MESSAGES.createFailed', API_KEY_MESSAGES.createFailed, 'Failed to create the API token.', S1_8],
  ['API_KEY_MESSAGES.companyIdNotSet', API_KEY_MESSAGES.companyIdNotSet, 'Company ID not set', S1_8],
  ['API_KEY_MESSAGES.fetchNoCompany', API_KEY_MESSAGES.fetchNoCompany, 'Failed to fetch tokens - company id null', S1_8],
  ['API_KEY_MESSAGES.fetchFailed', API_KEY_MESSAGES.fetchFailed, 'Failed to fetch tokens', S1_8],
  ['API_KEY_MESSAGES.deleteFailed', API_KEY_MESSAGES.deleteFailed, 'Failed to delete the token', S1_8],
  ['API_KEY_MESSAGES.copied', API_KEY_MESSAGES.copied, 'API Key Copied!', S1_8],
  ['API_KEY_MESSAGES.deleted', API_KEY_MESSAGES.deleted, 'Token Deleted', S1_8],
  ['API_KEY_MESSAGES.empty', API_KEY_MESSAGES.empty, 'No API keys found', 'spec 1 §2'],
  ['API_KEY_MESSAGES.unnamed', API_KEY_MESSAGES.unnamed, 'Unnamed Token', 'spec 1 §2'],
  ['API_KEY_MESSAGES.notAvailable', API_KEY_MESSAGES.notAvailable, 'N/A', 'spec 1 §2'],
  ['API_KEY_MESSAGES.unknownDate', API_KEY_MESSAGES.unknownDate, 'Unknown', 'spec 1 §2'],
  ['API_KEY_MESSAGES.unused', API_KEY_MESSAGES.unused, 'Unused', 'spec 1 §2'],
  ['SUPER_ADMIN_MESSAGES.fieldsRequired', SUPER_ADMIN_MESSAGES.fieldsRequired, 'Please fill in all required fields correctly.', S1_5],
  ['SUPER_ADMIN_MESSAGES.companiesMissing', SUPER_ADMIN_MESSAGES.companiesMissing, 'Companies could not be fetched', S1_8],
  ['SUPER_ADMIN_MESSAGES.companiesFailed', SUPER_ADMIN_MESSAGES.companiesFailed, 'Failed to load companies.', S1_8],
  ['SUPER_ADMIN_MESSAGES.companyFailed', SUPER_ADMIN_MESSAGES.companyFailed, 'Failed to load company details.', S1_8],
  ['SUPER_ADMIN_MESSAGES.updateFailed', SUPER_ADMIN_MESSAGES.updateFailed, 'Failed to update company', S1_8],
  ['SUPER_ADMIN_MESSAGES.createFailed', SUPER_ADMIN_MESSAGES.createFailed, 'Failed to activate company', S1_8],
  ['SUPER_ADMIN_MESSAGES.requestFailed', SUPER_ADMIN_MESSAGES.requestFailed, 'Failed to process the request.', S1_8],
  ['SUPER_ADMIN_MESSAGES.usersFailed', SUPER_ADMIN_MESSAGES.usersFailed, 'Failed to fetch users', S1_8],
  ['SUPER_ADMIN_MESSAGES.updated', SUPER_ADMIN_MESSAGES.updated, 'Company updated successfully', S1_8],
  ['SUPER_ADMIN_MESSAGES.activated', SUPER_ADMIN_MESSAGES.activated, 'Company activated successfully', S1_8],
  ['SUPER_ADMIN_MESSAGES.noCompanies', SUPER_ADMIN_MESSAGES.noCompanies, 'No companies found', 'spec 1 §2'],
  ['SUPER_ADMIN_MESSAGES.noUsers', SUPER_ADMIN_MESSAGES.noUsers, 'No users found for this company.', 'spec 1 §2'],
  ['SUPER_ADMIN_MESSAGES.companyUsersTitle', SUPER_ADMIN_MESSAGES.companyUsersTitle(12), 'User Management for Company 12', 'spec 1 §2'],
  ['TEAM_MESSAGES.noUsers', TEAM_MESSAGES.noUsers, 'No users found', 'spec 1 §2'],
  ['TEAM_MESSAGES.noUsage', TEAM_MESSAGES.noUsage, 'No product usage data available', 'spec 1 §2'],
  ['TEAM_MESSAGES.usersFailed', TEAM_MESSAGES.usersFailed, 'Failed to load users', OURS_CLIENT],
  ['TEAM_MESSAGES.usageFailed', TEAM_MESSAGES.usageFailed, 'Failed to load product usage', OURS_CLIENT],
  ['TEAM_MESSAGES.unlimited', TEAM_MESSAGES.unlimited, 'Unlimited', 'spec 1 §2'],
  ['TEAM_MESSAGES.limited', TEAM_MESSAGES.limited, 'Limited', 'spec 1 §2'],
  ['ONBOARDING_CLIENT_MESSAGES.failed', ONBOARDING_CLIENT_MESSAGES.failed, 'Failed to send the onboarding email. Please try again.', S1_8],
  [
    'ONBOARDING_CLIENT_MESSAGES.sent',
    ONBOARDING_CLIENT_MESSAGES.sent('bo@example.com'),
    'Onboarding email sent successfully to bo@example.com',
    S1_8,
  ],
  ['ONBOARDING_CLIENT_MESSAGES.sentBody', ONBOARDING_CLIENT_MESSAGES.sentBody, 'An email has been sent to the user', S1_8],
  ['CLIPBOARD_MESSAGES.failed', CLIPBOARD_MESSAGES.failed, 'Failed to copy to clipboard', S1_8],
  ['NOT_FOUND_MESSAGE', errorScreens.NOT_FOUND_MESSAGE, "Looks like the page you are looking for can't be found", 'spec 1 §2'],
  ['ROUTE_ERROR_MESSAGE', errorScreens.ROUTE_ERROR_MESSAGE, 'Something went wrong while loading this page. Please try again.', OURS_CLIENT],
  ['ACCESS_RESTRICTED_TITLE', errorScreens.ACCESS_RESTRICTED_TITLE, 'Access Restricted', S1_8],
  [
    'accessRestrictedMessage',
    errorScreens.accessRestrictedMessage('member'),
    "Your current role (member) doesn't have permission to access this area. Please contact your administrator if you believe this is an error.",
    S1_8,
  ],
  ['PRODUCT_ACCESS_TITLE', errorScreens.PRODUCT_ACCESS_TITLE, 'Product Access Required', S1_8],
  [
    'productAccessMessage',
    errorScreens.productAccessMessage('Atlas'),
    "You don't have access to Atlas. Please contact your administrator to request access or upgrade your subscription.",
    S1_8,
  ],
  ['INVALID_LINK_TITLE', errorScreens.INVALID_LINK_TITLE, 'Invalid or Expired Link', S1_8],
  [
    'INVALID_LINK_MESSAGE',
    errorScreens.INVALID_LINK_MESSAGE,
    'This shared link is no longer valid or has expired. Please request a new link from the person who originally shared it with you.',
    S1_8,
  ],
  [
    'accessDeniedMessage',
    errorScreens.accessDeniedMessage('Nova'),
    'You do not have access to the Nova product. Please contact your administrator or reach out to us for more information',
    'spec 1 §2',
  ],
  ['NOT_AUTHORIZED_TITLE', errorScreens.NOT_AUTHORIZED_TITLE, 'Not Authorized', OURS_CLIENT],
  ['NOT_AUTHORIZED_MESSAGE', errorScreens.NOT_AUTHORIZED_MESSAGE, 'This shared link does not give access to this page.', OURS_CLIENT],
  [
    'productUnavailableMessage',
    productUnavailableMessage('sales@citrus.example'),
    "It looks like your organization doesn't have access to this product yet. Contact us at sales@citrus.example for access.",
    S1_8,
  ],
  ['emptyListTitle', emptyListTitle('Providers'), 'No Providers Found', S1_8],
  [
    'emptyListMessage',
    emptyListMessage('providers'),
    'There are no providers to display. Try adjusting your filters or search criteria.',
    S1_8,
  ],
  ['DEFAULT_LOADING_TEXT', DEFAULT_LOADING_TEXT, 'Loading...', 'spec 1 §2'],
  [
    'buildPath (missing parameters)',
    messageOf(() => buildPath('/super-admin/company/{id}/users', {})),
    'Missing required path parameters for /super-admin/company/{id}/users: id',
    S1_5,
  ],
]

function messageOf(run: () => unknown): string {
  try {
    run()
  } catch (error) {
    return (error as Error).message
  }
  return '(no error)'
}

/** Message objects whose every key must have a row (a new message is pinned or this fails). */
const messageObjects: Record<string, object> = {
  MESSAGES,
  INPUT_MESSAGES,
  USER_MESSAGES,
  AUTH_MESSAGES,
  API_TOKEN_MESSAGES,
  ADMIN_MESSAGES,
  ONBOARDING_MESSAGES,
  CREDIT_MESSAGES,
  COMPANY_MESSAGES,
  SHARE_MESSAGES,
  FEEDBACK_MESSAGES,
  INSURER_MESSAGES,
  HTTP_MESSAGES,
  CLIENT_MESSAGES,
  ACCOUNT_MESSAGES,
  API_KEY_MESSAGES,
  SUPER_ADMIN_MESSAGES,
  TEAM_MESSAGES,
  ONBOARDING_CLIENT_MESSAGES,
  CLIPBOARD_MESSAGES,
}

describe('documented messages', () => {
  it.each(rows)('%s is the documented text (%#)', (_name, actual, expected) => {
    expect(actual).toBe(expected)
  })

  it('every key of every message object is pinned above', () => {
    const pinned = new Set(rows.map(([name]) => name))
    const unpinned = Object.entries(messageObjects).flatMap(([object, messages]) =>
      Object.keys(messages)
        .map((key) => `${object}.${key}`)
        .filter((name) => !pinned.has(name)),
    )
    expect(unpinned).toEqual([])
  })

  it('names each row once', () => {
    const names = rows.map(([name]) => name)
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([])
  })
})
