import { describe, expect, it } from 'vitest'
import { formatRange, formatRatioPercent, formatUsPhone, methodologyLabel, plural } from './format.js'

describe('shared display formatters (issue 33 items 9-11)', () => {
  it('formats a US phone number as (xxx) xxx-xxxx whatever its punctuation; anything else as given', () => {
    expect(formatUsPhone('2745550112')).toBe('(274) 555-0112')
    expect(formatUsPhone('+1 305-555-0169')).toBe('(305) 555-0169')
    expect(formatUsPhone('(305) 555.0169')).toBe('(305) 555-0169')
    expect(formatUsPhone('13055550169')).toBe('(305) 555-0169')
    expect(formatUsPhone('555-0169')).toBe('555-0169')
    expect(formatUsPhone('305 555 0169 ext 2')).toBe('305 555 0169 ext 2')
    expect(formatUsPhone(null)).toBe('')
    expect(formatUsPhone(undefined)).toBe('')
  })

  it('says 1 claim and 2 claims', () => {
    expect(plural(1, 'claim')).toBe('1 claim')
    expect(plural(0, 'claim')).toBe('0 claims')
    expect(plural(2, 'clinician')).toBe('2 clinicians')
    expect(plural(1234, 'patient')).toBe('1,234 patients')
    expect(plural(1, 'facility', 'facilities')).toBe('1 facility')
    expect(plural(3, 'facility', 'facilities')).toBe('3 facilities')
  })

  it('shows a range whose ends read the same as one value', () => {
    const usd = (v: number) => `$${v.toFixed(2)}`
    expect(formatRange(48.11, 48.11, usd)).toBe('$48.11')
    expect(formatRange(48.111, 48.109, usd)).toBe('$48.11')
    expect(formatRange(40, 48.11, usd)).toBe('$40.00 – $48.11')
  })

  it('labels price file methodologies for people', () => {
    expect(methodologyLabel('FEE SCHEDULE')).toBe('Fee schedule')
    expect(methodologyLabel('fee_schedule')).toBe('Fee schedule')
    expect(methodologyLabel('case rate; FEE SCHEDULE')).toBe('Case rate; Fee schedule')
    expect(methodologyLabel('percent of total billed charges')).toBe('Percent of total billed charges')
    expect(methodologyLabel('CAPITATION')).toBe('Capitation')
  })

  it('shows a ratio as a percentage to one decimal (spec 2 §9)', () => {
    expect(formatRatioPercent(0.3636)).toBe('36.4%')
    expect(formatRatioPercent(1)).toBe('100.0%')
  })
})
