import { MESSAGES, memberContactSchema, normalizeUsPhone } from '@citrus/contracts'

/** The share dialog's values: the open tab and what was typed in each. */
export interface ShareValues {
  tab: 'phone' | 'email'
  phone: string
  email: string
}

/**
 * The contact's error by the contract's memberContactSchema (the send-member-link request's rule, spec 3 §5): 'Invalid
 * phone number format. Please enter a valid US phone number.', 'Please enter a valid email address.'; an empty phone
 * reads 'Phone number is required.' on this dialog. null when the contact is valid.
 */
export function shareContactError(values: ShareValues): string | null {
  const parsed = memberContactSchema.safeParse({ member_contact: values[values.tab].trim(), contact_type: values.tab })
  if (parsed.success) return null
  const message = parsed.error.issues[0]?.message ?? MESSAGES.phoneInvalid
  return message === MESSAGES.phoneRequired ? MESSAGES.phoneRequiredField : message
}

/** The contact as sent: a phone number in E.164, an e-mail address trimmed. */
export function memberContactOf(values: ShareValues): string {
  const contact = values[values.tab].trim()
  if (values.tab === 'email') return contact
  const phone = normalizeUsPhone(contact)
  return phone.ok ? phone.e164 : contact
}
