import { describe, expect, it } from 'vitest'
import { isValidNpi, makeNpi, npiCheckDigit } from './npi.ts'

describe('NPI check digit', () => {
  it('matches the CMS worked example (123456789 -> 3)', () => {
    expect(npiCheckDigit('123456789')).toBe(3)
    expect(isValidNpi('1234567893')).toBe(true)
  })
  it('rejects a wrong check digit, wrong length or wrong leading digit', () => {
    expect(isValidNpi('1234567890')).toBe(false)
    expect(isValidNpi('123456789')).toBe(false)
    expect(isValidNpi('3234567893')).toBe(false)
    expect(isValidNpi('12345678a3')).toBe(false)
  })
  it('agrees with the generic Luhn check over 80840 + NPI', () => {
    const luhn = (digits: string) => {
      let sum = 0
      for (let i = 0; i < digits.length; i++) {
        let d = Number(digits[digits.length - 1 - i])
        if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2
        sum += d
      }
      return sum % 10 === 0
    }
    for (const base of ['100000000', '198765432', '246813579', '155555555']) {
      const npi = makeNpi(base)
      expect(isValidNpi(npi)).toBe(true)
      expect(luhn(`80840${npi}`)).toBe(true)
    }
  })
})
