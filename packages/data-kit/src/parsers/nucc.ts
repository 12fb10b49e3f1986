import type { TextSource } from '../io/text-source.ts'
import { parseCsvTable } from './csv-table.ts'
import type { ParseResult } from './result.ts'
import { nullIfEmpty } from './values.ts'

export interface NuccTaxonomy {
  code: string
  grouping: string
  classification: string
  specialization: string | null
  definition: string | null
  notes: string | null
  display_name: string
  /** 'Individual' or 'Non-Individual' (column added in NUCC v20.1; null for older files). */
  section: string | null
}

const REQUIRED = ['Code', 'Grouping', 'Classification', 'Specialization', 'Definition']
export const TAXONOMY_CODE_PATTERN = /^[0-9]{3}[0-9A-Z]{6}X$/

/** NUCC Health Care Provider Taxonomy CSV (nucc_taxonomy_NNN.csv). */
export function parseNuccTaxonomy(source: TextSource): AsyncGenerator<ParseResult<NuccTaxonomy>> {
  return parseCsvTable(source, {
    file: 'a NUCC taxonomy file',
    required: REQUIRED,
    row: ({ get }) => {
      const code = get('Code').toUpperCase()
      if (!TAXONOMY_CODE_PATTERN.test(code)) return `malformed taxonomy code '${code}'`
      const grouping = get('Grouping')
      const classification = get('Classification')
      if (grouping === '' || classification === '') return 'missing grouping or classification'
      const specialization = nullIfEmpty(get('Specialization'))
      return {
        code,
        grouping,
        classification,
        specialization,
        definition: nullIfEmpty(get('Definition')),
        notes: nullIfEmpty(get('Notes')),
        // Older files have no Display Name column: NUCC's own convention is "Specialization Classification".
        display_name: get('Display Name') || (specialization ? `${specialization} ${classification}` : classification),
        section: nullIfEmpty(get('Section')),
      }
    },
  })
}
