import { describe, expect, it } from 'vitest'
import { parseZipCsv, splitZipText } from './zips'
import { breadcrumbLabels, readAtlasQuery, writeAtlasQuery } from './search-params'

describe('ZIP chips (spec 2 §5)', () => {
  it('splits pasted text on commas, newlines, whitespace and semicolons, strips quotes, drops +4, dedupes', () => {
    expect(splitZipText('"10001", 94105-1234;10001\n3021\tabcde 606011')).toEqual({
      valid: ['10001', '94105', '60601'],
      invalid: ['3021', 'abcde'],
    })
  })

  it('reads the first ZIP-like cell of each CSV line and counts the rest as skipped', () => {
    expect(parseZipCsv('name,zip\nA,10001\nB,94105-1234\nC,none\n\n"60601",x')).toEqual({ zips: ['10001', '94105', '60601'], skipped: 2 })
  })
})

describe('Atlas URL query (spec 2 §2, §5)', () => {
  it('round-trips, sending ages only inside 0-100 and gender only M or F', () => {
    const params = new URLSearchParams(
      'icd10_cm_union_csv=E11,I10&search_within_region=US&search_within_region_type=COUNTRY&gender=X&min_age=0&max_age=70',
    )
    const query = readAtlasQuery(params)!
    expect(query).toMatchObject({ codes: ['E11', 'I10'], gender: null, min_age: null, max_age: 70, tile_granularity: 'STATE' })
    const written = writeAtlasQuery(query)
    expect(written.get('max_age')).toBe('70')
    expect(written.has('min_age')).toBe(false)
    expect(written.has('gender')).toBe(false)
  })

  it('needs both the codes and the region', () => {
    expect(readAtlasQuery(new URLSearchParams('search_within_region=US'))).toBeNull()
    expect(readAtlasQuery(new URLSearchParams('icd10_cm_union_csv=E11'))).toBeNull()
  })

  it('labels the breadcrumb chips', () => {
    const query = readAtlasQuery(
      new URLSearchParams('icd10_cm_union_csv=&search_within_region=10001&search_within_region_type=ZIP_CODE_50KM'),
    )!
    expect(breadcrumbLabels(query)).toEqual({
      analysis: 'Analysis: All Conditions',
      region: 'Region: ZIP 10001 (50km)',
      type: 'ZIP_CODE_50KM',
    })
  })
})
