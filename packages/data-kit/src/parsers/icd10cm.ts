import { readLines, type TextSource } from '../io/text-source.ts'
import { reject, type ParseResult } from './result.ts'

export interface Icd10CmCode {
  /** Dotted display form, e.g. E11.65 (categories have no dot: E11). */
  code: string
  /** The code as published, without the dot: E1165. */
  compact_code: string
  order_number: number
  /** false for headers (categories and subcategories that are not valid on a claim). */
  billable: boolean
  short_description: string
  long_description: string
  /** Dotted code of the next level up (the code minus its last character); null for 3-character categories. */
  parent_code: string | null
}

// FY2026 added chapter codes with a letter in second place (QA00.141), so only the first character is fixed.
const CODE = /^[A-Z][0-9A-Z]{2,6}$/

/** E1165 → E11.65; E11 → E11. */
export function dottedIcd10(compact: string): string {
  return compact.length > 3 ? `${compact.slice(0, 3)}.${compact.slice(3)}` : compact
}

/**
 * ICD-10-CM order file (icd10cm_order_YYYY.txt), fixed width: order number (cols 1-5), code (7-13), billable
 * flag (15: 0 header, 1 billable), short description (17-76), long description (78-end).
 */
export async function* parseIcd10CmOrder(source: TextSource): AsyncGenerator<ParseResult<Icd10CmCode>> {
  for await (const { number, text } of readLines(source)) {
    if (text.trim() === '') continue
    if (text.length < 18) {
      yield reject(number, `line too short for the order-file layout (${text.length} characters)`, text)
      continue
    }
    const order = text.slice(0, 5)
    const compact = text.slice(6, 13).trim()
    const flag = text.slice(14, 15)
    const short = text.slice(16, 76).trim()
    const long = text.slice(77).trim()
    if (!/^\d{5}$/.test(order)) yield reject(number, `order number must be 5 digits, got '${order}'`, text)
    else if (text[5] !== ' ' || text[13] !== ' ' || text[15] !== ' ')
      yield reject(number, 'fields are not where the fixed-width layout puts them', text)
    else if (!CODE.test(compact)) yield reject(number, `malformed ICD-10-CM code '${compact}'`, text)
    else if (flag !== '0' && flag !== '1') yield reject(number, `billable flag must be 0 or 1, got '${flag}'`, text)
    else if (short === '' || long === '') yield reject(number, 'missing description', text)
    else
      yield {
        ok: {
          code: dottedIcd10(compact),
          compact_code: compact,
          order_number: Number(order),
          billable: flag === '1',
          short_description: short,
          long_description: long,
          parent_code: compact.length > 3 ? dottedIcd10(compact.slice(0, -1)) : null,
        },
        line: number,
      }
  }
}
