import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { openFile } from '../io/text-source.ts'
import { parseNppes } from './nppes.ts'
import { collect } from './result.ts'

const fixture = path.join(import.meta.dirname, 'fixtures/npidata_pfile_sample.csv')

describe('parseNppes', () => {
  it('keeps good rows and rejects malformed ones with reasons', async () => {
    const { rows, rejected } = await collect(parseNppes(openFile(fixture)))
    expect(rows.map((r) => r.npi)).toEqual(['1000000012', '2000000028', '1000000038', '1000000079'])
    const [md, org, deactivated, np] = rows
    expect(md).toMatchObject({
      entity_type: 'individual',
      last_name: 'RIVERA',
      first_name: 'ANA',
      credential: 'M.D.',
      gender: 'F',
      zip_code: '36301',
      zip4: '1234',
      phone_number: '3347938701',
      primary_taxonomy_code: '207RE0101X',
      enumeration_date: '2005-05-23',
      is_sole_proprietor: false,
    })
    expect(md?.taxonomies).toHaveLength(2)
    expect(org).toMatchObject({
      entity_type: 'organization',
      organization_name: 'SOUTHEAST HEALTH, INC.',
      primary_taxonomy_code: '282N00000X',
      gender: null,
    })
    expect(deactivated).toMatchObject({ entity_type: null, deactivation_date: '2015-03-10' })
    expect(np).toMatchObject({ address_line_1: '5 "B" BUILDING\nREAR ENTRANCE', gender: 'M', zip_code: '85701' })
    expect(rejected.map((r) => [r.line, r.reason])).toEqual([
      [5, 'NPI 1000000013 fails the Luhn check digit (prefix 80840)'],
      [6, "Entity Type Code must be 1 or 2, got '3'"],
      [7, 'individual provider without a last name'],
      [8, "malformed taxonomy code '207Q0000'"],
      [9, "Provider Enumeration Date is not a date: '2011-02-30'"],
      [13, 'unexpected text after a closing quote in field 1'],
    ])
  })

  it('refuses a file that is not an NPPES file', async () => {
    const { rows, rejected } = await collect(parseNppes(['a,b\n1,2\n']))
    expect(rows).toEqual([])
    expect(rejected[0]?.reason).toMatch(/^not an NPPES npidata file: missing column\(s\) NPI, Entity Type Code/)
  })
})
