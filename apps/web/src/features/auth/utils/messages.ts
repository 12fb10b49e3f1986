/** Account-screen messages of spec 1 §4 and §8. */
export const ACCOUNT_MESSAGES = {
  signUpNotSuccessful: 'Signup was not successful. Please try again.',
  signUpFailed: 'Failed to create user. Please try again.',
  resetFailedTitle: 'Reset failed',
  resetNotSuccessful: 'Password reset was not successful. Please try again.',
  resetError: 'Failed to reset password. Please try again.',
  noToken: 'No Token Found',
  resetEmailSentTitle: 'Password Reset Email Sent!',
  resetEmailSentBody: 'Please check your email for a link to reset your password.',
  passwordPlaceholder: 'Minimum 8 characters',
} as const
