import { CARE_MESSAGES, rankingsQuerySchema } from '@citrus/contracts'
import { describe, expect, it } from 'vitest'
import { careSearchErrors, type CareSearchValues } from './search-form'

const specialty = { code: '207Q00000X', description: 'Family Medicine', genre: 'SPECIALTY' as const, score: 1 }
const values = (patch: Partial<CareSearchValues>): CareSearchValues => ({
  zip_code: '98101',
  taxonomy: specialty,
  insurer: null,
  cpt: [],
  icd: [],
  ...patch,
})

describe('care search form errors (the contract rankings query schema)', () => {
  it('accepts what the rankings query accepts', () => {
    expect(careSearchErrors(values({}))).toEqual({})
    expect(rankingsQuerySchema.safeParse({ zip_code: '98101', omni_code: specialty.code }).success).toBe(true)
  })

  it("words a ZIP the schema refuses as the screen does, and leaves a missing specialty to the schema's own message", () => {
    for (const zip of ['', '9810', 'abcde']) {
      // the contract refuses it with its API message...
      expect(rankingsQuerySchema.shape.zip_code.safeParse(zip).error?.issues[0]?.message).toBe(CARE_MESSAGES.zipFormat)
      // ...and the form shows the screen's text for it
      expect(careSearchErrors(values({ zip_code: zip }))).toEqual({ zip_code: 'Invalid ZIP code format. Expected 5 digits.' })
    }
    expect(careSearchErrors(values({ taxonomy: null }))).toEqual({ taxonomy: 'omni_code is required' })
  })
})
