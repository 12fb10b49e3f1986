/**
 * NPI check digit: the Luhn algorithm over the 9-digit identifier prefixed with the card-issuer prefix 80840
 * (CMS, "Requirements for NPI check digit"); the constant 24 accounts for the prefix digits.
 */
export function npiCheckDigit(first9: string): number {
  if (!/^\d{9}$/.test(first9)) throw new Error('an NPI base is 9 digits')
  let sum = 24
  for (let i = 0; i < 9; i++) {
    let d = first9.charCodeAt(8 - i) - 48
    if (i % 2 === 0) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return (10 - (sum % 10)) % 10
}

export function isValidNpi(npi: string): boolean {
  return /^[12]\d{9}$/.test(npi) && npiCheckDigit(npi.slice(0, 9)) === npi.charCodeAt(9) - 48
}

/** Builds a valid NPI from a 9-digit base whose first digit is 1 (individuals) or 2 (organisations). */
export function makeNpi(first9: string): string {
  return `${first9}${npiCheckDigit(first9)}`
}
