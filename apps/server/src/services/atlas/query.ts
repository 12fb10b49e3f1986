import { ATLAS_MAX_CODES, ATLAS_MAX_ZIPS, ATLAS_MESSAGES, type RegionType } from '@citrus/contracts'
import type pg from 'pg'
import { kyselyOf } from '../../db/kysely.js'
import { badRequest } from '../../lib/errors.js'
import type { AtlasFilters, AtlasScope } from '../../engines/atlas/rows.js'

export type { AtlasFilters, AtlasScope }

/** An ICD-10-CM code or prefix as typed: E11, E11.6, E116, e11.65 (a dot after the category is optional). */
const CODE_PATTERN = /^[A-Z][0-9][0-9A-Z](\.[0-9A-Z]{0,4})?$/

/** Upper-cased, dotted (E116 → E11.6), deduplicated; prefixes covered by a shorter one are dropped. */
export function normaliseCodes(csv: string | undefined): string[] {
  const codes: string[] = []
  for (const raw of (csv ?? '').split(/[,;\s]+/)) {
    let code = raw.trim().toUpperCase()
    if (code === '') continue
    if (!code.includes('.') && code.length > 3) code = `${code.slice(0, 3)}.${code.slice(3)}`
    if (code.endsWith('.')) code = code.slice(0, -1)
    if (!CODE_PATTERN.test(code)) throw badRequest(ATLAS_MESSAGES.invalidCode(raw.trim()))
    codes.push(code)
  }
  const unique = [...new Set(codes)].sort()
  if (unique.length > ATLAS_MAX_CODES) throw badRequest(ATLAS_MESSAGES.tooManyCodes)
  // E11 already matches E11.65: keep the shortest prefix (the count of distinct patients is the same)
  return unique.filter((code) => !unique.some((other) => other !== code && code.startsWith(other) && isCodePrefix(other, code)))
}

/** E11 is a prefix of E11.6; E1 is not a code. A category matches its dotted sub-codes. */
function isCodePrefix(prefix: string, code: string): boolean {
  return code.startsWith(prefix)
}

/** Digits only, the first five when there are at least five (spec 2 §5). */
export function normaliseZip(raw: string): string | null {
  const digits = raw.replace(/-\d*$/, '').replace(/\D/g, '')
  return digits.length >= 5 ? digits.slice(0, 5) : null
}

export function filtersOf(input: {
  codes: string | undefined
  gender?: 'M' | 'F' | null | undefined
  min_age?: number | null | undefined
  max_age?: number | null | undefined
}): AtlasFilters {
  const minAge = input.min_age ?? null
  const maxAge = input.max_age ?? null
  if (minAge !== null && maxAge !== null && minAge > maxAge) throw badRequest(ATLAS_MESSAGES.ageRange)
  return { codes: normaliseCodes(input.codes), gender: input.gender ?? null, minAge, maxAge }
}

/**
 * The search region: 'US' (or nothing) is the country whatever the type says; a two-letter value is a
 * state; ZIP codes (one, or a comma-joined custom list) are the ZIP areas within 50 km of any of them.
 */
export async function resolveScope(pool: pg.Pool, rawValue: string | undefined, rawType: RegionType | undefined): Promise<AtlasScope> {
  const value = (rawValue ?? '').trim()
  const type = rawType ?? 'STATE'
  if (value === '' || value.toUpperCase() === 'US' || type === 'COUNTRY') {
    return { type: 'COUNTRY', value: 'US', state: null, zips: [], name: 'United States' }
  }
  if (type === 'STATE' && /^[A-Za-z]{2}$/.test(value)) {
    const abbr = value.toUpperCase()
    const row = await kyselyOf(pool).selectFrom('states').select('name').where('abbr', '=', abbr).executeTakeFirst()
    if (!row) throw badRequest(ATLAS_MESSAGES.unknownState(value))
    return { type: 'STATE', value: abbr, state: abbr, zips: [], name: row.name }
  }
  const parts = value.split(/[,;\s]+/).filter((part) => part !== '')
  const zips = [...new Set(parts.map((part) => normaliseZip(part)))]
  if (zips.some((zip) => zip === null) || zips.length === 0) throw badRequest(ATLAS_MESSAGES.invalidZip)
  if (zips.length > ATLAS_MAX_ZIPS) throw badRequest(ATLAS_MESSAGES.tooManyZips)
  const known = await kyselyOf(pool)
    .selectFrom('zips')
    .select('zip')
    .where('zip', 'in', zips as string[])
    .execute()
  const found = new Set(known.map((row) => row.zip))
  const missing = (zips as string[]).find((zip) => !found.has(zip))
  if (missing) throw badRequest(ATLAS_MESSAGES.unknownZip(missing))
  const list = (zips as string[]).sort()
  return {
    type: 'ZIP_CODE_50KM',
    value: list.join(','),
    state: null,
    zips: list,
    name: list.length === 1 ? `ZIP ${list[0]} (50km)` : `${list.length} ZIP codes (50km)`,
  }
}
