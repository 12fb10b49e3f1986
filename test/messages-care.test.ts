import {
  ACCESS_MESSAGES,
  CARE_BADGE_LABELS,
  MEMBER_LINK_MESSAGES,
  MESSAGES,
  REFERRAL_MESSAGES,
  badgeLabel,
  memberPasswordError,
} from '@citrus/contracts'
import { describe, expect, it } from 'vitest'
import { confirmError, emailError, phoneError } from '../apps/web/src/features/care-connect/components/access-modal.tsx'
import { cleanZip, formatDistance, formatPhone, percentileChip } from '../apps/web/src/features/care-connect/utils/format.ts'
import { CARE_MESSAGES_UI, CARE_TEXT } from '../apps/web/src/features/care-connect/utils/messages.ts'

/** Every validation and access message of spec 3 §5 and §8, pinned as literal text (issue 11). */
describe('Care Connect messages (spec 3 §5, §8)', () => {
  it('pins the validation messages of §5', () => {
    expect(CARE_MESSAGES_UI.zipFormat).toBe('Invalid ZIP code format. Expected 5 digits.')
    expect(CARE_MESSAGES_UI.zipOrTaxonomy).toBe('Please, make sure that your zip code and taxonomy code are valid.')
    expect(MESSAGES.emailRequired).toBe('Email is required')
    expect(CARE_MESSAGES_UI.emailInvalid).toBe('Please enter a valid email address')
    expect(CARE_MESSAGES_UI.phoneRequired).toBe('Phone number is required')
    expect(CARE_MESSAGES_UI.phoneInvalid10).toBe('Please enter a valid phone number')
    expect(CARE_MESSAGES_UI.passwordRequired).toBe('Password is required')
    expect(CARE_MESSAGES_UI.passwordRule).toBe('Password must be at least 6 characters with a number, uppercase, or special character')
    expect(CARE_MESSAGES_UI.confirmPassword).toBe('Please confirm your password')
    expect(CARE_MESSAGES_UI.passwordsDiffer).toBe('Passwords do not match')
    expect(ACCESS_MESSAGES.phoneMismatch).toBe("The phone number doesn't match our records")
    expect(ACCESS_MESSAGES.emailMismatch).toBe("The email doesn't match our records")
    expect(CARE_MESSAGES_UI.emailInvalidDot).toBe('Please enter a valid email address.')
    expect(CARE_MESSAGES_UI.phoneInvalid).toBe('Invalid phone number format. Please enter a valid US phone number.')
    expect(CARE_MESSAGES_UI.phoneRequiredField).toBe('Phone number is required.')
    expect(REFERRAL_MESSAGES.patientNameRequired).toBe('Patient name is required')
    expect(REFERRAL_MESSAGES.dobRequired).toBe('Date of birth is required')
    expect(REFERRAL_MESSAGES.invalidForm).toBe('Please correct the errors below and try again.')
  })

  it('applies the §5 rules with those messages', () => {
    expect(cleanZip('98-101-1234')).toBe('98101')
    expect(cleanZip('981')).toBe('981')
    expect(emailError('')).toBe('Email is required')
    expect(emailError('a@b')).toBe('Please enter a valid email address')
    expect(emailError('a@b.co')).toBeNull()
    expect(phoneError('')).toBe('Phone number is required')
    expect(phoneError('555-0100')).toBe('Please enter a valid phone number')
    expect(phoneError('(206) 555-0100')).toBeNull()
    expect(formatPhone('2065550100')).toBe('(206) 555-0100')
    expect(memberPasswordError('')).toBe('Password is required')
    expect(memberPasswordError('abcdef')).toBe('Password must be at least 6 characters with a number, uppercase, or special character')
    expect(memberPasswordError('abcde1')).toBeNull()
    expect(confirmError('abcde1', '')).toBe('Please confirm your password')
    expect(confirmError('abcde1', 'abcde2')).toBe('Passwords do not match')
    expect(percentileChip(90)).toEqual({ label: '90%', color: 'blue' })
    expect(percentileChip(89.9)).toEqual({ label: '89%', color: 'green' })
    expect(percentileChip(69.99)).toEqual({ label: '69%', color: 'gray' })
    expect(formatDistance(0.05)).toBe('264 ft')
    expect(formatDistance(2.345)).toBe('2.3 mi')
  })

  it('pins the error catalogue of §8', () => {
    expect(CARE_MESSAGES_UI.insurersFailed).toBe('Failed to fetch insurers')
    expect(CARE_MESSAGES_UI.searchFailed).toBe('Search Failed')
    expect(CARE_MESSAGES_UI.accessError).toBe('Access Error')
    expect(CARE_MESSAGES_UI.somethingWrong).toBe('Something Went Wrong')
    expect(CARE_MESSAGES_UI.somethingWrongMessage).toBe(
      'We encountered an error while loading recommendations. Please try again or contact your care coordinator.',
    )
    expect(CARE_MESSAGES_UI.noRecommendationsTitle).toBe('No Recommendations Found')
    expect(CARE_MESSAGES_UI.noRecommendations).toBe(
      "We couldn't find any providers or hospitals matching your needs. Please contact your care coordinator for assistance.",
    )
    expect(CARE_TEXT.noProvidersTitle).toBe('No Providers Found')
    expect(CARE_TEXT.noProvidersMessage).toBe('We could not find any matching results for your search.')
    expect(CARE_TEXT.adjustSearch).toBe('Adjust Search Results')
    expect(CARE_MESSAGES_UI.filterZero).toBe('No providers found for the selected filters. Please adjust your filter criteria.')
    expect(ACCESS_MESSAGES.restrictedTitle).toBe('Access Restricted')
    expect(ACCESS_MESSAGES.restricted).toBe(
      'You are not authorized to view these provider recommendations. This content was shared with specific individuals. If you believe you should have access, please contact support for assistance.',
    )
    expect(ACCESS_MESSAGES.requiredTitle).toBe('Access Required')
    expect(ACCESS_MESSAGES.required).toBe(
      'You need a valid account or invitation link to view provider recommendations. Please sign in or contact support for access.',
    )
    expect([
      ACCESS_MESSAGES.notAuthorized,
      ACCESS_MESSAGES.invalidToken,
      ACCESS_MESSAGES.noValidToken,
      ACCESS_MESSAGES.credentialsRequired,
      ACCESS_MESSAGES.loginFailed,
      ACCESS_MESSAGES.noUserId,
      ACCESS_MESSAGES.verificationFailed,
      ACCESS_MESSAGES.resendFailed,
      ACCESS_MESSAGES.userVerificationFailed,
      ACCESS_MESSAGES.needContact,
      ACCESS_MESSAGES.missingToken,
      ACCESS_MESSAGES.noToken,
      ACCESS_MESSAGES.accountCreationFailed,
    ]).toEqual([
      'You are not authorized to access this content',
      'Invalid or expired token',
      'No valid token found',
      'Email and password are required',
      'Failed to login',
      'Could not get user ID after login',
      'Verification failed',
      'Failed to resend code',
      'User verification failed',
      'At least one of email or phone must be provided for verification',
      'Missing required token parameter',
      'No token provided',
      'Account creation failed. Please try again.',
    ])
    expect(CARE_TEXT.premiumTitle).toBe('Premium Feature - Business+')
    expect(CARE_TEXT.premiumMessage).toBe('Add HCPCS procedure codes to refine your search results')
    expect(REFERRAL_MESSAGES.failed).toBe('Failed to download the referral letter. Please try again.')
    expect(REFERRAL_MESSAGES.succeeded).toBe('Referral letter downloaded successfully!')
    expect(MEMBER_LINK_MESSAGES.createFailed).toBe('Failed to create shareable URL')
    expect(MEMBER_LINK_MESSAGES.sendFailed).toBe('Failed to send the provider link. Please try again.')
    expect(MEMBER_LINK_MESSAGES.sendFailedField).toBe('Failed to send the provider link. Please check your input.')
    expect(MEMBER_LINK_MESSAGES.sent).toBe('Successfully sent provider link!')
    expect(CARE_MESSAGES_UI.copyFailed).toBe('Failed to copy to clipboard')
    expect(CARE_MESSAGES_UI.detailsCopied).toBe('Provider details copied!')
    expect(CARE_MESSAGES_UI.cardCopied('Provider')).toBe('Provider details copied to clipboard')
    expect(CARE_MESSAGES_UI.phoneCopied).toBe('Phone number copied to clipboard')
    expect(CARE_MESSAGES_UI.noPhone).toBe('No phone number to copy')
    expect(CARE_TEXT.phoneTooltip).toBe('This phone number may not be up to date.')
    expect(CARE_MESSAGES_UI.noMetrics).toBe('No Metrics Available')
    expect(CARE_MESSAGES_UI.noCategory('Procedure')).toBe('No Procedure Data')
    expect(CARE_MESSAGES_UI.noDetailed).toBe('No detailed metrics available for this provider')
    expect(CARE_MESSAGES_UI.noSelection).toBe('No providers available for this selection')
  })

  it('pins the screen texts and badge labels', () => {
    expect(CARE_TEXT.subtitle).toBe('Search for High Quality Care, Affordable Care.')
    expect([CARE_TEXT.find, CARE_TEXT.finding, CARE_TEXT.welcomeTitle]).toEqual([
      'Find Providers',
      'Finding Providers...',
      'Navigate with Confidence',
    ])
    expect([CARE_TEXT.validatingAccess, CARE_TEXT.verifyingAccess, CARE_TEXT.fetching, CARE_TEXT.analyzing]).toEqual([
      'Validating Access',
      'Verifying Access',
      'Fetching Recommended Providers',
      'Analyzing and ranking over 6 million providers...',
    ])
    expect([CARE_TEXT.letterTitle, CARE_TEXT.letterSubtitle]).toEqual([
      'Referral Letter Generator',
      'Generate professional referral documentation',
    ])
    expect([CARE_TEXT.welcome, CARE_TEXT.publicAccess, CARE_TEXT.continue]).toEqual([
      'Welcome',
      'You have been granted public access to this content',
      'Continue',
    ])
    expect([CARE_TEXT.welcomeBack, CARE_TEXT.signIn, CARE_TEXT.signingIn, CARE_TEXT.resendCode]).toEqual([
      'Welcome back!',
      'Sign In',
      'Signing in...',
      'Resend Code',
    ])
    expect(CARE_BADGE_LABELS).toEqual({
      ALL_PROCEDURES_MATCH: 'Procedure Match',
      ALL_DIAGNOSIS_MATCH: 'Diagnosis Match',
      CONFIDENTLY_AFFORDABLE: 'Confidently Affordable',
      NEW_PATIENT_AVAILABLE: 'New Patients',
    })
    expect(badgeLabel('TOP_PRESCRIBER')).toBe('top prescriber')
  })
})
