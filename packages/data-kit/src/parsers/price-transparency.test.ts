import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { openFile } from '../io/text-source.ts'
import { sharedFile } from '../testing.ts'
import { parsePriceFileCsv, parsePriceFileJson, type PriceFileItem, type StandardCharge } from './price-transparency.ts'
import { collect } from './result.ts'

const fixture = (name: string) => openFile(path.join(import.meta.dirname, 'fixtures', name))
const charges = (rows: PriceFileItem[]): StandardCharge[] => rows.flatMap((r) => (r.kind === 'charge' ? [r.charge] : []))

describe('parsePriceFileCsv', () => {
  it('reads a v3 tall file: header, payer rows, allowed-amount statistics; rejects malformed rows', async () => {
    const { rows, rejected } = await collect(parsePriceFileCsv(fixture('price_v3_tall_sample.csv')))
    expect(rows[0]).toEqual({
      kind: 'header',
      header: {
        hospital_name: 'Sample Valley Hospital',
        last_updated_on: '2026-01-15',
        version: '3.0.0',
        location_names: ['Sample Valley Hospital', 'Sample Valley ASC'],
        hospital_addresses: ['1 Main St, Austin, TX 78701', '2 Side St, Austin, TX 78702'],
        license_number: '12345',
        license_state: 'TX',
        type_2_npis: ['1234567893'],
      },
    })
    const c = charges(rows)
    expect(c.map((x) => [x.description, x.payer_name, x.negotiated_dollar, x.negotiated_percentage])).toEqual([
      ['Knee replacement, total', 'Example Health Plan', 28000, null],
      ['Knee replacement, total', 'Other Health Plan', null, 75],
      ['Office visit established patient', null, null, null],
      ['Bilateral procedure', 'Example Health Plan', null, 150],
    ])
    expect(c[0]).toMatchObject({
      codes: [
        { code: '27447', type: 'CPT' },
        { code: '470', type: 'MS-DRG' },
      ],
      gross_charge: 42000,
      discounted_cash: 30000,
      minimum: 21000,
      maximum: 28000,
      methodology: 'case rate',
      setting: 'inpatient',
    })
    expect(c[1]).toMatchObject({
      median_amount: 24500.5,
      p10_amount: 19000,
      p90_amount: 31000,
      count: '57',
      notes: 'Paid at 75% of\nbilled charges',
    })
    expect(c[3]).toMatchObject({ codes: [], modifiers: ['50'] })
    expect(rejected.map((r) => [r.line, r.reason])).toEqual([
      [9, 'no code and no modifier'],
      [10, "setting must be inpatient, outpatient or both, got 'clinic'; standard_charge|gross is not a number: 'abc'"],
      [11, 'payer Example Health Plan PPO: no negotiated dollar, percentage or algorithm'],
      [12, 'code|1 needs both a code and a type; no code and no modifier'],
    ])
  })

  it('reads a v3 wide file into one charge per payer and plan with values', async () => {
    const { rows, rejected } = await collect(parsePriceFileCsv(fixture('price_v3_wide_sample.csv')))
    const c = charges(rows)
    expect(c.map((x) => [x.codes[0]?.code, x.payer_name, x.plan_name, x.negotiated_dollar, x.median_amount])).toEqual([
      ['27447', 'Example Health Plan', 'PPO', 28000, null],
      ['27447', 'Other Health Plan', 'HMO', null, 24500.5],
      ['J0840', 'Example Health Plan', 'PPO', 3100, null],
      ['99213', null, null, null, null],
      ['45378', 'Example Health Plan', 'PPO', 1000, null],
    ])
    expect(c[2]).toMatchObject({ drug_unit: 1, drug_unit_type: 'UN' })
    expect(rejected.map((r) => [r.line, r.reason])).toEqual([
      [7, "median_amount is not a number: 'n/a'; payer Other Health Plan HMO: no negotiated dollar, percentage or algorithm"],
    ])
  })

  it('stops at once on a file that is not a price file', async () => {
    const { rows, rejected } = await collect(parsePriceFileCsv(['a,b\n1,2\n']))
    expect(rows).toEqual([])
    expect(rejected).toHaveLength(1)
  })

  const dir = 'hospital-price-transparency/'
  const files = [
    ['V3.0.0_Tall_CSV_Format_Example.csv', 45],
    ['V3.0.0_Wide_CSV_Format_Example.csv', 45],
    ['V2.0.0_Tall_CSV_Format_Example.csv', 31],
    ['V2.0.0_Wide_CSV_Format_Example.csv', 33],
  ] as const
  for (const [name, expected] of files) {
    const real = sharedFile(dir + name)
    it.skipIf(!real)(`reads the official ${name} without rejections (${expected} charges)`, async () => {
      const { rows, rejected } = await collect(
        parsePriceFileCsv(openFile(real as string), name.startsWith('V2.0.0_Wide') ? { encoding: 'windows-1252' } : {}),
      )
      expect(rejected).toEqual([])
      expect(rows[0]).toMatchObject({ kind: 'header', header: { hospital_name: 'West Mercy Hospital' } })
      expect(charges(rows)).toHaveLength(expected)
    })
  }
})

describe('parsePriceFileJson', () => {
  it('streams items, flattens payers, keeps going past invalid items and stops at a syntax error', async () => {
    const { rows, rejected } = await collect(parsePriceFileJson(fixture('price_v3_sample.json')))
    expect(rows[0]).toMatchObject({
      kind: 'header',
      header: {
        hospital_name: 'Sample Valley Hospital',
        license_state: 'TX',
        license_number: '12345',
        type_2_npis: ['1234567893'],
        location_names: ['Sample Valley Hospital'],
      },
    })
    const c = charges(rows)
    expect(c.map((x) => [x.description, x.payer_name])).toEqual([
      ['Knee replacement, total "TKA"', 'Example Health Plan'],
      ['Knee replacement, total "TKA"', 'Other Health Plan'],
      ['Crotalidae antivenom (Anavip) per vial', null],
    ])
    expect(c[1]).toMatchObject({
      negotiated_percentage: 75,
      median_amount: 24500.5,
      p10_amount: 19000,
      p90_amount: 31000,
      count: '57',
      methodology: 'percent of total billed charges',
    })
    expect(c[2]).toMatchObject({ drug_unit: 1, drug_unit_type: 'UN', gross_charge: 2900, discounted_cash: 2500 })
    expect(rejected.map((r) => [r.line, r.reason.replace(/ is not valid JSON: .*/, ' is not valid JSON')])).toEqual([
      [10, 'standard_charge_information[0]: payer No Rate Plan: no negotiated dollar, percentage or algorithm'],
      [24, 'standard_charge_information[1]: no code_information'],
      [31, 'element 3 of standard_charge_information is not valid JSON'],
    ])
    expect(rejected.at(-1)?.reason).toMatch(/^element 3 of standard_charge_information is not valid JSON: \S/)
  })

  it('gives the same result when the document arrives one byte at a time', async () => {
    const text = JSON.stringify(
      {
        hospital_name: 'H',
        version: '3.0.0',
        standard_charge_information: [
          { description: 'a]b{', code_information: [{ code: '1', type: 'CPT' }], standard_charges: [{ setting: 'both', gross_charge: 5 }] },
        ],
      },
      null,
      1,
    )
    const bytes = new TextEncoder().encode(text)
    const { rows, rejected } = await collect(parsePriceFileJson(Array.from(bytes, (b) => Uint8Array.of(b))))
    expect(rejected).toEqual([])
    expect(charges(rows)).toMatchObject([{ description: 'a]b{', gross_charge: 5 }])
  })

  it('reports a truncated document', async () => {
    const { rows, rejected } = await collect(
      parsePriceFileJson([
        '{"hospital_name": "H", "standard_charge_information": [{"description": "x", "code_information": [{"code": "1", "type": "CPT"}], "standard_charges": [{"gross_charge": 1}]}, {"descr',
      ]),
    )
    expect(charges(rows)).toHaveLength(1)
    expect(rejected.map((r) => r.reason)).toEqual(['unexpected end of the document'])
  })

  for (const [name, expected, withStats] of [
    ['v3_json_format_example.json', 39, 9],
    ['V2.0.0_JSON_Format_Example.json', 25, 0],
  ] as const) {
    const real = sharedFile(`hospital-price-transparency/${name}`)
    it.skipIf(!real)(`reads the official ${name} without rejections (${expected} charges)`, async () => {
      const { rows, rejected } = await collect(parsePriceFileJson(openFile(real as string)))
      expect(rejected).toEqual([])
      const c = charges(rows)
      expect(c).toHaveLength(expected)
      expect(c.filter((x) => x.median_amount !== null)).toHaveLength(withStats)
    })
  }
})
