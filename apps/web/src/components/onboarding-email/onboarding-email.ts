import {
  endpoints,
  ONBOARDING_MESSAGES,
  ONBOARDING_MESSAGE_PRIORITY,
  firstMessageByPriority,
  onboardingEmailRequestSchema,
  type OnboardingEmailRequest,
} from '@citrus/contracts'
import { useApiMutation } from '../../hooks/use-api'

export type OnboardingRole = OnboardingEmailRequest['role']

export const ONBOARDING_ROLE_LABELS: Record<OnboardingRole, string> = { user: 'User', admin: 'Admin', citrus: 'Citrus' }

/** Client texts of the onboarding dialog (spec 1 §8); validation texts come from @citrus/contracts. */
export const ONBOARDING_CLIENT_MESSAGES = {
  failed: 'Failed to send the onboarding email. Please try again.',
  sent: ONBOARDING_MESSAGES.sent,
  sentBody: 'An email has been sent to the user',
} as const

export interface OnboardingDraft {
  email: string
  company_activation_key: string
  role: OnboardingRole | null
}

/**
 * The first message of spec 1 §5 the draft breaks, in the documented order: 'All fields are required.',
 * 'Please enter a valid email address.', 'Invalid activation key format.' (the server's own schema).
 * Returns the request to send when the draft is valid.
 */
export function validateOnboarding(draft: OnboardingDraft): { ok: true; request: OnboardingEmailRequest } | { ok: false; message: string } {
  const parsed = onboardingEmailRequestSchema.safeParse({ ...draft, is_trial: false })
  if (parsed.success) return { ok: true, request: parsed.data }
  const messages = parsed.error.issues.map((issue) => issue.message)
  return { ok: false, message: firstMessageByPriority(messages, ONBOARDING_MESSAGE_PRIORITY) ?? ONBOARDING_MESSAGES.allFieldsRequired }
}

/** POST /admin/email/onboarding → { message_id } (spec 1 §7); the selected role is sent as chosen. */
export function useSendOnboardingEmail() {
  return useApiMutation(endpoints.admin.onboardingEmail)
}
