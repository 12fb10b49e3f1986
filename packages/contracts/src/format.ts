// Display formatters that the web client and the server's documents (the referral letter PDF) share, so that a
// phone number, a count or a range reads the same on every screen and on paper.

/**
 * A US phone number as (xxx) xxx-xxxx (spec 3 §5): 10 digits, or 11 starting with 1, whatever the punctuation.
 * Anything else (an extension, a foreign number) is shown as given; null or blank gives ''.
 */
export function formatUsPhone(value: string | null | undefined): string {
  const raw = (value ?? '').trim()
  const digits = raw.replace(/[\s().+-]/g, '')
  if (!/^1?\d{10}$/.test(digits)) return raw
  const ten = digits.slice(-10)
  return `(${ten.slice(0, 3)}) ${ten.slice(3, 6)}-${ten.slice(6)}`
}

/**
 * A count with its noun: "1 claim", "2 claims", "1,234 patients" (the count grouped as en-US). The plural is the
 * singular plus "s" unless given.
 */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? singular : pluralForm}`
}

/** Two amounts as a range "a – b", or one amount when both read the same once formatted. */
export function formatRange(low: number, high: number, format: (value: number) => string): string {
  const [a, b] = [format(low), format(high)]
  return a === b ? a : `${a} – ${b}`
}

/** Human labels of the CMS price file methodologies (hospital price transparency v3, lower case there). */
const METHODOLOGY_LABELS: Record<string, string> = {
  'case rate': 'Case rate',
  'fee schedule': 'Fee schedule',
  'percent of total billed charges': 'Percent of total billed charges',
  'per diem': 'Per diem',
  other: 'Other',
}

/**
 * A price file methodology as a person reads it: "FEE SCHEDULE", "fee_schedule" and "fee schedule" all give
 * "Fee schedule"; a list joined by "; " (several methodologies of a bundle) is labelled item by item.
 */
export function methodologyLabel(raw: string): string {
  return raw
    .split(';')
    .map((item) =>
      item
        .trim()
        .replace(/[_\s]+/g, ' ')
        .toLowerCase(),
    )
    .filter((item) => item !== '')
    .map((item) => METHODOLOGY_LABELS[item] ?? item.charAt(0).toUpperCase() + item.slice(1))
    .filter((label, index, labels) => labels.indexOf(label) === index)
    .join('; ')
}

/** A ratio shown as a percentage (spec 2 §9): the value × 100 to one decimal, "36.4%". */
export const formatRatioPercent = (ratio: number) => `${(ratio * 100).toFixed(1)}%`
