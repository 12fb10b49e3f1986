/** Small value normalisers shared by the parsers. */

/** MM/DD/YYYY, M/D/YYYY or YYYY-MM-DD → YYYY-MM-DD; undefined when not a valid date. */
export function isoDate(text: string): string | undefined {
  const s = text.trim()
  let y: number, m: number, d: number
  let match = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(s)
  if (match) [y, m, d] = [Number(match[3]), Number(match[1]), Number(match[2])]
  else if ((match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s))) [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])]
  else if ((match = /^(\d{4})(\d{2})(\d{2})$/.exec(s))) [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])]
  else return undefined
  const date = new Date(Date.UTC(y, m - 1, d))
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) return undefined
  return date.toISOString().slice(0, 10)
}

/** US phone → 10 digits (a leading country code 1 dropped); undefined when it is not a 10-digit number. */
export function phoneDigits(text: string): string | undefined {
  let digits = text.replace(/\D/g, '')
  if (digits.length === 11 && digits.startsWith('1')) digits = digits.slice(1)
  return digits.length === 10 ? digits : undefined
}

/** '123456789' → {zip:'12345', zip4:'6789'}; '1234' (lost leading zero) → '01234'. */
export function splitZip(text: string): { zip: string; zip4?: string } | undefined {
  const digits = text.trim().replace(/-/g, '')
  if (/^\d{9}$/.test(digits)) return { zip: digits.slice(0, 5), zip4: digits.slice(5) }
  if (/^\d{5}$/.test(digits)) return { zip: digits }
  if (/^\d{3,4}$/.test(digits)) return { zip: digits.padStart(5, '0') }
  return undefined
}

/** A decimal number; '' → null; thousands separators and a leading $ are accepted; undefined when invalid. */
export function decimal(text: string): number | null | undefined {
  const s = text.trim().replace(/^\$/, '').replace(/,/g, '')
  if (s === '') return null
  if (!/^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(s)) return undefined
  return Number(s)
}

export const nullIfEmpty = (text: string): string | null => {
  const s = text.trim()
  return s === '' ? null : s
}
