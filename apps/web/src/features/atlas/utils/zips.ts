import { ATLAS_ZIP_PATTERN } from '@citrus/contracts'

// ZIP chips of the custom-ZIP scope (spec 2 §5): a chip is valid when it matches the contract's ATLAS_ZIP_PATTERN (5
// digits), the rule of atlasSearchFormSchema.

/** Digits only, the first 5 when there are at least 5 (a part after a hyphen dropped); else the raw text. */
export function normaliseZipChip(raw: string): string {
  const unquoted = raw.replace(/["']/g, '').trim()
  const base = unquoted.split('-')[0] ?? ''
  const digits = base.replace(/\D/g, '')
  return digits.length >= 5 ? digits.slice(0, 5) : unquoted
}

/** Pasted or typed text split on commas, newlines, whitespace and semicolons; duplicates removed. */
export function splitZipText(text: string): { valid: string[]; invalid: string[] } {
  const chips = [
    ...new Set(
      text
        .split(/[,;\s]+/)
        .map(normaliseZipChip)
        .filter((part) => part !== ''),
    ),
  ]
  return { valid: chips.filter((c) => ATLAS_ZIP_PATTERN.test(c)), invalid: chips.filter((c) => !ATLAS_ZIP_PATTERN.test(c)) }
}

/** A CSV file: each line gives its first cell matching five digits, optionally plus four. */
export function parseZipCsv(text: string): { zips: string[]; skipped: number } {
  const zips: string[] = []
  let skipped = 0
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') continue
    const cell = line
      .split(',')
      .map((c) => c.replace(/["']/g, '').trim())
      .find((c) => /^\d{5}(-\d{4})?$/.test(c))
    if (cell) zips.push(cell.slice(0, 5))
    else skipped += 1
  }
  return { zips: [...new Set(zips)], skipped }
}
