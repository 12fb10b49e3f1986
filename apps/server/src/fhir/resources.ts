import { FHIR_EXTENSIONS, FHIR_SYSTEMS, PLAN_NET_PROFILES } from '@citrus/contracts'
import type { Row } from '../db/kysely.js'

/**
 * Rows of the platform's own tables as Plan-Net resources. Ids: a clinician is Practitioner/{id}, and one
 * PractitionerRole per network it is in, PractitionerRole/{id}-n{insurer id} (plannet-PractitionerRole allows one
 * network-reference), or PractitionerRole/{id} when it is in none (the practice, its facility, specialty); a facility
 * is Organization/fac-{id} and Location/fac-{id}; a health system Organization/hs-{id}; an insurer the payer
 * Organization/ins-{id} and its network Organization/net-{id}; a clinician's practice address Location/prov-{id}.
 */

export type Resource = { resourceType: string; id: string } & Record<string, unknown>

export interface Meta {
  versionId: string
  /** ISO instant of the data version (rows without a time of their own) */
  loadedAt: string
}

/**
 * What turning a row into a resource needs besides the row, per data version: meta, and the networks of a clinician's
 * networks JSON (its text as PostgreSQL prints it): the insurer ids of the insurers named `true` there, ascending
 * (search.ts caches them by that text: clinicians share a few thousand network sets at most).
 */
export interface Render {
  meta: Meta
  networksOf(networksJson: string): readonly number[]
}

/** A clinician's columns as the directory reads them; the verification date as text, the confidence as a number. */
export type ProviderRow = Pick<
  Row<'providers'>,
  | 'id'
  | 'npi'
  | 'first_name'
  | 'middle_name'
  | 'last_name'
  | 'full_name'
  | 'title'
  | 'provider_kind'
  | 'primary_taxonomy_code'
  | 'gender'
  | 'phone_number'
  | 'address'
  | 'city'
  | 'state'
  | 'zip_code'
  | 'latitude'
  | 'longitude'
  | 'facility_id'
  | 'accepting_new_patients'
  | 'updated_at'
> & {
  /** specialties.display_name (LEFT JOIN) */
  specialty_display: Row<'specialties'>['display_name'] | null
  /** aggregated_insurance_networks_v1 as text ({"<insurer>": true|false, ...}); PractitionerRole's rows only */
  networks?: string
  last_verified_at: string
  confidence: number
}

/** A facility's columns, with its type (hco_compile_level_1) and taxonomy code as the directory names them. */
export type FacilityRow = Pick<
  Row<'facilities'>,
  | 'id'
  | 'npi'
  | 'name'
  | 'facility_type'
  | 'taxonomy_code'
  | 'health_system_id'
  | 'address_line_1'
  | 'city'
  | 'state'
  | 'zip_code'
  | 'latitude'
  | 'longitude'
  | 'phone_number'
  | 'updated_at'
>

export type HealthSystemRow = Pick<Row<'health_systems'>, 'id' | 'name' | 'city' | 'state' | 'phone_number' | 'website_domain'>

export type InsurerRow = Pick<Row<'insurers'>, 'id' | 'name' | 'kind' | 'states'>

/** An insurer with its product type (InsuranceProductTypeCS, from its kind) and the plan designs of plan_cost_sharing. */
export interface InsurancePlanRow extends InsurerRow {
  product_type: string
  plans: { design: string; deductible: number; copay: number; coinsurance: number }[]
}

/** ProviderRoleCS codes (Plan-Net) of the clinicians' kinds; kinds without a code carry text only. */
export const ROLE_CODES: Record<string, { code: string; display: string }> = {
  physician: { code: 'ph', display: 'Physician' },
  nurse_practitioner: { code: 'apn', display: 'Advanced Practice Nursing Providers' },
  physician_assistant: { code: 'pa', display: 'Physician Assistant' },
  registered_nurse: { code: 'rn', display: 'Registered Nurse' },
  nurse_anesthetist: { code: 'apn', display: 'Advanced Practice Nursing Providers' },
  nurse_midwife: { code: 'cnw', display: 'Certified Nurse Midwife' },
  counselor: { code: 'co', display: 'Counselor' },
  dentist: { code: 'de', display: 'Dentist' },
  chiropractor: { code: 'ch', display: 'Chiropractor' },
  optometrist: { code: 'oo', display: 'Optometrist' },
  podiatrist: { code: 'po', display: 'Podiatrist' },
  psychologist: { code: 'py', display: 'Psychologist' },
  social_worker: { code: 'sw', display: 'Social Worker' },
  physical_therapist: { code: 'pt', display: 'Physical Therapist' },
  occupational_therapist: { code: 'ot', display: 'Occupational Therapist' },
  speech_language_pathologist: { code: 'sp', display: 'Speech Language Pathologist' },
  audiologist: { code: 'au', display: 'Audiologist' },
  pharmacist: { code: 'rx', display: 'Pharmacy Service Providers' },
  dietitian: { code: 'dn', display: 'Dietary and Nutritional Service Provider' },
  other: { code: 'os', display: 'Other Service Provider' },
}

/** v3 RoleCode location types of the facility types; a clinician's practice is PROFF (provider's office). */
export const LOCATION_TYPES: Record<string, { code: string; display: string }> = {
  hospital: { code: 'HOSP', display: 'Hospital' },
  critical_access: { code: 'HOSP', display: 'Hospital' },
  ambulatory_surgery: { code: 'SU', display: 'Surgery clinic' },
  imaging: { code: 'RADDX', display: 'Radiology diagnostics or therapeutics unit' },
  urgent_care: { code: 'OF', display: 'Outpatient facility' },
  clinic: { code: 'OF', display: 'Outpatient facility' },
}
export const PRACTICE_LOCATION_TYPE = { code: 'PROFF', display: "Provider's office" }

export const ORG_TYPES = {
  fac: { code: 'fac', display: 'Facility' },
  hs: { code: 'prvgrp', display: 'Provider Group' },
  ins: { code: 'payer', display: 'Payer' },
  net: { code: 'ntwk', display: 'Network' },
} as const

export const networkName = (insurerName: string) => `${insurerName} Network`

/** HealthcareServiceCategoryCS of a facility's services and OrganizationAffiliationRoleCS of the facility, by facility type. */
export const SERVICE_CATEGORIES: Record<string, { code: string; display: string }> = {
  hospital: { code: 'hosp', display: 'Hospital' },
  critical_access: { code: 'hosp', display: 'Hospital' },
  ambulatory_surgery: { code: 'outpat', display: 'Clinic or Outpatient Facility' },
  imaging: { code: 'outpat', display: 'Clinic or Outpatient Facility' },
  clinic: { code: 'outpat', display: 'Clinic or Outpatient Facility' },
  urgent_care: { code: 'urg', display: 'Urgent Care' },
}
export const AFFILIATION_ROLES: Record<string, { code: string; display: string }> = {
  hospital: { code: 'hospital', display: 'Hospital' },
  critical_access: { code: 'hospital', display: 'Hospital' },
  ambulatory_surgery: { code: 'outpatient', display: 'Clinic or Outpatient Facility' },
  imaging: { code: 'outpatient', display: 'Clinic or Outpatient Facility' },
  clinic: { code: 'outpatient', display: 'Clinic or Outpatient Facility' },
  urgent_care: { code: 'urgent', display: 'Urgent Care Center' },
}

/** InsuranceProductTypeCS displays of the product types kinds.ts derives from an insurer's kind. */
export const PRODUCT_TYPES: Record<string, string> = {
  commppo: 'Commercial PPO',
  mediadv: 'Medicare Advantage',
  mediab: 'Medicare A/B',
  medi: 'Medicaid',
  tri: 'TRICARE',
}
/** A plan design is high-deductible from the IRS HDHP minimum deductible (2025, self-only coverage). */
export const HIGH_DEDUCTIBLE_FROM = 1650
export const planType = (deductible: number) =>
  deductible >= HIGH_DEDUCTIBLE_FROM
    ? { code: 'highdeductible', display: 'High Deductible' }
    : { code: 'lowdeductible', display: 'Low Deductible' }

const iso = (date: Date) => date.toISOString()
const coding = (system: string, code: string, display?: string) => ({ coding: [{ system, code, ...(display ? { display } : {}) }] })
const phone = (value: string | null) => (value ? [{ system: 'phone', value, use: 'work' }] : undefined)
const usAddress = (line: string | null, city: string | null, state: string | null, postalCode: string | null) => ({
  use: 'work',
  type: 'physical',
  ...(line ? { line: [line] } : {}),
  ...(city ? { city } : {}),
  ...(state ? { state } : {}),
  ...(postalCode ? { postalCode } : {}),
  country: 'US',
})
const meta = (m: Meta, profile: string, updated?: Date) => ({
  versionId: m.versionId,
  lastUpdated: updated ? iso(updated) : m.loadedAt,
  profile: [profile],
})
const npiIdentifier = (npi: string) => ({
  use: 'official',
  type: coding(FHIR_SYSTEMS.identifierType, 'NPI', 'National provider identifier'),
  system: FHIR_SYSTEMS.npi,
  value: npi,
})
const GENDERS: Record<string, string> = { M: 'male', F: 'female' }

// The resources served by the page (clinicians and locations: millions of rows) are written as JSON text straight
// from the row, without intermediate objects; the others are objects turned into text once (kinds.ts).
const q = JSON.stringify
const Q = {
  npiSystem: q(FHIR_SYSTEMS.npi),
  nucc: q(FHIR_SYSTEMS.nucc),
  providerRole: q(FHIR_SYSTEMS.providerRole),
  locationRole: q(FHIR_SYSTEMS.locationRole),
  acceptingPatients: q(FHIR_SYSTEMS.acceptingPatients),
  newPatients: q(FHIR_EXTENSIONS.newPatients),
  networkReference: q(FHIR_EXTENSIONS.networkReference),
  confidence: q(FHIR_EXTENSIONS.confidence),
  lastVerified: q(FHIR_EXTENSIONS.lastVerified),
  practitioner: q(PLAN_NET_PROFILES.Practitioner),
  role: q(PLAN_NET_PROFILES.PractitionerRole),
  location: q(PLAN_NET_PROFILES.Location),
}
const NPI_TYPE = q(coding(FHIR_SYSTEMS.identifierType, 'NPI', 'National provider identifier'))
const PRACTICE_TYPE = q([coding(FHIR_SYSTEMS.locationRole, PRACTICE_LOCATION_TYPE.code, PRACTICE_LOCATION_TYPE.display)])
const LOCATION_TYPE_TEXT: Record<string, string> = Object.fromEntries(
  Object.entries(LOCATION_TYPES).map(([kind, type]) => [kind, q([coding(FHIR_SYSTEMS.locationRole, type.code, type.display)])]),
)
const ACCEPTING = (accepting: boolean) =>
  `{"url":${Q.newPatients},"extension":[{"url":"acceptingPatients","valueCodeableConcept":${q(
    coding(FHIR_SYSTEMS.acceptingPatients, accepting ? 'newpt' : 'nopt', accepting ? 'Accepting' : 'Not Accepting'),
  )}}]}`
const ACCEPTING_TEXT = { true: ACCEPTING(true), false: ACCEPTING(false) }
/** `"code"` of each clinician kind (ProviderRoleCS), without its text */
const ROLE_CODING: Record<string, string> = Object.fromEntries(
  Object.entries(ROLE_CODES).map(([kind, role]) => [kind, q(coding(FHIR_SYSTEMS.providerRole, role.code, role.display).coding)]),
)

const metaText = (m: Meta, profile: string, updated: Date) =>
  `{"versionId":${q(m.versionId)},"lastUpdated":"${updated.toISOString()}","profile":[${profile}]}`
const phoneText = (value: string | null) => (value ? `,"telecom":[{"system":"phone","value":${q(value)},"use":"work"}]` : '')
const addressText = (line: string, city: string, state: string, postalCode: string) =>
  `{"use":"work","type":"physical"${line ? `,"line":[${q(line)}]` : ''}${city ? `,"city":${q(city)}` : ''}${state ? `,"state":${q(state)}` : ''}${postalCode ? `,"postalCode":${q(postalCode)}` : ''},"country":"US"}`
const npiText = (npi: string) => `{"use":"official","type":${NPI_TYPE},"system":${Q.npiSystem},"value":${q(npi)}}`

/** Directory quality figures, beyond Plan-Net: confidence and the day of the last verification. */
const qualityText = (row: ProviderRow) =>
  `{"url":${Q.confidence},"valueDecimal":${Number(row.confidence)}},{"url":${Q.lastVerified},"valueDate":${q(row.last_verified_at)}}`

export function practitionerJson(row: ProviderRow, r: Render): string {
  const gender = row.gender ? GENDERS[row.gender] : undefined
  return `{"resourceType":"Practitioner","id":"${row.id}","meta":${metaText(r.meta, Q.practitioner, row.updated_at)},"identifier":[${npiText(
    row.npi,
  )}],"active":true,"name":[{"use":"official","text":${q(row.full_name)},"family":${q(row.last_name)},"given":[${q(row.first_name)}${
    row.middle_name ? `,${q(row.middle_name)}` : ''
  }]${row.title ? `,"suffix":[${q(row.title)}]` : ''}}]${phoneText(row.phone_number)}${gender ? `,"gender":"${gender}"` : ''}${
    row.title ? `,"qualification":[{"code":{"text":${q(row.title)}}}]` : ''
  }}`
}

/** The id of a clinician's role in a network (an insurer id), or of its one role when it is in none (null). */
export const practitionerRoleId = (providerId: number, network: number | null) =>
  network === null ? `${providerId}` : `${providerId}-n${network}`

/** The clinician and network a PractitionerRole id names (practitionerRoleId), null when it is not of that form. */
export function parsePractitionerRoleId(id: string): { providerId: number; network: number | null } | null {
  const match = /^([1-9]\d{0,9})(?:-n([1-9]\d{0,9}))?$/.exec(id)
  if (!match) return null
  const providerId = Number(match[1])
  const network = match[2] === undefined ? null : Number(match[2])
  if (providerId > MAX_INT || (network !== null && network > MAX_INT)) return null
  return { providerId, network }
}
const MAX_INT = 2_147_483_647

/**
 * The newpatients extension of a role (acceptingPatients, and fromNetwork: the role's network) and its
 * network-reference, as text, by network and flag: the networks are a few dozen insurers.
 */
const networkTexts = new Map<number, { true: string; false: string }>()
function networkText(accepting: boolean, network: number | null): string {
  const flag = accepting ? 'true' : 'false'
  if (network === null) return ACCEPTING_TEXT[flag]
  let texts = networkTexts.get(network)
  if (!texts) {
    const reference = `{"reference":"Organization/net-${network}"}`
    const of = (yes: boolean) =>
      `${ACCEPTING(yes).slice(0, -2)},{"url":"fromNetwork","valueReference":${reference}}]},{"url":${Q.networkReference},"valueReference":${reference}}`
    texts = { true: of(true), false: of(false) }
    networkTexts.set(network, texts)
  }
  return texts[flag]
}

/**
 * A clinician's PractitionerRoles in `networks` (insurer ids; null: the one role of a clinician in no network), as
 * JSON text, in that order. Each role carries at most one network-reference (plannet-PractitionerRole 0..1), the
 * same network as its newpatients fromNetwork; the rest of the text is written once per clinician.
 */
export function practitionerRolesJson(row: ProviderRow, r: Render, networks: readonly (number | null)[]): string[] {
  const role = ROLE_CODES[row.provider_kind]
  const code = role
    ? `{"coding":${ROLE_CODING[row.provider_kind]!},"text":${q(row.title ?? role.display)}}`
    : `{"text":${q(row.provider_kind)}}`
  const display = row.specialty_display
  const head = `{"resourceType":"PractitionerRole","id":"${row.id}`
  const middle = `","meta":${metaText(r.meta, Q.role, row.updated_at)},"extension":[`
  const tail = `,${qualityText(row)}],"active":true,"practitioner":{"reference":"Practitioner/${row.id}","display":${q(row.full_name)}}${
    row.facility_id !== null ? `,"organization":{"reference":"Organization/fac-${row.facility_id}"}` : ''
  },"code":[${code}],"specialty":[{"coding":[{"system":${Q.nucc},"code":${q(row.primary_taxonomy_code)}${
    display ? `,"display":${q(display)}` : ''
  }}]${display ? `,"text":${q(display)}` : ''}}],"location":[{"reference":"Location/prov-${row.id}"}]${phoneText(row.phone_number)}}`
  return networks.map(
    (network) => `${head}${network === null ? '' : `-n${network}`}${middle}${networkText(row.accepting_new_patients, network)}${tail}`,
  )
}

/**
 * A clinician's practice with the facility whose location it is part of: the clinician's facility when both are at
 * the same address (line, city, state and ZIP alike); null otherwise (a practice elsewhere, or no facility).
 */
export type PracticeRow = ProviderRow & { part_of: number | null }

export function practiceLocationJson(row: PracticeRow, r: Render): string {
  return `{"resourceType":"Location","id":"prov-${row.id}","meta":${metaText(r.meta, Q.location, row.updated_at)},"status":"active","name":${q(
    `Practice of ${row.full_name}`,
  )},"type":${PRACTICE_TYPE}${phoneText(row.phone_number)},"address":${addressText(
    row.address,
    row.city,
    row.state,
    row.zip_code,
  )},"position":{"longitude":${row.longitude},"latitude":${row.latitude}}${
    row.facility_id !== null ? `,"managingOrganization":{"reference":"Organization/fac-${row.facility_id}"}` : ''
  }${row.part_of !== null ? `,"partOf":{"reference":"Location/fac-${row.part_of}"}` : ''}}`
}

export function facilityLocationJson(row: FacilityRow, r: Render): string {
  const type = LOCATION_TYPE_TEXT[row.facility_type]
  return `{"resourceType":"Location","id":"fac-${row.id}","meta":${metaText(r.meta, Q.location, row.updated_at)},"status":"active","name":${q(
    row.name,
  )}${type ? `,"type":${type}` : ''}${phoneText(row.phone_number)},"address":${addressText(
    row.address_line_1,
    row.city,
    row.state,
    row.zip_code,
  )},"position":{"longitude":${row.longitude},"latitude":${row.latitude}},"managingOrganization":{"reference":"Organization/fac-${
    row.id
  }","display":${q(row.name)}}}`
}

export function facilityOrganization(row: FacilityRow, m: Meta): Resource {
  return {
    resourceType: 'Organization',
    id: `fac-${row.id}`,
    meta: meta(m, PLAN_NET_PROFILES.Organization, row.updated_at),
    ...(row.npi ? { identifier: [npiIdentifier(row.npi)] } : {}),
    active: true,
    type: [coding(FHIR_SYSTEMS.orgType, ORG_TYPES.fac.code, ORG_TYPES.fac.display)],
    name: row.name,
    ...(row.phone_number ? { telecom: phone(row.phone_number) } : {}),
    address: [usAddress(row.address_line_1, row.city, row.state, row.zip_code)],
    ...(row.health_system_id !== null ? { partOf: { reference: `Organization/hs-${row.health_system_id}` } } : {}),
  }
}

export function healthSystemOrganization(row: HealthSystemRow, m: Meta): Resource {
  const telecom = [
    ...(phone(row.phone_number) ?? []),
    ...(row.website_domain ? [{ system: 'url', value: `https://${row.website_domain}` }] : []),
  ]
  return {
    resourceType: 'Organization',
    id: `hs-${row.id}`,
    meta: meta(m, PLAN_NET_PROFILES.Organization),
    active: true,
    type: [coding(FHIR_SYSTEMS.orgType, ORG_TYPES.hs.code, ORG_TYPES.hs.display)],
    name: row.name,
    ...(telecom.length ? { telecom } : {}),
    // plannet-Organization requires an address: the city and state held, else the country alone
    address: [usAddress(null, row.city, row.state, null)],
  }
}

/**
 * An insurer's address (plannet-Organization requires one): the insurers table holds no office address, and the states
 * of a regional plan's footprint are where it sells, not where it is, so the country alone.
 */
const INSURER_ADDRESS = { use: 'work', country: 'US' } as const

export function payerOrganization(row: InsurerRow, m: Meta): Resource {
  return {
    resourceType: 'Organization',
    id: `ins-${row.id}`,
    meta: meta(m, PLAN_NET_PROFILES.Organization),
    active: true,
    type: [coding(FHIR_SYSTEMS.orgType, ORG_TYPES.ins.code, ORG_TYPES.ins.display)],
    name: row.name,
    address: [INSURER_ADDRESS],
  }
}

export function networkOrganization(row: InsurerRow, m: Meta): Resource {
  return {
    resourceType: 'Organization',
    id: `net-${row.id}`,
    meta: meta(m, PLAN_NET_PROFILES.Network),
    active: true,
    type: [coding(FHIR_SYSTEMS.orgType, ORG_TYPES.net.code, ORG_TYPES.net.display)],
    name: networkName(row.name),
    address: [INSURER_ADDRESS],
    partOf: { reference: `Organization/ins-${row.id}`, display: row.name },
  }
}

const nucc = (code: string | null) => (code ? { specialty: [coding(FHIR_SYSTEMS.nucc, code)] } : {})

export function healthcareService(row: FacilityRow, m: Meta): Resource {
  const category = SERVICE_CATEGORIES[row.facility_type]
  return {
    resourceType: 'HealthcareService',
    id: `fac-${row.id}`,
    meta: meta(m, PLAN_NET_PROFILES.HealthcareService, row.updated_at),
    active: true,
    providedBy: { reference: `Organization/fac-${row.id}`, display: row.name },
    category: [category ? coding(FHIR_SYSTEMS.serviceCategory, category.code, category.display) : { text: row.facility_type }],
    ...nucc(row.taxonomy_code),
    location: [{ reference: `Location/fac-${row.id}` }],
    name: row.name,
    ...(row.phone_number ? { telecom: phone(row.phone_number) } : {}),
  }
}

export function organizationAffiliation(row: FacilityRow, m: Meta): Resource {
  const role = AFFILIATION_ROLES[row.facility_type]
  return {
    resourceType: 'OrganizationAffiliation',
    id: `fac-${row.id}`,
    meta: meta(m, PLAN_NET_PROFILES.OrganizationAffiliation, row.updated_at),
    active: true,
    organization: { reference: `Organization/hs-${row.health_system_id}` },
    participatingOrganization: { reference: `Organization/fac-${row.id}`, display: row.name },
    code: [role ? coding(FHIR_SYSTEMS.affiliationRole, role.code, role.display) : { text: row.facility_type }],
    ...nucc(row.taxonomy_code),
    location: [{ reference: `Location/fac-${row.id}` }],
    healthcareService: [{ reference: `HealthcareService/fac-${row.id}` }],
    ...(row.phone_number ? { telecom: phone(row.phone_number) } : {}),
  }
}

const usd = (value: number) => ({ value, currency: 'USD' })

export function insurancePlan(row: InsurancePlanRow, m: Meta): Resource {
  const payer = { reference: `Organization/ins-${row.id}`, display: row.name }
  const network = [{ reference: `Organization/net-${row.id}`, display: networkName(row.name) }]
  return {
    resourceType: 'InsurancePlan',
    id: `ins-${row.id}`,
    meta: meta(m, PLAN_NET_PROFILES.InsurancePlan),
    status: 'active',
    type: [coding(FHIR_SYSTEMS.productType, row.product_type, PRODUCT_TYPES[row.product_type])],
    name: row.name,
    ownedBy: payer,
    administeredBy: payer,
    network,
    ...(row.plans.length ? { plan: plansByType(row.plans, network) } : {}),
  }
}

/**
 * InsurancePlan.plan, one per plan type (Plan-Net's invariant plan-type-is-distinct): the designs of a type, in
 * deductible order, are its general costs, each the design's yearly deductible.
 */
function plansByType(designs: InsurancePlanRow['plans'], network: { reference: string; display: string }[]) {
  const byType = new Map<string, { type: ReturnType<typeof planType>; designs: InsurancePlanRow['plans'] }>()
  for (const design of designs) {
    const type = planType(design.deductible)
    const group = byType.get(type.code) ?? { type, designs: [] }
    group.designs.push(design)
    byType.set(type.code, group)
  }
  return [...byType.values()].map(({ type, designs: ofType }) => ({
    type: { ...coding(FHIR_SYSTEMS.planType, type.code, type.display), text: type.display },
    network,
    generalCost: ofType.map((design) => ({
      type: { text: design.design },
      cost: usd(design.deductible),
      comment: `Yearly deductible; copay $${design.copay}, then ${Math.round(design.coinsurance * 10000) / 100}% coinsurance`,
    })),
  }))
}
