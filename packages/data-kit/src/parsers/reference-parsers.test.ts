import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { openFile } from '../io/text-source.ts'
import { sharedFile } from '../testing.ts'
import { parseCensusCountyPopulation, parseGazetteerCounties } from './census.ts'
import { parseCmsHospitals } from './cms-hospitals.ts'
import { parseHcpcs } from './hcpcs.ts'
import { parseIcd10CmOrder } from './icd10cm.ts'
import { parseNuccTaxonomy } from './nucc.ts'
import { collect } from './result.ts'

const fixture = (name: string) => openFile(path.join(import.meta.dirname, 'fixtures', name))

describe('parseNuccTaxonomy', () => {
  it('parses quoted multi-line definitions and rejects bad codes and missing groupings', async () => {
    const { rows, rejected } = await collect(parseNuccTaxonomy(fixture('nucc_taxonomy_sample.csv')))
    expect(rows.map((r) => r.code)).toEqual(['207R00000X', '207RE0101X', '363LF0000X', '261QR1300X'])
    expect(rows[1]).toMatchObject({
      classification: 'Internal Medicine',
      specialization: 'Endocrinology, Diabetes & Metabolism',
      display_name: 'Endocrinology, Diabetes & Metabolism Physician',
      section: 'Individual',
    })
    expect(rows[1]?.definition).toContain('\nsuch as the thyroid')
    expect(rejected.map((r) => [r.line, r.reason])).toEqual([
      [5, "malformed taxonomy code '207R0000'"],
      [7, 'missing grouping or classification'],
    ])
  })
  const real = sharedFile('nucc-taxonomy/nucc_taxonomy_251.csv')
  it.skipIf(!real)('reads the official v25.1 file: 883 codes, 698 individual', async () => {
    const { rows, rejected } = await collect(parseNuccTaxonomy(openFile(real as string)))
    expect(rejected).toEqual([])
    expect(rows).toHaveLength(883)
    expect(rows.filter((r) => r.section === 'Individual')).toHaveLength(698)
    expect(rows.find((r) => r.code === '207RE0101X')?.display_name).toBe('Endocrinology, Diabetes & Metabolism Physician')
  })
})

describe('parseIcd10CmOrder', () => {
  it('reads the fixed-width layout, derives dotted and parent codes, rejects malformed lines', async () => {
    const { rows, rejected } = await collect(parseIcd10CmOrder(fixture('icd10cm_order_sample.txt')))
    expect(rows.map((r) => [r.code, r.parent_code, r.billable])).toEqual([
      ['E11', null, false],
      ['E11.6', 'E11', false],
      ['E11.65', 'E11.6', true],
      ['E11.9', 'E11', true],
      ['I10', null, true],
      ['T63.011A', 'T63.011', true],
    ])
    expect(rows[5]).toMatchObject({
      compact_code: 'T63011A',
      order_number: 10,
      short_description: 'Toxic effect of rattlesnake venom, accidental, init',
      long_description: 'Toxic effect of rattlesnake venom, accidental (unintentional), initial encounter',
    })
    expect(rejected.map((r) => [r.line, r.reason])).toEqual([
      [6, "order number must be 5 digits, got 'XXXXX'"],
      [7, "malformed ICD-10-CM code '1E11'"],
      [8, "billable flag must be 0 or 1, got '2'"],
      [9, 'line too short for the order-file layout (9 characters)'],
    ])
  })
  const real = sharedFile('icd10cm/icd10cm_order_2026.txt')
  it.skipIf(!real)('reads the official FY2026 order file: 98,186 rows, 74,719 billable', async () => {
    let total = 0
    let billable = 0
    const rejected: unknown[] = []
    let e1165: string | undefined
    for await (const r of parseIcd10CmOrder(openFile(real as string))) {
      if ('rejected' in r) rejected.push(r.rejected)
      else {
        total++
        if (r.ok.billable) billable++
        if (r.ok.code === 'E11.65') e1165 = r.ok.long_description
      }
    }
    expect(rejected).toEqual([])
    expect(total).toBe(98_186)
    expect(billable).toBe(74_719)
    expect(e1165).toBe('Type 2 diabetes mellitus with hyperglycemia')
  })
  const gz = sharedFile('icd10cm/icd10cm_order_2025.txt.gz')
  it.skipIf(!gz)('reads the gzipped FY2025 order file: 97,584 rows', async () => {
    const { rows, rejected } = await collect(parseIcd10CmOrder(openFile(gz as string)))
    expect(rejected).toEqual([])
    expect(rows).toHaveLength(97_584)
    expect(rows.filter((r) => r.billable)).toHaveLength(74_260)
  })
})

describe('parseHcpcs', () => {
  it('merges continuation records, decodes cp1252, skips the disclaimer and rejects bad records', async () => {
    const { rows, rejected } = await collect(parseHcpcs(fixture('hcpcs_anweb_sample.txt')))
    expect(rows.map((r) => [r.code, r.kind])).toEqual([
      ['A0021', 'procedure'],
      ['A0080', 'procedure'],
      ['J0110', 'procedure'],
      ['A1', 'modifier'],
      ['V5364', 'procedure'],
    ])
    expect(rows[1]?.long_description).toBe(
      'Non-emergency transportation, per mile - vehicle provided by volunteer (individual or organization), with no vested interest',
    )
    expect(rows[2]).toMatchObject({
      long_description: 'Injection, — café test drug, 1 mg',
      short_description: 'Café test drug',
      add_date: '2020-01-01',
      action_code: 'A',
      betos_code: 'O1E',
    })
    expect(rows[0]).toMatchObject({ add_date: '1985-01-01', effective_date: '1996-09-10', termination_date: null, action_code: 'N' })
    expect(rows[3]?.long_description).toBe('Dressing for one wound continuation of the modifier description')
    expect(rejected.map((r) => [r.line, r.reason])).toEqual([
      [7, 'continuation record (RECID 4) for G9999 does not follow its procedure record'],
      [9, "malformed HCPCS procedure code '1234Z'"],
      [10, "add date is not a YYYYMMDD date: '20201399'"],
      [13, 'not an HCPCS record (expected HCPC, 5-digit sequence number and RECID 3, 4, 7 or 8)'],
    ])
  })
  const real = sharedFile('hcpcs-2020/HCPC2020_ANWEB_w_disclaimer.txt')
  it.skipIf(!real)('reads the official 2020 file: 6,710 procedure codes and 369 modifiers', async () => {
    const { rows, rejected } = await collect(parseHcpcs(openFile(real as string)))
    expect(rejected).toEqual([])
    expect(rows.filter((r) => r.kind === 'procedure')).toHaveLength(6_710)
    expect(rows.filter((r) => r.kind === 'modifier')).toHaveLength(369)
    expect(rows.find((r) => r.code === 'A0080')?.long_description).toMatch(
      /volunteer \(individual or organization\), with no vested interest$/,
    )
  })
})

describe('parseCmsHospitals', () => {
  it('parses the CMS layout and rejects bad CCNs and ratings; pads a lost ZIP zero', async () => {
    const { rows, rejected } = await collect(parseCmsHospitals(fixture('hospital_general_information_sample.csv')))
    expect(rows.map((r) => [r.ccn, r.zip_code, r.overall_rating])).toEqual([
      ['010001', '36301', 4],
      ['050454', '94143', null],
      ['070001', '06510', 2],
    ])
    expect(rows[0]).toMatchObject({
      phone_number: '3347938701',
      emergency_services: true,
      birthing_friendly: true,
      county_name: 'HOUSTON',
      hospital_type: 'Acute Care Hospitals',
    })
    expect(rows[1]?.name).toBe('UCSF MEDICAL CENTER, PARNASSUS')
    expect(rejected.map((r) => [r.line, r.reason])).toEqual([
      [4, "Facility ID must be a 6-character CCN, got '22001'"],
      [6, "Hospital overall rating must be 1-5 or Not Available, got '7'"],
    ])
  })
  const real = sharedFile('cms-hospital-general-info/Hospital_General_Information.csv')
  it.skipIf(!real)('reads the official file: 5,421 hospitals in 56 states and territories', async () => {
    const { rows, rejected } = await collect(parseCmsHospitals(openFile(real as string)))
    expect(rejected).toEqual([])
    expect(rows).toHaveLength(5_421)
    expect(new Set(rows.map((r) => r.state)).size).toBe(56)
    expect(rows.filter((r) => r.hospital_type === 'Critical Access Hospitals')).toHaveLength(1_375)
  })
})

describe('parseCensusCountyPopulation', () => {
  it('zero-pads FIPS codes and rejects unknown levels and non-numeric counts', async () => {
    const { rows, rejected } = await collect(parseCensusCountyPopulation(fixture('co-est-alldata-sample.csv')))
    expect(rows.map((r) => [r.level, r.state_fips, r.county_fips, r.name, r.population, r.year])).toEqual([
      ['state', '01', null, 'Alabama', 5_108_468, 2023],
      ['county', '01', '01001', 'Autauga County', 60_342, 2023],
      ['county', '35', '35013', 'Doña Ana County', 225_210, 2023],
    ])
    expect(rejected.map((r) => [r.line, r.reason])).toEqual([
      [5, "SUMLEV must be 40 (state) or 50 (county), got '60'"],
      [6, "POPESTIMATE2023 is not a count: 'n/a'"],
      [7, "STATE/COUNTY must be numeric FIPS codes, got 'x'/'5'"],
    ])
  })
  const real = sharedFile('census-county-population/co-est2023-alldata.csv')
  it.skipIf(!real)('reads the official Vintage 2023 file: 51 states summing to 334,914,895 and 3,144 counties', async () => {
    const { rows, rejected } = await collect(parseCensusCountyPopulation(openFile(real as string)))
    expect(rejected).toEqual([])
    const states = rows.filter((r) => r.level === 'state')
    expect(states).toHaveLength(51)
    expect(states.reduce((s, r) => s + r.population, 0)).toBe(334_914_895)
    expect(rows.filter((r) => r.level === 'county')).toHaveLength(3_144)
  })
})

describe('parseGazetteerCounties', () => {
  it('reads tab-delimited rows with padded trailing columns and rejects missing coordinates', async () => {
    const { rows, rejected } = await collect(parseGazetteerCounties(fixture('gazetteer_counties_sample.txt')))
    expect(rows).toEqual([
      {
        state: 'AL',
        county_fips: '01001',
        name: 'Autauga County',
        land_area_sq_mi: 594.455,
        water_area_sq_mi: 9.914,
        latitude: 32.532237,
        longitude: -86.64644,
      },
    ])
    expect(rejected.map((r) => r.line)).toEqual([3])
  })
  const real = sharedFile('census-gazetteer/2024_Gaz_counties_national.txt')
  it.skipIf(!real)('reads the official 2024 file: 3,222 counties', async () => {
    const { rows, rejected } = await collect(parseGazetteerCounties(openFile(real as string)))
    expect(rejected).toEqual([])
    expect(rows).toHaveLength(3_222)
  })
})
