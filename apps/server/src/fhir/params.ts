import {
  FHIR_DEFAULT_COUNT,
  FHIR_INCLUDES,
  FHIR_MAX_CHAIN,
  FHIR_MAX_COUNT,
  FHIR_MESSAGES,
  FHIR_RESOURCE_TYPES,
  FHIR_RESULT_PARAMS,
  FHIR_SEARCH_PARAMS,
  type FhirResourceType,
  type FhirSearchParamDefinition,
} from '@citrus/contracts'
import { FhirError, invalid, notSupported } from './outcome.js'

/**
 * A search request parsed strictly (FHIR R4 §3.1.1.5.2 "strict" handling, the default): an unknown parameter, an
 * unsupported modifier or chain, or a malformed value is a 400 OperationOutcome naming it. `Prefer: handling=lenient`
 * drops unknown parameters instead (and leaves them out of the self link).
 */

export type StringMatch = 'prefix' | 'exact' | 'contains'

export interface DateBound {
  prefix: 'eq' | 'ne' | 'gt' | 'lt' | 'ge' | 'le' | 'sa' | 'eb'
  /** the value's range at its precision: [from, to) */
  from: Date
  to: Date
}

export interface Token {
  system: string | null
  code: string
}

export interface Reference {
  type: string | null
  id: string
}

export interface Near {
  latitude: number
  longitude: number
  /** metres */
  radius: number
  /** the unit the distance was asked in: answers are given in it */
  unit: DistanceUnit
}

/** The units `near` takes, as asked (valueDistance.unit repeats it): `mi` is the international mile, [mi_i] in UCUM. */
export type DistanceUnit = 'km' | 'm' | 'mi' | '[mi_i]' | '[mi_us]'

/** UCUM: [mi_i] = 5280 [ft_i] = 1609.344 m; [mi_us] = 5280 [ft_us] = 5280 × 1200/3937 m = 1609.347218694… m */
export const METRES_PER_UNIT: Record<DistanceUnit, number> = {
  km: 1000,
  m: 1,
  mi: 1609.344,
  '[mi_i]': 1609.344,
  '[mi_us]': (5280 * 1200) / 3937,
}
/** UCUM codes of the units (valueDistance.code) */
export const UCUM_UNITS: Record<DistanceUnit, string> = { km: 'km', m: 'm', mi: '[mi_i]', '[mi_i]': '[mi_i]', '[mi_us]': '[mi_us]' }
const UNITS = Object.keys(METRES_PER_UNIT) as DistanceUnit[]
const isUnit = (text: string): text is DistanceUnit => (UNITS as string[]).includes(text)
/** the widest `near` circle served (a national radius would sort the whole directory) */
export const MAX_NEAR_METRES = 500_000
const DEFAULT_NEAR = { distance: 50, unit: 'km' as DistanceUnit }

/** One search criterion: a parameter, its modifier, and its comma-separated alternatives (OR). */
export type Criterion =
  | { kind: 'string'; name: string; match: StringMatch; values: string[] }
  | { kind: 'token'; name: string; text: boolean; values: Token[] }
  | { kind: 'reference'; name: string; values: Reference[] }
  | { kind: 'date'; name: string; values: DateBound[] }
  | { kind: 'near'; name: string; near: Near }
  /** a chain `name.…`: the resources whose reference `name` points at a `target` that meets `inner` */
  | { kind: 'chain'; name: string; target: FhirResourceType; inner: Criterion }
  /** a reverse chain `_has:source:name:…`: the resources a `source` that meets `inner` points at by its reference `name` */
  | { kind: 'has'; name: string; source: FhirResourceType; inner: Criterion }

export interface SearchRequest {
  type: FhirResourceType
  /** every criterion must hold (AND); each one's values are alternatives (OR) */
  criteria: Criterion[]
  near: Near | null
  count: number
  total: 'none' | 'accurate'
  include: string[]
  revinclude: string[]
  cursor: string | null
  /** the accepted parameters in order (for self and next links) */
  pairs: [string, string][]
}

const DATE =
  /^(eq|ne|gt|lt|ge|le|sa|eb)?(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?)?)?$/

export function parseDate(name: string, raw: string): DateBound {
  const match = DATE.exec(raw)
  if (!match) throw invalid(FHIR_MESSAGES.badValue(name, `"${raw}" is not a FHIR date (e.g. ge2025-01-01 or lt2025-06-01T00:00:00Z)`), name)
  const [, prefix, y, mo, d, h, mi, s, frac, zone] = match
  const year = Number(y)
  const month = mo ? Number(mo) : null
  const day = d ? Number(d) : null
  if ((month !== null && (month < 1 || month > 12)) || (day !== null && (day < 1 || day > 31))) {
    throw invalid(FHIR_MESSAGES.badValue(name, `"${raw}" is not a calendar date`), name)
  }
  let from: Date
  let to: Date
  if (h === undefined) {
    from = new Date(Date.UTC(year, (month ?? 1) - 1, day ?? 1))
    to =
      day !== null
        ? new Date(Date.UTC(year, month! - 1, day + 1))
        : month !== null
          ? new Date(Date.UTC(year, month, 1))
          : new Date(Date.UTC(year + 1, 0, 1))
    if (day !== null && from.getUTCDate() !== day) throw invalid(FHIR_MESSAGES.badValue(name, `"${raw}" is not a calendar date`), name)
  } else {
    const iso = `${y}-${mo}-${d}T${h}:${mi}:${s ?? '00'}${frac ?? ''}${zone ?? 'Z'}`
    from = new Date(iso)
    if (Number.isNaN(from.getTime())) throw invalid(FHIR_MESSAGES.badValue(name, `"${raw}" is not a valid instant`), name)
    to = new Date(from.getTime() + (s === undefined ? 60_000 : frac ? 1 : 1000))
  }
  return { prefix: (prefix ?? 'eq') as DateBound['prefix'], from, to }
}

/** `[system]|[code]`, `code` or `system|` (any code of the system is not supported: it would match everything here). */
export function parseToken(name: string, raw: string): Token {
  const bar = raw.indexOf('|')
  if (bar < 0) {
    if (raw === '') throw invalid(FHIR_MESSAGES.badValue(name, 'empty'), name)
    return { system: null, code: raw }
  }
  const system = raw.slice(0, bar)
  const code = raw.slice(bar + 1)
  if (code === '') throw notSupported(FHIR_MESSAGES.badValue(name, 'a code is required after the system'), name)
  return { system: system === '' ? '' : system, code }
}

/** `Type/id`, a bare `id`, or an absolute URL ending in `Type/id`. */
export function parseReference(name: string, raw: string, typeModifier: string | null): Reference {
  // an absolute URL is taken by its last two segments (this server's resources: Type/id)
  const relative = /^https?:\/\//.test(raw) ? raw.split(/[?#]/)[0]!.split('/').slice(-2).join('/') : raw
  const match = /^(?:([A-Z][A-Za-z]+)\/)?([A-Za-z0-9\-.]{1,64})$/.exec(relative)
  if (!match) throw invalid(FHIR_MESSAGES.badValue(name, `"${raw}" is not a reference (Type/id)`), name)
  const type = match[1] ?? typeModifier
  if (match[1] && typeModifier && match[1] !== typeModifier)
    throw invalid(FHIR_MESSAGES.badValue(name, `${raw} is not a ${typeModifier}`), name)
  return { type: type ?? null, id: match[2]! }
}

export function parseNear(name: string, raw: string): Near {
  const parts = raw.split('|')
  if (parts.length < 2 || parts.length > 4) throw invalid(FHIR_MESSAGES.badValue(name, 'expected latitude|longitude|distance|unit'), name)
  const [latText, lonText, distText, unitText] = parts
  const number = (text: string | undefined) => (text !== undefined && /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : NaN)
  const latitude = number(latText)
  const longitude = number(lonText)
  if (!(latitude >= -90 && latitude <= 90)) throw invalid(FHIR_MESSAGES.badValue(name, 'latitude must be a number from -90 to 90'), name)
  if (!(longitude >= -180 && longitude <= 180))
    throw invalid(FHIR_MESSAGES.badValue(name, 'longitude must be a number from -180 to 180'), name)
  const distance = distText === undefined || distText === '' ? DEFAULT_NEAR.distance : number(distText)
  if (!(distance > 0)) throw invalid(FHIR_MESSAGES.badValue(name, 'distance must be a positive number'), name)
  const unit = unitText === undefined || unitText === '' ? DEFAULT_NEAR.unit : isUnit(unitText) ? unitText : null
  if (!unit) throw invalid(FHIR_MESSAGES.badValue(name, `unit "${unitText}" is not one of ${UNITS.join(', ')}`), name)
  const radius = distance * METRES_PER_UNIT[unit]
  if (radius > MAX_NEAR_METRES) throw invalid(FHIR_MESSAGES.badValue(name, `at most ${MAX_NEAR_METRES / 1000} km`), name)
  return { latitude, longitude, radius, unit }
}

function splitValues(raw: string): string[] {
  // a comma separates alternatives; `\,` is a literal comma
  const values: string[] = []
  let current = ''
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]
    if (c === '\\' && raw[i + 1] === ',') {
      current += ','
      i++
    } else if (c === ',') {
      values.push(current)
      current = ''
    } else current += c
  }
  values.push(current)
  return values
}

function definitionOf(type: FhirResourceType, name: string): FhirSearchParamDefinition | undefined {
  return FHIR_SEARCH_PARAMS[type].find((param) => param.name === name)
}

function parseCount(raw: string): number {
  if (!/^\d{1,7}$/.test(raw)) throw invalid(FHIR_MESSAGES.badValue('_count', 'a whole number is required'), '_count')
  const count = Number(raw)
  if (count < 1 || count > FHIR_MAX_COUNT) throw invalid(FHIR_MESSAGES.badValue('_count', `from 1 to ${FHIR_MAX_COUNT}`), '_count')
  return count
}

/** Parses the parameters of a search of `type` (query and form body pairs, in order). */
export function parseSearch(type: FhirResourceType, pairs: [string, string][], lenient = false): SearchRequest {
  const request: SearchRequest = {
    type,
    criteria: [],
    near: null,
    count: FHIR_DEFAULT_COUNT,
    total: 'none',
    include: [],
    revinclude: [],
    cursor: null,
    pairs: [],
  }
  for (const [key, raw] of pairs) {
    if ((FHIR_RESULT_PARAMS as readonly string[]).includes(key)) {
      applyResultParam(request, key, raw)
      if (key !== '_cursor') request.pairs.push([key, raw])
      continue
    }
    const criterion = parseParameter(type, key, raw, key, 0)
    if (!criterion) {
      if (lenient) continue
      throw invalid(FHIR_MESSAGES.unknownParam(type, key), key)
    }
    request.criteria.push(criterion)
    request.pairs.push([key, raw])
  }
  const nears = request.criteria.filter((criterion): criterion is Extract<Criterion, { kind: 'near' }> => criterion.kind === 'near')
  if (nears.length > 1) throw invalid(FHIR_MESSAGES.nearOnce, nears[1]!.name)
  request.near = nears[0]?.near ?? null
  return request
}

const isResourceType = (text: string): text is FhirResourceType => (FHIR_RESOURCE_TYPES as readonly string[]).includes(text)

/**
 * `part` of the parameter `key` (all of it, or what follows a chain's `name.` or a `_has:Type:name:`) on `type`, as
 * a criterion; undefined when `type` has no such parameter. `depth`: the references followed so far.
 */
function parseParameter(type: FhirResourceType, part: string, raw: string, key: string, depth: number): Criterion | undefined {
  if (part.startsWith('_has:')) return parseHas(type, part, raw, key, depth)
  const colon = part.indexOf(':')
  const path = colon < 0 ? part : part.slice(0, colon)
  const modifier = colon < 0 ? null : part.slice(colon + 1)
  const dot = path.indexOf('.')
  const definition = definitionOf(type, dot < 0 ? path : path.slice(0, dot))
  if (!definition) return undefined
  if (raw === '') throw invalid(FHIR_MESSAGES.badValue(key, 'empty'), key)
  if (dot < 0) {
    const criterion = parseCriterion(definition, key, modifier, raw)
    // `near` orders the whole search: it is not a condition on a referenced resource
    if (criterion.kind === 'near' && depth > 0) throw notSupported(FHIR_MESSAGES.unsupportedChain(key, 'near'), key)
    return criterion
  }
  const name = definition.name
  const chain = path.slice(dot + 1)
  if (!definition.target || !definition.chains?.includes(chain.split('.')[0]!))
    throw notSupported(FHIR_MESSAGES.unsupportedChain(name, chain), key)
  if (chain === 'near') {
    // PractitionerRole's location.near, this server's extension: the search's `near`, on the clinicians' practices
    if (depth > 0) throw notSupported(FHIR_MESSAGES.unsupportedChain(name, chain), key)
    if (modifier) throw notSupported(FHIR_MESSAGES.unsupportedModifier(key, modifier), key)
    return { kind: 'near', name: key, near: parseNear(key, raw) }
  }
  if (depth >= FHIR_MAX_CHAIN) throw notSupported(FHIR_MESSAGES.chainTooLong(key), key)
  const inner = parseParameter(definition.target, colon < 0 ? chain : `${chain}:${modifier}`, raw, key, depth + 1)
  // a chain names a parameter of its target (the contracts' chains are checked against the targets' parameters)
  if (!inner) throw notSupported(FHIR_MESSAGES.unsupportedChain(name, chain), key)
  return { kind: 'chain', name, target: definition.target, inner }
}

/** `_has:{source}:{reference parameter of source pointing at type}:{a parameter of source}`. */
function parseHas(type: FhirResourceType, part: string, raw: string, key: string, depth: number): Criterion {
  const [, source = '', name = '', ...rest] = part.split(':')
  const definition = isResourceType(source) ? definitionOf(source, name) : undefined
  if (!isResourceType(source) || !definition || definition.target !== type || !definition.chains || !rest.length)
    throw notSupported(FHIR_MESSAGES.unsupportedReverseChain(key), key)
  if (depth >= FHIR_MAX_CHAIN) throw notSupported(FHIR_MESSAGES.chainTooLong(key), key)
  const inner = parseParameter(source, rest.join(':'), raw, key, depth + 1)
  if (!inner) throw invalid(FHIR_MESSAGES.unknownParam(source, rest.join(':')), key)
  return { kind: 'has', name, source, inner }
}

function parseCriterion(definition: FhirSearchParamDefinition, key: string, modifier: string | null, raw: string): Criterion {
  const name = definition.name
  switch (definition.type) {
    case 'string':
      return { kind: 'string', name, match: stringMatch(key, modifier), values: nonEmpty(key, splitValues(raw)) }
    case 'token': {
      if (modifier !== null && modifier !== 'text') throw notSupported(FHIR_MESSAGES.unsupportedModifier(name, modifier), key)
      if (modifier === 'text')
        return {
          kind: 'token',
          name,
          text: true,
          values: nonEmpty(key, splitValues(raw)).map((code) => ({ system: null, code })),
        }
      return { kind: 'token', name, text: false, values: splitValues(raw).map((value) => parseToken(key, value)) }
    }
    case 'reference': {
      if (modifier !== null && !/^[A-Z][A-Za-z]+$/.test(modifier))
        throw notSupported(FHIR_MESSAGES.unsupportedModifier(name, modifier), key)
      return { kind: 'reference', name, values: splitValues(raw).map((value) => parseReference(key, value, modifier)) }
    }
    case 'date':
      if (modifier) throw notSupported(FHIR_MESSAGES.unsupportedModifier(name, modifier), key)
      return { kind: 'date', name, values: splitValues(raw).map((value) => parseDate(key, value)) }
    case 'special':
      if (modifier) throw notSupported(FHIR_MESSAGES.unsupportedModifier(name, modifier), key)
      return { kind: 'near', name, near: parseNear(key, raw) }
  }
}

function nonEmpty(key: string, values: string[]): string[] {
  if (values.some((value) => value === '')) throw invalid(FHIR_MESSAGES.badValue(key, 'empty alternative'), key)
  return values
}

function stringMatch(key: string, modifier: string | null): StringMatch {
  if (modifier === null) return 'prefix'
  if (modifier === 'exact' || modifier === 'contains') return modifier
  throw notSupported(FHIR_MESSAGES.unsupportedModifier(key, modifier), key)
}

function applyResultParam(request: SearchRequest, key: string, raw: string) {
  switch (key) {
    case '_count':
      request.count = parseCount(raw)
      return
    case '_total':
      if (raw !== 'none' && raw !== 'accurate') throw invalid(FHIR_MESSAGES.badValue('_total', 'none or accurate'), '_total')
      request.total = raw
      return
    case '_include':
    case '_revinclude': {
      const allowed = FHIR_INCLUDES[request.type][key === '_include' ? 'include' : 'revinclude']
      if (!allowed.includes(raw)) throw notSupported(FHIR_MESSAGES.unsupportedInclude(key, raw), key)
      const list = key === '_include' ? request.include : request.revinclude
      if (!list.includes(raw)) list.push(raw)
      return
    }
    case '_cursor':
      request.cursor = raw
      return
    case '_format':
      checkFormat(raw)
      return
  }
}

/** `_format` (of a search, a read or the CapabilityStatement): JSON only, else 406. */
export function checkFormat(raw: string): void {
  if (!['json', 'application/json', 'application/fhir+json'].includes(raw))
    throw new FhirError(406, 'not-supported', FHIR_MESSAGES.badFormat, '_format')
}
