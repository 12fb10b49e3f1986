import { CsvHeader, readCsv } from '../io/csv.ts'
import type { TextSource } from '../io/text-source.ts'
import { reject, type ParseResult } from './result.ts'
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
export async function* parseNuccTaxonomy(source: TextSource): AsyncGenerator<ParseResult<NuccTaxonomy>> {
  let header: CsvHeader | undefined
  for await (const item of readCsv(source)) {
    if ('error' in item) {
      yield reject(item.error.line, item.error.reason, item.error.text)
      continue
    }
    const { fields, line, text } = item.record
    if (!header) {
      header = new CsvHeader(fields)
      const missing = header.missing(REQUIRED)
      if (missing.length > 0) {
        yield reject(line, `not a NUCC taxonomy file: missing column(s) ${missing.join(', ')}`, text)
        return
      }
      continue
    }
    const get = (name: string) => (header as CsvHeader).get(fields, name)
    const code = get('Code').toUpperCase()
    if (!TAXONOMY_CODE_PATTERN.test(code)) {
      yield reject(line, `malformed taxonomy code '${code}'`, text)
      continue
    }
    const grouping = get('Grouping')
    const classification = get('Classification')
    if (grouping === '' || classification === '') {
      yield reject(line, 'missing grouping or classification', text)
      continue
    }
    const specialization = nullIfEmpty(get('Specialization'))
    yield {
      ok: {
        code,
        grouping,
        classification,
        specialization,
        definition: nullIfEmpty(get('Definition')),
        notes: nullIfEmpty(get('Notes')),
        // Older files have no Display Name column: NUCC's own convention is "Specialization Classification".
        display_name: get('Display Name') || (specialization ? `${specialization} ${classification}` : classification),
        section: nullIfEmpty(get('Section')),
      },
      line,
    }
  }
}
