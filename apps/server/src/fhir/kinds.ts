import type { FhirResourceType } from '@citrus/contracts'
import type { Criterion, DateBound, Near, StringMatch, Token } from './params.js'
import { FHIR_SYSTEMS } from '@citrus/contracts'
import {
  AFFILIATION_ROLES,
  HIGH_DEDUCTIBLE_FROM,
  LOCATION_TYPES,
  PRODUCT_TYPES,
  SERVICE_CATEGORIES,
  healthcareService,
  insurancePlan,
  organizationAffiliation,
  planType,
  ORG_TYPES,
  PRACTICE_LOCATION_TYPE,
  ROLE_CODES,
  facilityLocationJson,
  facilityOrganization,
  healthSystemOrganization,
  networkOrganization,
  payerOrganization,
  practiceLocationJson,
  practitionerJson,
  parsePractitionerRoleId,
  practitionerRoleId,
  practitionerRolesJson,
  type FacilityRow,
  type HealthSystemRow,
  type InsurancePlanRow,
  type InsurerRow,
  type Meta,
  type PracticeRow,
  type ProviderRow,
  type Render,
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

/**
 * What a condition needs besides the request: when rows without a time of their own were last loaded, and the
 * insurers (their names key the clinicians' networks JSON).
 */
export interface FilterContext {
  loadedAt: Date
  insurers: readonly { id: number; name: string }[]
}

export const FALSE = 'FALSE'

/** A criterion as a kind's own condition takes it: chains, reverse chains and references are resolved in conditionOf. */
export type KindCriterion = Exclude<Criterion, { kind: 'chain' | 'has' }>

/** Where a reference parameter of a kind points: a kind (its type and id prefix), and how a row `t` names its rows. */
export type ReferenceTarget = { type: FhirResourceType; prefix: string } & (
  | {
      /** SQL of the referenced row's id on the row `t` */
      column: string
      /** a further test on `t` for the reference to hold (a practice is part of its facility's location at its address) */
      guard?: string
      several?: undefined
    }
  | {
      /**
       * the rows a row `t` references, several a row (a clinician's networks), as a test of the row `t` on a key of
       * one referenced row (`key`: its SQL on the referenced row `t`). The kind's own condition takes literal references
       * to them; a chain on them is first resolved to the ids it names (search.ts); a reverse chain probes each
       * referenced row (a network: the GIN index of the networks JSON finds its clinicians).
       */
      several: { key: string; holds: (key: string) => string }
      column?: undefined
      guard?: undefined
    }
)

interface KindBase {
  key: string
  type: FhirResourceType
  /** id prefix of this kind's resources ('' for clinicians' Practitioner/PractitionerRole) */
  prefix: string
  /** `FROM` clause; the kind's table is aliased `t` */
  from: string
  /** the table of the rows: a reference by `t.id` between kinds of one table is a condition on the row itself */
  table: string
  /** which rows of the table are of this kind (when `from` selects some of them) */
  restrict?: string
  /** the reference parameters and what they point at */
  references?: Readonly<Record<string, readonly ReferenceTarget[]>>
  select: string
  /** SQL of the row's geography point, for `near` */
  geog: string | null
  /**
   * The row's latitude and longitude columns where a (…, latitude, longitude) index can narrow a filtered `near` to a
   * box around it (providers' (primary_taxonomy_code, latitude, longitude): `specialty=` with `near`)
   */
  box?: readonly [latitude: string, longitude: string]
  /** one criterion as SQL, FALSE when nothing of this kind can match (conditionOf: chains and references) */
  condition(criterion: KindCriterion, sql: Sql, context: FilterContext): string
}

/**
 * A kind: one resource a row (`toJson`), or several (`several`: a clinician's PractitionerRoles, one per network).
 */
export type Kind = KindBase &
  (
    | {
        /** the row's resource as JSON text (the only rendering: reads parse it) */
        toJson(row: never, render: Render): string
        several?: undefined
      }
    | { several: Several; toJson?: undefined }
  )

/**
 * The resources of a row of a kind with several a row, each at a sub-position of its row (a role: its network's
 * insurer id, 0 for the role of a clinician in no network). Pages, cursors and counts go by (row id, sub-position).
 */
export interface Several {
  /** the sub-positions of a row's resources that `filter` keeps, ascending */
  subs(row: never, render: Render, filter: SubFilter | null): readonly number[]
  /** the row's resources at `subs` as JSON text, in that order */
  toJson(row: never, render: Render, subs: readonly number[]): string[]
  /** the id of the resource at a row's sub-position */
  idOf(id: number, sub: number): string
  /** the row id and sub-position an id names, null when it names none */
  parse(id: string): { id: number; sub: number } | null
  /** what the criteria keep of each matching row's resources: null for all of them */
  filter(criteria: readonly Criterion[], context: FilterContext): SubFilter | null
  /** a LATERAL subquery of a row `t`'s sub-positions (column `sub`), for counting in SQL */
  subsSql: string
}

/** Which resources of a row a search keeps (a network filter keeps the roles of the networks asked). */
export interface SubFilter {
  keeps(id: number, sub: number): boolean
  /** the same test in SQL, on `t.id` and `r.sub` (r: Several.subsSql) */
  sql(sql: Sql): string
}

/** The resources at these (row id, sub-position) pairs: a read's, a page's part of a row, roles named by `_id`. */
export function resourcesAt(named: readonly { id: number; sub: number }[]): SubFilter {
  const subs = new Map<number, Set<number>>()
  for (const at of named) subs.set(at.id, (subs.get(at.id) ?? new Set()).add(at.sub))
  return {
    keeps: (id, sub) => subs.get(id)?.has(sub) ?? false,
    sql: (sql) =>
      `(t.id, r.sub) IN (SELECT * FROM unnest(${sql.p(named.map((at) => at.id))}::int[], ${sql.p(named.map((at) => at.sub))}::int[]))`,
  }
}

/** toJson of a kind whose resource is built as an object (the kinds of a few thousand rows at most). */
const asJson =
  <R>(build: (row: R, meta: Meta) => Resource) =>
  (row: R, render: Render) =>
    JSON.stringify(build(row, render.meta))

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

/** A NUCC specialty token on a taxonomy column: codes, or `:text` on the specialty's name. */
function taxonomyCondition(column: string, criterion: Extract<Criterion, { kind: 'token' }>, sql: Sql): string {
  if (criterion.text)
    return `${column} IN (SELECT code FROM specialties WHERE ${stringCondition(
      ['display_name'],
      'prefix',
      criterion.values.map((v) => v.code),
      sql,
    )})`
  const codes = tokenCodes(criterion.values, FHIR_SYSTEMS.nucc)
  return codes.length ? `${column} = ANY(${sql.p(codes)}::bpchar[])` : FALSE
}

// ---- clinicians (providers): Practitioner, PractitionerRole and their practice Location ---------------------

/**
 * The columns each clinician kind renders. PractitionerRole's networks are the JSON's text, turned into
 * network-reference extensions in JavaScript from the insurers read once per data version (search.ts): expanding it
 * in SQL (jsonb_each_text joined to insurers, per row) took three quarters of a 1,000-row page's statement.
 */
const PRACTITIONER_SELECT = `t.id, t.npi, t.first_name, t.middle_name, t.last_name, t.full_name, t.title, t.gender, t.phone_number,
  t.updated_at`
const ROLE_SELECT = `t.id, t.full_name, t.title, t.provider_kind, t.primary_taxonomy_code, s.display_name AS specialty_display,
  t.phone_number, t.facility_id, t.accepting_new_patients, t.aggregated_insurance_networks_v1::text AS networks,
  t.last_verified_at::text AS last_verified_at, t.confidence::float8 AS confidence, t.updated_at`
const PRACTICE_SELECT = `t.id, t.full_name, t.phone_number, t.address, t.city, t.state, t.zip_code, t.latitude, t.longitude, t.facility_id,
  t.updated_at`
const PROVIDER_FROM = `providers t`
const ROLE_FROM = `providers t LEFT JOIN specialties s ON s.code = t.primary_taxonomy_code`

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

/** An NPI token on a row `t` (a clinician's or a facility's). */
function npiCondition(criterion: Extract<Criterion, { kind: 'token' }>, sql: Sql): string {
  const npis = tokenCodes(criterion.values, FHIR_SYSTEMS.npi).filter((npi) => /^\d{10}$/.test(npi))
  return npis.length ? `t.npi = ANY(${sql.p(npis)}::bpchar[])` : FALSE
}

/**
 * Clinicians in any of the named networks: containment of {"<insurer>": true} in the networks JSON, with the names as
 * values (not a subquery), so that the planner weighs each network by its size: the GIN index providers_networks_gin
 * (jsonb_path_ops) for a small one, the id order for a large one.
 */
function inNetworks(names: readonly string[], sql: Sql): string {
  if (!names.length) return FALSE
  const tests = names.map((name) => `t.aggregated_insurance_networks_v1 @> ${sql.p(JSON.stringify({ [name]: true }))}::jsonb`)
  return tests.length === 1 ? tests[0]! : `(${tests.join(' OR ')})`
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
  table: 'providers',
  select: PRACTITIONER_SELECT,
  geog: null,
  condition(criterion, sql) {
    if (criterion.name === '_id') return idCondition('t.id', idToken(criterion, ''), sql)
    if (criterion.kind === 'date') return dateCondition('t.updated_at', criterion.values, sql, new Date(0))
    if (criterion.kind === 'string') return stringCondition(NAME_COLUMNS[criterion.name]!, criterion.match, criterion.values, sql)
    if (criterion.kind === 'token' && criterion.name === 'identifier') return npiCondition(criterion, sql)
    return FALSE
  },
  toJson: (row: ProviderRow, render) => practitionerJson(row, render),
}

const ROLE_KINDS_BY_CODE = new Map<string, string[]>()
for (const [kind, role] of Object.entries(ROLE_CODES))
  ROLE_KINDS_BY_CODE.set(role.code, [...(ROLE_KINDS_BY_CODE.get(role.code) ?? []), kind])

function roleCondition(criterion: KindCriterion, sql: Sql, context: FilterContext): string {
  if (criterion.name === '_id')
    return criterion.kind === 'token'
      ? idCondition(
          't.id',
          roleIds(criterion).map((role) => role.id),
          sql,
        )
      : FALSE
  switch (criterion.kind) {
    case 'date':
      return dateCondition('t.updated_at', criterion.values, sql, new Date(0))
    case 'reference': // network (the other references: conditionOf)
      return inNetworks(
        networksNamed(criterion, context).map((insurer) => insurer.name),
        sql,
      )
    case 'near':
      return FALSE // handled as the search's `near` (ordering and distance)
    case 'token':
      if (criterion.name === 'specialty') return taxonomyCondition('t.primary_taxonomy_code', criterion, sql)
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
      return FALSE
  }
}

/** A role's sub-position: its network's insurer id, 0 for the one role of a clinician in no network. */
const NO_NETWORK: readonly number[] = [0]

/** The roles (clinician id, sub-position) that `_id` tokens name. */
function roleIds(criterion: Extract<Criterion, { kind: 'token' }>): { id: number; sub: number }[] {
  return criterion.values.flatMap((token) => {
    const parsed = parsePractitionerRoleId(token.code)
    return parsed ? [{ id: parsed.providerId, sub: parsed.network ?? 0 }] : []
  })
}

/**
 * The insurer ids a `network` reference names, among the insurers (a chain `network.name=…` is resolved to such
 * references first: search.ts resolveChains).
 */
function networksNamed(criterion: Extract<Criterion, { kind: 'reference' }>, context: FilterContext): FilterContext['insurers'] {
  const ids = new Set(idsOf(criterion.values, 'Organization', 'net-'))
  return context.insurers.filter((insurer) => ids.has(insurer.id))
}

/**
 * What a search keeps of a matching clinician's roles: with `network=` or `network.name=`, the roles of the networks
 * asked (each criterion must hold); with `_id=`, the roles named. Other criteria select clinicians, all of whose roles
 * are kept.
 */
function roleFilter(criteria: readonly Criterion[], context: FilterContext): SubFilter | null {
  const tests: ((id: number, sub: number) => boolean)[] = []
  const conditions: ((sql: Sql) => string)[] = []
  for (const criterion of criteria) {
    if (criterion.name === '_id' && criterion.kind === 'token') {
      const named = resourcesAt(roleIds(criterion))
      tests.push(named.keeps)
      conditions.push(named.sql)
    } else if (criterion.name === 'network' && criterion.kind === 'reference') {
      const networks = new Set(networksNamed(criterion, context).map((insurer) => insurer.id))
      tests.push((_id, sub) => networks.has(sub))
      conditions.push((sql) => `r.sub = ANY(${sql.p([...networks])}::int[])`)
    }
  }
  if (!tests.length) return null
  return {
    keeps: (id, sub) => tests.every((test) => test(id, sub)),
    sql: (sql) => conditions.map((condition) => condition(sql)).join(' AND '),
  }
}

/** A clinician's networks (insurers named true in its networks JSON) as rows `sub`, or one 0 when it is in none. */
const ROLE_NETWORKS = `(SELECT i.id FROM jsonb_each(t.aggregated_insurance_networks_v1) e JOIN insurers i ON i.name = e.key
  WHERE e.value = 'true'::jsonb)`
const ROLE_SUBS_SQL = `(SELECT coalesce(n.id, 0) FROM (SELECT 1) one LEFT JOIN LATERAL ${ROLE_NETWORKS} n ON true) r(sub)`

const roleKind: Kind = {
  key: 'role',
  type: 'PractitionerRole',
  prefix: '',
  from: ROLE_FROM,
  table: 'providers',
  references: {
    practitioner: [{ type: 'Practitioner', prefix: '', column: 't.id' }],
    location: [{ type: 'Location', prefix: 'prov-', column: 't.id' }],
    organization: [{ type: 'Organization', prefix: 'fac-', column: 't.facility_id' }],
    network: [
      {
        type: 'Organization',
        prefix: 'net-',
        several: { key: 't.name', holds: (key) => `t.aggregated_insurance_networks_v1 @> jsonb_build_object(${key}::text, true)` },
      },
    ],
  },
  select: ROLE_SELECT,
  geog: 't.geog',
  box: ['t.latitude', 't.longitude'],
  condition: (criterion, sql, context) => roleCondition(criterion, sql, context),
  several: {
    subs(row: ProviderRow, render, filter) {
      const networks = row.networks ? render.networksOf(row.networks) : []
      const subs = networks.length ? networks : NO_NETWORK
      return filter ? subs.filter((sub) => filter.keeps(row.id, sub)) : subs
    },
    toJson: (row: ProviderRow, render, subs) =>
      practitionerRolesJson(
        row,
        render,
        subs.map((sub) => (sub === 0 ? null : sub)),
      ),
    idOf: (id, sub) => practitionerRoleId(id, sub === 0 ? null : sub),
    parse(id) {
      const parsed = parsePractitionerRoleId(id)
      return parsed ? { id: parsed.providerId, sub: parsed.network ?? 0 } : null
    },
    filter: roleFilter,
    subsSql: ROLE_SUBS_SQL,
  },
}

/** The facility whose location a practice `t` is part of: the clinician's facility at the very same address, else NULL. */
const PART_OF_SQL = `(SELECT f.id FROM facilities f WHERE f.id = t.facility_id AND f.address_line_1 = t.address AND f.city = t.city
  AND f.state = t.state AND f.zip_code = t.zip_code)`

const practiceLocationKind: Kind = {
  key: 'practice',
  type: 'Location',
  prefix: 'prov-',
  from: PROVIDER_FROM,
  table: 'providers',
  references: {
    organization: [{ type: 'Organization', prefix: 'fac-', column: 't.facility_id' }],
    partof: [{ type: 'Location', prefix: 'fac-', column: 't.facility_id', guard: `${PART_OF_SQL} IS NOT NULL` }],
  },
  select: `${PRACTICE_SELECT}, ${PART_OF_SQL} AS part_of`,
  geog: 't.geog',
  box: ['t.latitude', 't.longitude'],
  condition(criterion, sql) {
    if (criterion.name === '_id') return idCondition('t.id', idToken(criterion, 'prov-'), sql)
    switch (criterion.kind) {
      case 'date':
        return dateCondition('t.updated_at', criterion.values, sql, new Date(0))
      case 'string':
        return stringCondition(ADDRESS_COLUMNS[criterion.name]!, criterion.match, criterion.values, sql)
      case 'reference':
        return FALSE
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
  toJson: (row: PracticeRow, render) => practiceLocationJson(row, render),
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

/**
 * A kind over facility rows (ids `fac-{id}`, `_lastUpdated` on updated_at): Organization, Location, HealthcareService
 * and OrganizationAffiliation differ in their references and other parameters only (`restrict`: the facilities of
 * the kind, when not all).
 */
function facilityKind(
  shape: Pick<KindBase, 'key' | 'type' | 'geog' | 'restrict' | 'references'>,
  condition: (criterion: Exclude<KindCriterion, { kind: 'date' }>, sql: Sql) => string,
  toJson: (row: FacilityRow, render: Render) => string,
): Kind {
  return {
    ...shape,
    prefix: 'fac-',
    from: shape.restrict ? `(SELECT * FROM facilities t WHERE ${shape.restrict}) t` : 'facilities t',
    table: 'facilities',
    select: FACILITY_SELECT,
    condition(criterion, sql) {
      if (criterion.name === '_id') return idCondition('t.id', idToken(criterion, 'fac-'), sql)
      if (criterion.kind === 'date') return dateCondition('t.updated_at', criterion.values, sql, new Date(0))
      return condition(criterion, sql)
    },
    toJson,
  }
}

const facilityOrganizationKind = facilityKind(
  {
    key: 'facility',
    type: 'Organization',
    geog: null,
    references: { partof: [{ type: 'Organization', prefix: 'hs-', column: 't.health_system_id' }] },
  },
  (criterion, sql) => {
    switch (criterion.kind) {
      case 'string':
        return stringCondition(criterion.name === 'name' ? ['t.name'] : FACILITY_ADDRESS.address!, criterion.match, criterion.values, sql)
      case 'token':
        if (criterion.name === 'type') return orgTypeMatches(criterion, 'fac') ? 'TRUE' : FALSE
        if (criterion.name === 'identifier') return npiCondition(criterion, sql)
        return FALSE
      case 'reference':
      case 'near':
        return FALSE
    }
  },
  asJson(facilityOrganization),
)

function orgTypeMatches(criterion: Extract<Criterion, { kind: 'token' }>, kind: keyof typeof ORG_TYPES): boolean {
  const type = ORG_TYPES[kind]
  if (criterion.text) return criterion.values.some((value) => type.display.toLowerCase().startsWith(value.code.toLowerCase()))
  return tokenCodes(criterion.values, FHIR_SYSTEMS.orgType).includes(type.code)
}

const facilityLocationKind = facilityKind(
  {
    key: 'facility-location',
    type: 'Location',
    geog: 't.geog',
    // a facility's location is part of no other location
    references: { organization: [{ type: 'Organization', prefix: 'fac-', column: 't.id' }] },
  },
  (criterion, sql) => {
    switch (criterion.kind) {
      case 'string':
        return stringCondition(FACILITY_ADDRESS[criterion.name]!, criterion.match, criterion.values, sql)
      case 'reference':
        return FALSE
      case 'token':
        return facilityTypeCondition(criterion, LOCATION_TYPES, FHIR_SYSTEMS.locationRole, sql)
      case 'near':
        return 'TRUE'
    }
  },
  facilityLocationJson,
)

// ---- health systems, payers and networks (Organization) -------------------------------------------------------

const healthSystemKind: Kind = {
  key: 'health-system',
  type: 'Organization',
  prefix: 'hs-',
  from: 'health_systems t',
  table: 'health_systems',
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
  toJson: asJson((row: HealthSystemRow, meta) => healthSystemOrganization(row, meta)),
}

/**
 * An insurer is two Organizations: the payer (`ins-`) and its network (`net-`, named "{payer} Network", part of the
 * payer). One implementation serves both: only the id prefix, the name and `partof` differ.
 */
function insurerKind(variant: 'payer' | 'network'): Kind {
  const network = variant === 'network'
  const prefix = network ? 'net-' : 'ins-'
  const name = network ? "(t.name || ' Network')" : 't.name'
  return {
    key: variant,
    type: 'Organization',
    prefix,
    from: 'insurers t',
    table: 'insurers',
    ...(network ? { references: { partof: [{ type: 'Organization', prefix: 'ins-', column: 't.id' }] } } : {}),
    select: 't.id, t.name, t.kind, t.states',
    geog: null,
    condition(criterion, sql, context) {
      if (criterion.name === '_id') return idCondition('t.id', idToken(criterion, prefix), sql)
      switch (criterion.kind) {
        case 'date':
          return dateCondition(null, criterion.values, sql, context.loadedAt)
        case 'string':
          if (criterion.name === 'name') return stringCondition([name], criterion.match, criterion.values, sql)
          return FALSE
        case 'token':
          return criterion.name === 'type' && orgTypeMatches(criterion, network ? 'net' : 'ins') ? 'TRUE' : FALSE
        default:
          return FALSE
      }
    },
    toJson: asJson(
      network ? (row: InsurerRow, meta) => networkOrganization(row, meta) : (row: InsurerRow, meta) => payerOrganization(row, meta),
    ),
  }
}

// ---- a facility's services (HealthcareService) and its place in its health system (OrganizationAffiliation) ------

/** The facility types whose code (in `system`) or display (`:text`, starts with) a token criterion names. */
function facilityTypesOf(
  criterion: Extract<Criterion, { kind: 'token' }>,
  table: Record<string, { code: string; display: string }>,
  system: string,
): string[] {
  const entries = Object.entries(table)
  if (criterion.text) {
    const lower = criterion.values.map((v) => v.code.toLowerCase())
    return entries.filter(([, type]) => lower.some((text) => type.display.toLowerCase().startsWith(text))).map(([kind]) => kind)
  }
  const codes = tokenCodes(criterion.values, system)
  return entries.filter(([, type]) => codes.includes(type.code)).map(([kind]) => kind)
}

function facilityTypeCondition(
  criterion: Extract<Criterion, { kind: 'token' }>,
  table: Record<string, { code: string; display: string }>,
  system: string,
  sql: Sql,
): string {
  const kinds = facilityTypesOf(criterion, table, system)
  return kinds.length ? `t.facility_type = ANY(${sql.p(kinds)}::text[])` : FALSE
}

const healthcareServiceKind = facilityKind(
  {
    key: 'service',
    type: 'HealthcareService',
    geog: null,
    references: {
      organization: [{ type: 'Organization', prefix: 'fac-', column: 't.id' }],
      location: [{ type: 'Location', prefix: 'fac-', column: 't.id' }],
    },
  },
  (criterion, sql) => {
    switch (criterion.kind) {
      case 'string': // name: the facility's name
        return stringCondition(['t.name'], criterion.match, criterion.values, sql)
      case 'reference':
        return FALSE
      case 'token':
        if (criterion.name === 'service-category')
          return facilityTypeCondition(criterion, SERVICE_CATEGORIES, FHIR_SYSTEMS.serviceCategory, sql)
        if (criterion.name === 'specialty') return taxonomyCondition('t.taxonomy_code', criterion, sql)
        return FALSE
      case 'near':
        return FALSE
    }
  },
  asJson(healthcareService),
)

const organizationAffiliationKind = facilityKind(
  {
    key: 'affiliation',
    type: 'OrganizationAffiliation',
    geog: null,
    // a facility is affiliated when it belongs to a health system
    restrict: 't.health_system_id IS NOT NULL',
    // the health system, and the facility as itself, its location and its services
    references: {
      'primary-organization': [{ type: 'Organization', prefix: 'hs-', column: 't.health_system_id' }],
      'participating-organization': [{ type: 'Organization', prefix: 'fac-', column: 't.id' }],
      location: [{ type: 'Location', prefix: 'fac-', column: 't.id' }],
      service: [{ type: 'HealthcareService', prefix: 'fac-', column: 't.id' }],
    },
  },
  (criterion, sql) => {
    switch (criterion.kind) {
      case 'string':
        return FALSE
      case 'reference':
        return FALSE
      case 'token':
        if (criterion.name === 'role') return facilityTypeCondition(criterion, AFFILIATION_ROLES, FHIR_SYSTEMS.affiliationRole, sql)
        if (criterion.name === 'specialty') return taxonomyCondition('t.taxonomy_code', criterion, sql)
        return FALSE
      case 'near':
        return FALSE
    }
  },
  asJson(organizationAffiliation),
)

// ---- an insurer's product (InsurancePlan) ------------------------------------------------------------------------

/** InsuranceProductTypeCS of an insurer (`t`) from its kind; the public Medicare program is Medicare A/B. */
const PRODUCT_TYPE_SQL = `(CASE WHEN t.kind = 'medicare' AND t.parent = 'Centers for Medicare & Medicaid Services' THEN 'mediab'
  WHEN t.kind = 'medicare' THEN 'mediadv' WHEN t.kind = 'medicaid' THEN 'medi' WHEN t.kind = 'military' THEN 'tri' ELSE 'commppo' END)`
/**
 * The plan designs (plan_cost_sharing `c`) of an insurer `t`: its own, and those of its kind (a Medicare Advantage
 * carrier's: the Medicare Advantage design).
 */
const PLAN_DESIGNS = `c.plan_design <> '' AND (c.payer_name = t.name OR (c.payer_name = '' AND CASE WHEN ${PRODUCT_TYPE_SQL} = 'mediadv'
  THEN c.plan_name = 'Medicare Advantage' ELSE c.payer_kind = t.kind AND c.plan_name = '' END))`

const insurancePlanKind: Kind = {
  key: 'plan',
  type: 'InsurancePlan',
  prefix: 'ins-',
  from: 'insurers t',
  table: 'insurers',
  references: {
    'administered-by': [{ type: 'Organization', prefix: 'ins-', column: 't.id' }],
    'owned-by': [{ type: 'Organization', prefix: 'ins-', column: 't.id' }],
  },
  select: `t.id, t.name, t.kind, t.states, ${PRODUCT_TYPE_SQL} AS product_type,
    (SELECT coalesce(json_agg(json_build_object('design', c.plan_design, 'deductible', c.deductible::float8, 'copay', c.copay::float8,
      'coinsurance', c.coinsurance::float8) ORDER BY c.deductible, c.id), '[]'::json) FROM plan_cost_sharing c WHERE ${PLAN_DESIGNS}) AS plans`,
  geog: null,
  condition(criterion, sql, context) {
    if (criterion.name === '_id') return idCondition('t.id', idToken(criterion, 'ins-'), sql)
    switch (criterion.kind) {
      case 'date':
        return dateCondition(null, criterion.values, sql, context.loadedAt)
      case 'string': // name: the payer is the insurer
        return stringCondition(['t.name'], criterion.match, criterion.values, sql)
      case 'token': {
        if (criterion.name === 'type') {
          const codes = criterion.text
            ? Object.entries(PRODUCT_TYPES)
                .filter(([, display]) => criterion.values.some((v) => display.toLowerCase().startsWith(v.code.toLowerCase())))
                .map(([code]) => code)
            : tokenCodes(criterion.values, FHIR_SYSTEMS.productType)
          return codes.length ? `${PRODUCT_TYPE_SQL} = ANY(${sql.p(codes)}::text[])` : FALSE
        }
        if (criterion.name === 'plan-type') {
          const wanted = criterion.text
            ? [planType(0), planType(HIGH_DEDUCTIBLE_FROM)]
                .filter((type) => criterion.values.some((v) => type.display.toLowerCase().startsWith(v.code.toLowerCase())))
                .map((type) => type.code)
            : tokenCodes(criterion.values, FHIR_SYSTEMS.planType)
          const high = [...new Set(wanted.filter((code) => code === 'highdeductible' || code === 'lowdeductible'))]
          if (!high.length) return FALSE
          const deductible = high.length === 2 ? '' : ` AND (c.deductible >= ${HIGH_DEDUCTIBLE_FROM}) = ${high[0] === 'highdeductible'}`
          return `EXISTS (SELECT 1 FROM plan_cost_sharing c WHERE ${PLAN_DESIGNS}${deductible})`
        }
        return FALSE
      }
      default:
        return FALSE
    }
  },
  toJson: asJson((row: InsurancePlanRow, meta) => insurancePlan(row, meta)),
}

/** The kinds of each resource type, in paging order. */
export const KINDS: Record<FhirResourceType, readonly Kind[]> = {
  Practitioner: [practitionerKind],
  PractitionerRole: [roleKind],
  Organization: [facilityOrganizationKind, healthSystemKind, insurerKind('payer'), insurerKind('network')],
  Location: [facilityLocationKind, practiceLocationKind],
  HealthcareService: [healthcareServiceKind],
  OrganizationAffiliation: [organizationAffiliationKind],
  InsurancePlan: [insurancePlanKind],
}

/**
 * The kind and numeric row id of `Type/id` (and the sub-position, for a kind of several resources a row), or null when
 * no such resource can exist.
 */
export function kindOf(type: FhirResourceType, id: string): { kind: Kind; index: number; id: number; sub?: number } | null {
  const kinds = KINDS[type]
  for (let index = 0; index < kinds.length; index++) {
    const kind = kinds[index]!
    if (kind.several) {
      const parsed = kind.several.parse(id)
      if (parsed) return { kind, index, ...parsed }
      continue
    }
    const ids = idsOf([{ type, id }], type, kind.prefix)
    if (ids.length && (kind.prefix !== '' || /^\d+$/.test(id))) return { kind, index, id: ids[0]! }
  }
  return null
}

/** The kind of a reference target: the kind of that type with that id prefix. */
export function targetKind(target: ReferenceTarget): Kind {
  const kind = KINDS[target.type].find((candidate) => candidate.prefix === target.prefix)
  if (!kind) throw new Error(`no ${target.type} kind with the prefix "${target.prefix}"`)
  return kind
}

function anyOf(conditions: readonly string[]): string {
  const kept = conditions.filter((condition) => condition !== FALSE)
  if (kept.includes('TRUE')) return 'TRUE'
  return kept.length === 0 ? FALSE : kept.length === 1 ? kept[0]! : `(${kept.join(' OR ')})`
}

function allOf(conditions: readonly (string | undefined)[]): string {
  if (conditions.includes(FALSE)) return FALSE
  const kept = conditions.filter((condition): condition is string => condition !== undefined && condition !== 'TRUE')
  return kept.length === 0 ? 'TRUE' : kept.length === 1 ? kept[0]! : `(${kept.join(' AND ')})`
}

const whereOf = (condition: string) => (condition === 'TRUE' ? '' : ` WHERE ${condition}`)

/** A reference by `t.id` from a kind to a kind of the same table: the row itself (a role's practitioner, a facility's location). */
const sameRow = (from: Kind, to: Kind, column: string) => column === 't.id' && from.table === to.table

/**
 * One criterion on a row `t` of `kind` as SQL: FALSE when no row of the kind can match, TRUE when every row does. One
 * implementation of references for every kind, from its `references`: literal ones (`organization=Organization/fac-1`),
 * chains (`organization.name=…`, the target kind's own condition on the rows referenced) and reverse chains
 * (`_has:PractitionerRole:location:specialty=…`, the source kind's condition on the rows that reference this one). A
 * reference within one row is a condition on the row; else a semi-join on the referenced (or referencing) ids.
 */
export function conditionOf(kind: Kind, criterion: Criterion, sql: Sql, context: FilterContext): string {
  switch (criterion.kind) {
    case 'chain':
      return anyOf(
        (kind.references?.[criterion.name] ?? []).map((target) => {
          if (target.column === undefined) throw new Error(`the chain ${kind.type}.${criterion.name} is resolved to ids first`)
          const other = targetKind(target)
          const inner = conditionOf(other, criterion.inner, sql, context)
          if (inner === FALSE) return FALSE
          const reach = sameRow(kind, other, target.column)
            ? allOf([inner, other.restrict])
            : `${target.column} IN (SELECT t.id FROM ${other.from}${whereOf(inner)})`
          return allOf([reach, target.guard])
        }),
      )
    case 'has':
      return anyOf(
        KINDS[criterion.source].flatMap((source) =>
          (source.references?.[criterion.name] ?? [])
            .filter((target) => target.type === kind.type && target.prefix === kind.prefix)
            .map((target) => {
              const inner = allOf([conditionOf(source, criterion.inner, sql, context), target.guard])
              if (inner === FALSE) return FALSE
              // of a source row with several resources (a clinician's roles), those the criterion keeps (a role's
              // network or id): one of them must be the one that references
              const filter = source.several?.filter([criterion.inner], context) ?? null
              if (target.column !== undefined) {
                const kept = filter ? `EXISTS (SELECT FROM ${source.several!.subsSql} WHERE ${filter.sql(sql)})` : undefined
                if (sameRow(source, kind, target.column)) return allOf([inner, kept, source.restrict])
                return `t.id IN (SELECT ${target.column} FROM ${source.from}${whereOf(allOf([inner, kept]))})`
              }
              // a row referenced by some of the many rows holding it (a network: one of its clinicians), each row probed
              // apart, the row `t` given its own alias `o` (the source's condition is on a `t` of its own); the resource
              // that references it is the one at its id (a role: the network's insurer id)
              const holds = allOf([inner, target.several.holds('o.key'), filter?.sql(sql)])
              const sub = filter ? ' CROSS JOIN LATERAL (SELECT o.id AS sub) r' : ''
              return `EXISTS (SELECT FROM (SELECT t.id, ${target.several.key} AS key) o CROSS JOIN LATERAL (SELECT FROM ${source.from}${sub}${whereOf(holds)} LIMIT 1) x)`
            }),
        ),
      )
    case 'reference': {
      const targets = kind.references?.[criterion.name] ?? []
      if (targets.some((target) => target.several)) return kind.condition(criterion, sql, context)
      return anyOf(
        targets.map((target) => {
          const ids = idsOf(criterion.values, target.type, target.prefix)
          return ids.length ? allOf([idCondition(target.column!, ids, sql), target.guard]) : FALSE
        }),
      )
    }
    default:
      return kind.condition(criterion, sql, context)
  }
}
