import { z } from 'zod'

/** spec 1 §5: 5 digits, optionally a dash and 4 digits. */
export const ZIP_PATTERN = /^\d{5}(-\d{4})?$/
/** spec 1 §5: non-space text, an @, and a dot-separated domain. */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
/** spec 4 §5: 43 characters of [A-Za-z0-9_-] (32 random bytes, base64url). */
export const ACTIVATION_KEY_PATTERN = /^[A-Za-z0-9_-]{43}$/
export const PASSWORD_SYMBOLS = '#?!@$ %^&*-'

/** true/false (or 1/0) in a query string, a boolean in a JSON body */
export const booleanish = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0'])])
  .transform((value) => value === true || value === 'true' || value === '1')

export const MESSAGES = {
  emailRequired: 'Email is required',
  emailInvalid: 'Please enter a valid email address',
  emailInvalidDot: 'Please enter a valid email address.',
  emailNotValid: 'Email is not valid',
  passwordRequired: 'Password is required',
  activationKeyRequired: 'Activation key is required',
  passwordWeak: "Your password doesn't meet the requirements",
  passwordHint: 'Use 6+ characters with uppercase, number & symbol',
  phoneRequiredField: 'Phone number is required.',
  phoneRequired: 'Phone number is required',
  phoneInvalid: 'Invalid phone number format. Please enter a valid US phone number.',
  activationKeyInvalid: 'Invalid activation key format.',
  allFieldsRequired: 'All fields are required.',
} as const

export function isValidEmail(value: string): boolean {
  return EMAIL_PATTERN.test(value)
}

export function isValidZip(value: string): boolean {
  return ZIP_PATTERN.test(value)
}

export type PasswordStrength = 'Weak' | 'Medium' | 'Strong'

/** One point each (spec 1 §5): 6+ characters, upper case, lower case, digit, symbol. */
export function passwordCriteria(password: string) {
  return {
    length: password.length >= 6,
    upper: /[A-Z]/.test(password),
    lower: /[a-z]/.test(password),
    digit: /\d/.test(password),
    symbol: /[#?!@$ %^&*-]/.test(password),
  }
}

export function passwordScore(password: string): number {
  return Object.values(passwordCriteria(password)).filter(Boolean).length
}

/** Weak 0-2, Medium 3-4, Strong 5 (spec 1 §4). */
export function passwordStrength(password: string): PasswordStrength {
  const score = passwordScore(password)
  if (score <= 2) return 'Weak'
  if (score <= 4) return 'Medium'
  return 'Strong'
}

/** The server's rule (spec 4 §5): at least 8 characters and all five criteria. */
export function meetsServerPasswordRule(password: string): boolean {
  return password.length >= 8 && passwordScore(password) === 5
}

export type PhoneResult = { ok: true; e164: string } | { ok: false; message: string }

/** US phone: digits only after stripping punctuation; 10 digits, or 11 starting with 1 (spec 1 §5). */
export function normalizeUsPhone(raw: string): PhoneResult {
  const trimmed = raw.trim()
  if (trimmed === '') return { ok: false, message: MESSAGES.phoneRequired }
  const digits = trimmed.replace(/[\s().+-]/g, '')
  if (!/^\d+$/.test(digits)) return { ok: false, message: MESSAGES.phoneInvalid }
  if (digits.length === 10) return { ok: true, e164: `+1${digits}` }
  if (digits.length === 11 && digits.startsWith('1')) return { ok: true, e164: `+${digits}` }
  return { ok: false, message: MESSAGES.phoneInvalid }
}

export const emailSchema = z.string().trim().regex(EMAIL_PATTERN, MESSAGES.emailInvalidDot)
export const zipSchema = z.string().regex(ZIP_PATTERN, 'ZIP code must be 5 digits')

// ---- Shared input bounds (issue 9 §2) ----------------------------------------------------------

/** Ids and counts are PostgreSQL `integer` columns: larger numbers must be refused as bad input, not reach the database. */
export const INT32_MAX = 2_147_483_647
export const INT32_MIN = -2_147_483_648

/** Messages of the generic input checks; every request string and number passes them. */
export const INPUT_MESSAGES = {
  nulCharacter: 'Text must not contain the NUL character',
  loneSurrogate: 'Text must be valid Unicode (it contains an unpaired surrogate)',
  keyNulCharacter: 'Field names must not contain the NUL character',
  keyLoneSurrogate: 'Field names must be valid Unicode (a name contains an unpaired surrogate)',
  int32TooLarge: `Must be at most ${INT32_MAX}`,
  int32TooSmall: `Must be at least ${INT32_MIN}`,
  idInvalid: 'Must be a positive whole number',
} as const

/** A whole number that fits a PostgreSQL integer; other rules (min, max) narrow it further. */
export const int32Schema = z.number().int().min(INT32_MIN, INPUT_MESSAGES.int32TooSmall).max(INT32_MAX, INPUT_MESSAGES.int32TooLarge)
/** A database id in a JSON body: a positive int32. */
export const idSchema = z
  .number({ error: INPUT_MESSAGES.idInvalid })
  .int(INPUT_MESSAGES.idInvalid)
  .positive(INPUT_MESSAGES.idInvalid)
  .max(INT32_MAX, INPUT_MESSAGES.int32TooLarge)
/** A database id in a path or query string ("42"): a positive int32. */
export const idParamSchema = z.coerce
  .number({ error: INPUT_MESSAGES.idInvalid })
  .int(INPUT_MESSAGES.idInvalid)
  .positive(INPUT_MESSAGES.idInvalid)
  .max(INT32_MAX, INPUT_MESSAGES.int32TooLarge)

/** The text the generic input check refuses: the NUL character or a lone UTF-16 surrogate. */
export function badTextReason(value: string): 'nul' | 'surrogate' | null {
  if (value.includes('\u0000')) return 'nul'
  // with the u flag a paired surrogate is one code point, so \p{Cs} matches only lone halves
  if (/\p{Cs}/u.test(value)) return 'surrogate'
  return null
}
