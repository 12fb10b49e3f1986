import type { FhirResourceType } from '@citrus/contracts'
import type { Criterion, DateBound, Near, Reference, StringMatch, Token } from './params.js'
import { FHIR_SYSTEMS } from '@citrus/contracts'
import {
  LOCATION_TYPES,
  ORG_TYPES,
  PRACTICE_LOCATION_TYPE,
  ROLE_CODES,
  facilityLocation,
  facilityOrganization,
  healthSystemOrganization,
  networkOrganization,
  payerOrganization,
  practiceLocation,
  practitioner,
  practitionerRole,
  type FacilityRow,
  type HealthSystemRow,
  type InsurerRow,
  type Meta,
  type ProviderRow,
  type Resource,
} from './resources.js'

/**
 * Where each resource comes from: one "kind" per table and resource type, with its SQL (row selection, id column,
 * the condition of each search parameter). A resource type of several kinds (Organization: facilities, health
 * systems, payers, networks; Location: facilities and clinicians' practices) pages through them in this order.
 */

/** Collects positional parameters while SQL text is assembled. */
export class Sql {
  readonly values: unknown[] = []
  p(value: unknown): string {
    this.values.push(value)
    return `$${this.values.length}`
  }
}

/** What a condition needs besides the request: when rows without a time of their own were last loaded. */
export interface FilterContext {
  loadedAt: Date
}

export const FALSE = 'FALSE'

export interface Kind {
  key: string
  type: FhirResourceType
  /** id prefix of this kind's resources ('' for clinicians' Practitioner/PractitionerRole) */
  prefix: string
  /** `FROM` clause; the kind's table is aliased `t` */
  from: string
  select: string
  /** SQL of the row's geography point, for `near` */
  geog: string | null
  /** one criterion as SQL, FALSE when nothing of this kind can match */
  condition(criterion: Criterion, sql: Sql, context: FilterContext): string
  toResource(row: never, meta: Meta): Resource
}

const MAX_INT = 2_147_483_647

/** The numeric ids of references (or `_id` tokens) that belong to `prefix` and `type`. */
export function idsOf(values: readonly { type: string | null; id: string }[], type: string, prefix: string): number[] {
  const ids: number[] = []
  for (const value of values) {
    if (value.type !== null && value.type !== type) continue
    if (!value.id.startsWith(prefix)) continue
    const digits = value.id.slice(prefix.length)
    if (!/^[1-9]\d{0,9}$/.test(digits)) continue
    const id = Number(digits)
    if (id <= MAX_INT) ids.push(id)
  }
  return ids
}

const escapeLike = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`)

export function stringCondition(columns: readonly string[], match: StringMatch, values: readonly string[], sql: Sql): string {
  const alternatives: string[] = []
  for (const value of values) {
    if (match === 'exact') {
      const param = sql.p(value)
      for (const column of columns) alternatives.push(`${column} = ${param}`)
    } else {
      const pattern = match === 'contains' ? `%${escapeLike(value.toLowerCase())}%` : `${escapeLike(value.toLowerCase())}%`
      const param = sql.p(pattern)
      for (const column of columns) alternatives.push(`lower(${column}) LIKE ${param}`)
    }
  }
  return alternatives.length ? `(${alternatives.join(' OR ')})` : FALSE
}

function idCondition(column: string, ids: number[], sql: Sql): string {
  return ids.length ? `${column} = ANY(${sql.p(ids)}::int[])` : FALSE
}

/** `_lastUpdated` of a column, or of a constant time (rows whose time is the data load's). */
export function dateCondition(column: string | null, bounds: readonly DateBound[], sql: Sql, constant: Date): string {
  const alternatives: string[] = []
  for (const bound of bounds) {
    if (column === null) {
      alternatives.push(dateHolds(constant, bound) ? 'TRUE' : FALSE)
      continue
    }
    const from = () => sql.p(bound.from.toISOString())
    const to = () => sql.p(bound.to.toISOString())
    switch (bound.prefix) {
      case 'eq':
        alternatives.push(`(${column} >= ${from()}::timestamptz AND ${column} < ${to()}::timestamptz)`)
        break
      case 'ne':
        alternatives.push(`(${column} < ${from()}::timestamptz OR ${column} >= ${to()}::timestamptz)`)
        break
      case 'gt':
      case 'sa':
        alternatives.push(`${column} >= ${to()}::timestamptz`)
        break
      case 'ge':
        alternatives.push(`${column} >= ${from()}::timestamptz`)
        break
      case 'lt':
      case 'eb':
        alternatives.push(`${column} < ${from()}::timestamptz`)
        break
      case 'le':
        alternatives.push(`${column} < ${to()}::timestamptz`)
        break
    }
  }
  return `(${alternatives.join(' OR ')})`
}

export function dateHolds(time: Date, bound: DateBound): boolean {
  const t = time.getTime()
  const from = bound.from.getTime()
  const to = bound.to.getTime()
  switch (bound.prefix) {
    case 'eq':
      return t >= from && t < to
    case 'ne':
      return t < from || t >= to
    case 'gt':
    case 'sa':
      return t >= to
    case 'ge':
      return t >= from
    case 'lt':
    case 'eb':
      return t < from
    case 'le':
      return t < to
  }
}

export const pointSql = (near: Near, sql: Sql) =>
  `ST_SetSRID(ST_MakePoint(${sql.p(near.longitude)}::float8, ${sql.p(near.latitude)}::float8), 4326)::geography`

function tokenCodes(values: readonly Token[], system: string): string[] {
  return values.filter((token) => token.system === null || token.system === system).map((token) => token.code)
}

// ---- clinicians (providers): Practitioner, PractitionerRole and their practice Location ---------------------

const PROVIDER_SELECT = `t.id, t.npi, t.first_name, t.middle_name, t.last_name, t.full_name, t.title, t.provider_kind,
  t.primary_taxonomy_code, s.display_name AS specialty_display, t.gender, t.phone_number, t.address, t.city, t.state,
  t.zip_code, t.latitude, t.longitude, t.facility_id, t.accepting_new_patients,
  ARRAY(SELECT i.id FROM jsonb_each_text(t.aggregated_insurance_networks_v1) e JOIN insurers i ON i.name = e.key
    WHERE e.value = 'true' ORDER BY i.id) AS networks,
  t.last_verified_at::text AS last_verified_at, t.confidence::float8 AS confidence, t.updated_at`
const PROVIDER_FROM = `providers t LEFT JOIN specialties s ON s.code = t.primary_taxonomy_code`

const NAME_COLUMNS: Record<string, string[]> = {
  name: ['t.first_name', 't.last_name'],
  family: ['t.last_name'],
  given: ['t.first_name', 't.middle_name'],
}
const ADDRESS_COLUMNS: Record<string, string[]> = {
  address: ['t.address', 't.city', 't.state', 't.zip_code'],
  'address-city': ['t.city'],
  'address-state': ['t.state'],
  'address-postalcode': ['t.zip_code'],
}

/** Practitioner criteria on a providers row `t` (also the `practitioner.` chain of PractitionerRole). */
function practitionerCondition(criterion: Criterion, sql: Sql): string | null {
  if (criterion.kind === 'string' && NAME_COLUMNS[criterion.chain ?? criterion.name]) {
    return stringCondition(NAME_COLUMNS[criterion.chain ?? criterion.name]!, criterion.match, criterion.values, sql)
  }
  if (criterion.kind === 'token' && (criterion.chain ?? criterion.name) === 'identifier') {
    const npis = tokenCodes(criterion.values, FHIR_SYSTEMS.npi).filter((npi) => /^\d{10}$/.test(npi))
    return npis.length ? `t.npi = ANY(${sql.p(npis)}::bpchar[])` : FALSE
  }
  return null
}

function networkByIds(ids: number[], sql: Sql): string {
  return ids.length
    ? `EXISTS (SELECT 1 FROM insurers i WHERE i.id = ANY(${sql.p(ids)}::int[]) AND (t.aggregated_insurance_networks_v1 ->> i.name) = 'true')`
    : FALSE
}

function idToken(criterion: Criterion, prefix: string): number[] {
  if (criterion.kind !== 'token') return []
  return idsOf(
    criterion.values.map((token) => ({ type: null, id: token.code })),
    'any',
    prefix,
  )
}

const practitionerKind: Kind = {
  key: 'practitioner',
  type: 'Practitioner',
  prefix: '',
  from: PROVIDER_FROM,
  select: PROVIDER_SELECT,
  geog: null,
  condition(criterion, sql) {
    if (criterion.name === '_id') return idCondition('t.id', idToken(criterion, ''), sql)
    if (criterion.kind === 'date') return dateCondition('t.updated_at', criterion.values, sql, new Date(0))
    return practitionerCondition(criterion, sql) ?? FALSE
  },
  toResource: (row: ProviderRow, meta) => practitioner(row, meta),
}

const ROLE_KINDS_BY_CODE = new Map<string, string[]>()
for (const [kind, role] of Object.entries(ROLE_CODES))
  ROLE_KINDS_BY_CODE.set(role.code, [...(ROLE_KINDS_BY_CODE.get(role.code) ?? []), kind])

export function roleCondition(criterion: Criterion, sql: Sql): string {
  if (criterion.name === '_id') return idCondition('t.id', idToken(criterion, ''), sql)
  switch (criterion.kind) {
    case 'date':
      return dateCondition('t.updated_at', criterion.values, sql, new Date(0))
    case 'reference':
      return roleReference(criterion.name, criterion.values, sql)
    case 'near':
      return FALSE // handled as the search's `near` (ordering and distance)
    case 'token':
      if (criterion.name === 'practitioner') return practitionerCondition(criterion, sql) ?? FALSE
      if (criterion.name === 'specialty') {
        if (criterion.text)
          return `t.primary_taxonomy_code IN (SELECT code FROM specialties WHERE ${stringCondition(
            ['display_name'],
            'prefix',
            criterion.values.map((v) => v.code),
            sql,
          )})`
        const codes = tokenCodes(criterion.values, FHIR_SYSTEMS.nucc)
        return codes.length ? `t.primary_taxonomy_code = ANY(${sql.p(codes)}::bpchar[])` : FALSE
      }
      if (criterion.name === 'role') {
        if (criterion.text) {
          const lower = criterion.values.map((v) => v.code.toLowerCase())
          const kinds = Object.entries(ROLE_CODES)
            .filter(([, role]) => lower.some((text) => role.display.toLowerCase().startsWith(text)))
            .map(([kind]) => kind)
          return kinds.length ? `t.provider_kind = ANY(${sql.p(kinds)}::text[])` : FALSE
        }
        const kinds = tokenCodes(criterion.values, FHIR_SYSTEMS.providerRole).flatMap((code) => ROLE_KINDS_BY_CODE.get(code) ?? [])
        return kinds.length ? `t.provider_kind = ANY(${sql.p(kinds)}::text[])` : FALSE
      }
      if (criterion.name === 'new-patients') {
        const codes = tokenCodes(criterion.values, FHIR_SYSTEMS.acceptingPatients)
        const wanted = [...new Set(codes.filter((code) => code === 'newpt' || code === 'nopt'))]
        return wanted.length === 2
          ? 'TRUE'
          : wanted.length
            ? `t.accepting_new_patients = ${wanted[0] === 'newpt' ? 'TRUE' : 'FALSE'}`
            : FALSE
      }
      return FALSE
    case 'string':
      if (criterion.name === 'practitioner') return practitionerCondition(criterion, sql) ?? FALSE
      if (criterion.name === 'location') return stringCondition(ADDRESS_COLUMNS[criterion.chain!]!, criterion.match, criterion.values, sql)
      if (criterion.name === 'organization') {
        return `t.facility_id IN (SELECT t.id FROM facilities t WHERE ${stringCondition(['t.name'], criterion.match, criterion.values, sql)})`
      }
      if (criterion.name === 'network') {
        return `EXISTS (SELECT 1 FROM insurers i WHERE ${stringCondition(["(i.name || ' Network')"], criterion.match, criterion.values, sql)} AND (t.aggregated_insurance_networks_v1 ->> i.name) = 'true')`
      }
      return FALSE
  }
}

function roleReference(name: string, values: readonly Reference[], sql: Sql): string {
  switch (name) {
    case 'practitioner':
      return idCondition('t.id', idsOf(values, 'Practitioner', ''), sql)
    case 'location':
      return idCondition('t.id', idsOf(values, 'Location', 'prov-'), sql)
    case 'organization':
      return idCondition('t.facility_id', idsOf(values, 'Organization', 'fac-'), sql)
    case 'network':
      return networkByIds(idsOf(values, 'Organization', 'net-'), sql)
  }
  return FALSE
}

const roleKind: Kind = {
  key: 'role',
  type: 'PractitionerRole',
  prefix: '',
  from: PROVIDER_FROM,
  select: PROVIDER_SELECT,
  geog: 't.geog',
  condition: (criterion, sql) => roleCondition(criterion, sql),
  toResource: (row: ProviderRow, meta) => practitionerRole(row, meta),
}

const practiceLocationKind: Kind = {
  key: 'practice',
  type: 'Location',
  prefix: 'prov-',
  from: PROVIDER_FROM,
  select: PROVIDER_SELECT,
  geog: 't.geog',
  condition(criterion, sql) {
    if (criterion.name === '_id') return idCondition('t.id', idToken(criterion, 'prov-'), sql)
    switch (criterion.kind) {
      case 'date':
        return dateCondition('t.updated_at', criterion.values, sql, new Date(0))
      case 'string':
        if (criterion.chain !== null)
          return `t.facility_id IN (SELECT t.id FROM facilities t WHERE ${stringCondition(['t.name'], criterion.match, criterion.values, sql)})`
        return stringCondition(ADDRESS_COLUMNS[criterion.name]!, criterion.match, criterion.values, sql)
      case 'reference':
        return idCondition('t.facility_id', idsOf(criterion.values, 'Organization', 'fac-'), sql)
      case 'token':
        if (criterion.text)
          return stringCondition(
            [sql.p(PRACTICE_LOCATION_TYPE.display)],
            'prefix',
            criterion.values.map((v) => v.code),
            sql,
          )
        return tokenCodes(criterion.values, FHIR_SYSTEMS.locationRole).includes(PRACTICE_LOCATION_TYPE.code) ? 'TRUE' : FALSE
      case 'near':
        return 'TRUE'
    }
  },
  toResource: (row: ProviderRow, meta) => practiceLocation(row, meta),
}

// ---- facilities: Organization (fac) and Location ------------------------------------------------------------

const FACILITY_SELECT = `t.id, t.npi, t.name, t.facility_type, t.taxonomy_code, t.health_system_id, t.address_line_1, t.city,
  t.state, t.zip_code, t.latitude, t.longitude, t.phone_number, t.updated_at`
const FACILITY_ADDRESS: Record<string, string[]> = {
  address: ['t.address_line_1', 't.city', 't.state', 't.zip_code'],
  'address-city': ['t.city'],
  'address-state': ['t.state'],
  'address-postalcode': ['t.zip_code'],
}

const facilityOrganizationKind: Kind = {
  key: 'facility',
  type: 'Organization',
  prefix: 'fac-',
  from: 'facilities t',
  select: FACILITY_SELECT,
  geog: null,
  condition(criterion, sql) {
    if (criterion.name === '_id') return idCondition('t.id', idToken(criterion, 'fac-'), sql)
    switch (criterion.kind) {
      case 'date':
        return dateCondition('t.updated_at', criterion.values, sql, new Date(0))
      case 'string':
        if (criterion.name === 'partof')
          return `t.health_system_id IN (SELECT t.id FROM health_systems t WHERE ${stringCondition(['t.name'], criterion.match, criterion.values, sql)})`
        return stringCondition(criterion.name === 'name' ? ['t.name'] : FACILITY_ADDRESS.address!, criterion.match, criterion.values, sql)
      case 'token':
        if (criterion.name === 'type') return orgTypeMatches(criterion, 'fac') ? 'TRUE' : FALSE
        if (criterion.name === 'identifier') {
          const npis = tokenCodes(criterion.values, FHIR_SYSTEMS.npi).filter((npi) => /^\d{10}$/.test(npi))
          return npis.length ? `t.npi = ANY(${sql.p(npis)}::bpchar[])` : FALSE
        }
        return FALSE
      case 'reference':
        return idCondition('t.health_system_id', idsOf(criterion.values, 'Organization', 'hs-'), sql)
      case 'near':
        return FALSE
    }
  },
  toResource: (row: FacilityRow, meta) => facilityOrganization(row, meta),
}

function orgTypeMatches(criterion: Extract<Criterion, { kind: 'token' }>, kind: keyof typeof ORG_TYPES): boolean {
  const type = ORG_TYPES[kind]
  if (criterion.text) return criterion.values.some((value) => type.display.toLowerCase().startsWith(value.code.toLowerCase()))
  return tokenCodes(criterion.values, FHIR_SYSTEMS.orgType).includes(type.code)
}

const FACILITY_TYPES_BY_CODE = new Map<string, string[]>()
for (const [kind, type] of Object.entries(LOCATION_TYPES))
  FACILITY_TYPES_BY_CODE.set(type.code, [...(FACILITY_TYPES_BY_CODE.get(type.code) ?? []), kind])

const facilityLocationKind: Kind = {
  key: 'facility-location',
  type: 'Location',
  prefix: 'fac-',
  from: 'facilities t',
  select: FACILITY_SELECT,
  geog: 't.geog',
  condition(criterion, sql) {
    if (criterion.name === '_id') return idCondition('t.id', idToken(criterion, 'fac-'), sql)
    switch (criterion.kind) {
      case 'date':
        return dateCondition('t.updated_at', criterion.values, sql, new Date(0))
      case 'string':
        if (criterion.chain !== null) return stringCondition(['t.name'], criterion.match, criterion.values, sql)
        return stringCondition(FACILITY_ADDRESS[criterion.name]!, criterion.match, criterion.values, sql)
      case 'reference':
        return idCondition('t.id', idsOf(criterion.values, 'Organization', 'fac-'), sql)
      case 'token': {
        if (criterion.text) {
          const lower = criterion.values.map((v) => v.code.toLowerCase())
          const kinds = Object.entries(LOCATION_TYPES)
            .filter(([, type]) => lower.some((text) => type.display.toLowerCase().startsWith(text)))
            .map(([kind]) => kind)
          return kinds.length ? `t.facility_type = ANY(${sql.p(kinds)}::text[])` : FALSE
        }
        const kinds = tokenCodes(criterion.values, FHIR_SYSTEMS.locationRole).flatMap((code) => FACILITY_TYPES_BY_CODE.get(code) ?? [])
        return kinds.length ? `t.facility_type = ANY(${sql.p(kinds)}::text[])` : FALSE
      }
      case 'near':
        return 'TRUE'
    }
  },
  toResource: (row: FacilityRow, meta) => facilityLocation(row, meta),
}

// ---- health systems, payers and networks (Organization) -------------------------------------------------------

const healthSystemKind: Kind = {
  key: 'health-system',
  type: 'Organization',
  prefix: 'hs-',
  from: 'health_systems t',
  select: 't.id, t.name, t.city, t.state, t.phone_number, t.website_domain',
  geog: null,
  condition(criterion, sql, context) {
    if (criterion.name === '_id') return idCondition('t.id', idToken(criterion, 'hs-'), sql)
    switch (criterion.kind) {
      case 'date':
        return dateCondition(null, criterion.values, sql, context.loadedAt)
      case 'string':
        if (criterion.name === 'name') return stringCondition(['t.name'], criterion.match, criterion.values, sql)
        if (criterion.name === 'address') return stringCondition(['t.city', 't.state'], criterion.match, criterion.values, sql)
        return FALSE
      case 'token':
        return criterion.name === 'type' && orgTypeMatches(criterion, 'hs') ? 'TRUE' : FALSE
      default:
        return FALSE
    }
  },
  toResource: (row: HealthSystemRow, meta) => healthSystemOrganization(row, meta),
}

const payerKind: Kind = {
  key: 'payer',
  type: 'Organization',
  prefix: 'ins-',
  from: 'insurers t',
  select: 't.id, t.name, t.kind, t.states',
  geog: null,
  condition(criterion, sql, context) {
    if (criterion.name === '_id') return idCondition('t.id', idToken(criterion, 'ins-'), sql)
    switch (criterion.kind) {
      case 'date':
        return dateCondition(null, criterion.values, sql, context.loadedAt)
      case 'string':
        return criterion.name === 'name' ? stringCondition(['t.name'], criterion.match, criterion.values, sql) : FALSE
      case 'token':
        return criterion.name === 'type' && orgTypeMatches(criterion, 'ins') ? 'TRUE' : FALSE
      default:
        return FALSE
    }
  },
  toResource: (row: InsurerRow, meta) => payerOrganization(row, meta),
}

const networkKind: Kind = {
  key: 'network',
  type: 'Organization',
  prefix: 'net-',
  from: 'insurers t',
  select: 't.id, t.name, t.kind, t.states',
  geog: null,
  condition(criterion, sql, context) {
    if (criterion.name === '_id') return idCondition('t.id', idToken(criterion, 'net-'), sql)
    switch (criterion.kind) {
      case 'date':
        return dateCondition(null, criterion.values, sql, context.loadedAt)
      case 'string':
        if (criterion.name === 'name') return stringCondition(["(t.name || ' Network')"], criterion.match, criterion.values, sql)
        if (criterion.name === 'partof') return stringCondition(['t.name'], criterion.match, criterion.values, sql)
        return FALSE
      case 'token':
        return criterion.name === 'type' && orgTypeMatches(criterion, 'net') ? 'TRUE' : FALSE
      case 'reference':
        return criterion.name === 'partof' ? idCondition('t.id', idsOf(criterion.values, 'Organization', 'ins-'), sql) : FALSE
      default:
        return FALSE
    }
  },
  toResource: (row: InsurerRow, meta) => networkOrganization(row, meta),
}

/** The kinds of each resource type, in paging order. */
export const KINDS: Record<FhirResourceType, readonly Kind[]> = {
  Practitioner: [practitionerKind],
  PractitionerRole: [roleKind],
  Organization: [facilityOrganizationKind, healthSystemKind, payerKind, networkKind],
  Location: [facilityLocationKind, practiceLocationKind],
}

/** The kind and numeric id of `Type/id`, or null when no such resource can exist. */
export function kindOf(type: FhirResourceType, id: string): { kind: Kind; index: number; id: number } | null {
  const kinds = KINDS[type]
  for (let index = 0; index < kinds.length; index++) {
    const kind = kinds[index]!
    const ids = idsOf([{ type, id }], type, kind.prefix)
    if (ids.length && (kind.prefix !== '' || /^\d+$/.test(id))) return { kind, index, id: ids[0]! }
  }
  return null
}
