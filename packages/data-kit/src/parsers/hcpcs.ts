import { readLines, type TextSource } from '../io/text-source.ts'
import { reject, type ParseResult } from './result.ts'
import { isoDate } from './values.ts'

export interface HcpcsCode {
  code: string
  kind: 'procedure' | 'modifier'
  /** The long description with its continuation records merged. */
  long_description: string
  short_description: string
  betos_code: string | null
  add_date: string | null
  effective_date: string | null
  termination_date: string | null
  action_code: string | null
}

const PROCEDURE = /^[A-V][0-9]{4}$/
const MODIFIER = /^[A-Z0-9]{2}$/

/**
 * CMS alpha-numeric HCPCS annual file (HCPCyyyy_ANWEB*.txt), fixed-width 320-character records, cp1252:
 * HCPC (1-5; modifiers right-justified), SEQNUM (6-10), RECID (11: 3 procedure, 4 its continuation, 7 modifier,
 * 8 its continuation), long description (12-91), short description (92-119), BETOS (257-259), add date
 * (269-276), action effective date (277-284), termination date (285-292), action code (293).
 * Lines before the first record (the disclaimer) are skipped.
 */
export async function* parseHcpcs(source: TextSource): AsyncGenerator<ParseResult<HcpcsCode>> {
  let current: { row: HcpcsCode; line: number } | undefined
  let started = false
  for await (const { number, text } of readLines(source, 'windows-1252')) {
    if (text.trim() === '') continue
    const code = text.slice(0, 5).trim()
    const recid = text.slice(10, 11)
    const looksLikeRecord = text.length >= 91 && /^\d{5}$/.test(text.slice(5, 10)) && '3478'.includes(recid) && recid !== ''
    if (!looksLikeRecord) {
      if (started) yield reject(number, 'not an HCPCS record (expected HCPC, 5-digit sequence number and RECID 3, 4, 7 or 8)', text)
      continue
    }
    started = true
    const long = text.slice(11, 91).trim()
    if (recid === '4' || recid === '8') {
      const expectedKind = recid === '4' ? 'procedure' : 'modifier'
      if (!current || current.row.code !== code || current.row.kind !== expectedKind) {
        yield reject(number, `continuation record (RECID ${recid}) for ${code} does not follow its ${expectedKind} record`, text)
        continue
      }
      current.row.long_description = `${current.row.long_description} ${long}`.trim()
      continue
    }
    if (current) yield { ok: current.row, line: current.line }
    current = undefined
    const kind = recid === '3' ? 'procedure' : 'modifier'
    if (!(kind === 'procedure' ? PROCEDURE : MODIFIER).test(code)) {
      yield reject(number, `malformed HCPCS ${kind} code '${code}'`, text)
      continue
    }
    const dates: (string | null)[] = []
    let bad: string | undefined
    for (const [start, end, label] of [
      [268, 276, 'add date'],
      [276, 284, 'action effective date'],
      [284, 292, 'termination date'],
    ] as const) {
      const raw = text.slice(start, end).trim()
      if (raw === '') dates.push(null)
      else {
        const iso = isoDate(raw)
        if (!iso) bad ??= `${label} is not a YYYYMMDD date: '${raw}'`
        dates.push(iso ?? null)
      }
    }
    if (bad) {
      yield reject(number, bad, text)
      continue
    }
    if (long === '') {
      yield reject(number, `${code} has no long description`, text)
      continue
    }
    current = {
      line: number,
      row: {
        code,
        kind,
        long_description: long,
        short_description: text.slice(91, 119).trim(),
        betos_code: text.slice(256, 259).trim() || null,
        add_date: dates[0] ?? null,
        effective_date: dates[1] ?? null,
        termination_date: dates[2] ?? null,
        action_code: text.slice(292, 293).trim() || null,
      },
    }
  }
  if (current) yield { ok: current.row, line: current.line }
}
