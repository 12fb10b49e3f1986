import type { CsvHeader } from '../io/csv.ts'
import type { TextSource } from '../io/text-source.ts'
import { isValidNpi } from '../npi.ts'
import { parseCsvTable } from './csv-table.ts'
import type { ParseResult } from './result.ts'
import { isoDate, nullIfEmpty, phoneDigits, splitZip } from './values.ts'

export interface NppesTaxonomy {
  code: string
  primary: boolean
  license_number: string | null
  license_state: string | null
}

export interface NppesProvider {
  npi: string
  /** null for a deactivated NPI (NPPES blanks every field but the NPI and the deactivation date). */
  entity_type: 'individual' | 'organization' | null
  organization_name: string | null
  last_name: string | null
  first_name: string | null
  middle_name: string | null
  name_prefix: string | null
  name_suffix: string | null
  credential: string | null
  gender: 'M' | 'F' | 'X' | null
  address_line_1: string | null
  address_line_2: string | null
  city: string | null
  state: string | null
  zip_code: string | null
  zip4: string | null
  country_code: string | null
  phone_number: string | null
  taxonomies: NppesTaxonomy[]
  primary_taxonomy_code: string | null
  enumeration_date: string | null
  last_update_date: string | null
  deactivation_date: string | null
  reactivation_date: string | null
  is_sole_proprietor: boolean | null
}

const COL = {
  npi: 'NPI',
  entityType: 'Entity Type Code',
  org: 'Provider Organization Name (Legal Business Name)',
  last: 'Provider Last Name (Legal Name)',
  first: 'Provider First Name',
  middle: 'Provider Middle Name',
  prefix: 'Provider Name Prefix Text',
  suffix: 'Provider Name Suffix Text',
  credential: 'Provider Credential Text',
  addr1: 'Provider First Line Business Practice Location Address',
  addr2: 'Provider Second Line Business Practice Location Address',
  city: 'Provider Business Practice Location Address City Name',
  state: 'Provider Business Practice Location Address State Name',
  postal: 'Provider Business Practice Location Address Postal Code',
  country: 'Provider Business Practice Location Address Country Code (If outside U.S.)',
  phone: 'Provider Business Practice Location Address Telephone Number',
  enumerated: 'Provider Enumeration Date',
  updated: 'Last Update Date',
  deactivated: 'NPI Deactivation Date',
  reactivated: 'NPI Reactivation Date',
  soleProprietor: 'Is Sole Proprietor',
} as const
// NPPES renamed the column "Provider Gender Code" to "Provider Sex Code" in 2025; accept either.
const GENDER_COLUMNS = ['Provider Sex Code', 'Provider Gender Code']
const REQUIRED = [
  COL.npi,
  COL.entityType,
  COL.last,
  COL.first,
  COL.addr1,
  COL.city,
  COL.state,
  COL.postal,
  'Healthcare Provider Taxonomy Code_1',
  'Healthcare Provider Primary Taxonomy Switch_1',
]
const TAXONOMY_CODE = /^[0-9]{3}[0-9A-Z]{6}X$/

/**
 * NPPES "npidata_pfile" CSV (the monthly full replacement file, ~330 columns). Header-driven, so column order
 * and the extra columns do not matter. Rows failing validation (bad NPI check digit, unknown entity type,
 * missing name, malformed taxonomy code, date or ZIP) are rejected with a reason.
 */
export function parseNppes(source: TextSource): AsyncGenerator<ParseResult<NppesProvider>> {
  return parseCsvTable(source, {
    file: 'an NPPES npidata file',
    required: REQUIRED,
    header: (h) => {
      const taxonomySlots: TaxonomySlot[] = []
      for (let n = 1; n <= 15; n++) {
        const code = h.indexOf(`Healthcare Provider Taxonomy Code_${n}`)
        if (code === -1) break
        taxonomySlots.push({
          code,
          primary: h.indexOf(`Healthcare Provider Primary Taxonomy Switch_${n}`),
          license: h.indexOf(`Provider License Number_${n}`),
          licenseState: h.indexOf(`Provider License Number State Code_${n}`),
        })
      }
      const genderIndex = GENDER_COLUMNS.map((c) => h.indexOf(c)).find((i) => i !== -1) ?? -1
      return { context: { taxonomySlots, genderIndex } }
    },
    row: (row, { taxonomySlots, genderIndex }) => toProvider(row.header, row.fields, taxonomySlots, genderIndex),
  })
}

type TaxonomySlot = { code: number; primary: number; license: number; licenseState: number }

function toProvider(h: CsvHeader, f: string[], slots: TaxonomySlot[], genderIndex: number): NppesProvider | string {
  const get = (name: string) => h.get(f, name)
  const at = (i: number) => (i === -1 ? '' : (f[i] ?? '').trim())
  const npi = get(COL.npi)
  if (!/^\d{10}$/.test(npi)) return `NPI must be 10 digits, got '${npi}'`
  if (!isValidNpi(npi)) return `NPI ${npi} fails the Luhn check digit (prefix 80840)`
  const entityCode = get(COL.entityType)
  const deactivation = get(COL.deactivated)
  const dates: Record<string, string | null> = {}
  for (const [key, col] of [
    ['enumeration_date', COL.enumerated],
    ['last_update_date', COL.updated],
    ['deactivation_date', COL.deactivated],
    ['reactivation_date', COL.reactivated],
  ] as const) {
    const raw = get(col)
    if (raw === '') dates[key] = null
    else {
      const iso = isoDate(raw)
      if (!iso) return `${col} is not a date: '${raw}'`
      dates[key] = iso
    }
  }
  let entity_type: NppesProvider['entity_type']
  if (entityCode === '1') entity_type = 'individual'
  else if (entityCode === '2') entity_type = 'organization'
  else if (entityCode === '' && deactivation !== '') entity_type = null
  else return `Entity Type Code must be 1 or 2, got '${entityCode}'`

  if (entity_type === 'individual' && get(COL.last) === '') return 'individual provider without a last name'
  if (entity_type === 'organization' && get(COL.org) === '') return 'organization without a legal business name'

  const taxonomies: NppesTaxonomy[] = []
  for (const slot of slots) {
    const code = at(slot.code).toUpperCase()
    if (code === '') continue
    if (!TAXONOMY_CODE.test(code)) return `malformed taxonomy code '${code}'`
    taxonomies.push({
      code,
      primary: at(slot.primary).toUpperCase() === 'Y',
      license_number: nullIfEmpty(at(slot.license)),
      license_state: nullIfEmpty(at(slot.licenseState)),
    })
  }
  const primary = taxonomies.find((t) => t.primary) ?? (taxonomies.length === 1 ? taxonomies[0] : undefined)

  const country = nullIfEmpty(get(COL.country))
  const postal = get(COL.postal)
  let zip_code: string | null = null
  let zip4: string | null = null
  if (postal !== '') {
    if (country === null || country === 'US') {
      const z = splitZip(postal)
      if (!z) return `practice location postal code is not a US ZIP: '${postal}'`
      zip_code = z.zip
      zip4 = z.zip4 ?? null
    } else zip_code = postal
  }
  const genderRaw = at(genderIndex).toUpperCase()
  const gender = genderRaw === 'M' || genderRaw === 'F' || genderRaw === 'X' ? genderRaw : null
  const sole = get(COL.soleProprietor).toUpperCase()
  return {
    npi,
    entity_type,
    organization_name: nullIfEmpty(get(COL.org)),
    last_name: nullIfEmpty(get(COL.last)),
    first_name: nullIfEmpty(get(COL.first)),
    middle_name: nullIfEmpty(get(COL.middle)),
    name_prefix: nullIfEmpty(get(COL.prefix)),
    name_suffix: nullIfEmpty(get(COL.suffix)),
    credential: nullIfEmpty(get(COL.credential)),
    gender,
    address_line_1: nullIfEmpty(get(COL.addr1)),
    address_line_2: nullIfEmpty(get(COL.addr2)),
    city: nullIfEmpty(get(COL.city)),
    state: nullIfEmpty(get(COL.state)),
    zip_code,
    zip4,
    country_code: country,
    phone_number: phoneDigits(get(COL.phone)) ?? null,
    taxonomies,
    primary_taxonomy_code: primary?.code ?? null,
    enumeration_date: dates.enumeration_date ?? null,
    last_update_date: dates.last_update_date ?? null,
    deactivation_date: dates.deactivation_date ?? null,
    reactivation_date: dates.reactivation_date ?? null,
    is_sole_proprietor: sole === 'Y' ? true : sole === 'N' ? false : null,
  }
}
