import { z } from 'zod'

/**
 * The FHIR provider directory (/fhir, docs/fhir.md): Da Vinci PDex Plan-Net 1.x over FHIR R4 (4.0.1). What the
 * server and its clients share: the media type, the code systems and profiles, the resource types and search
 * parameters it implements, and the shapes of the OperationOutcome and Bundle it answers.
 */

export const FHIR_PREFIX = '/fhir'
export const FHIR_MEDIA_TYPE = 'application/fhir+json'
export const FHIR_VERSION = '4.0.1'

const PLAN_NET = 'http://hl7.org/fhir/us/davinci-pdex-plan-net'

export const FHIR_SYSTEMS = {
  npi: 'http://hl7.org/fhir/sid/us-npi',
  nucc: 'http://nucc.org/provider-taxonomy',
  orgType: `${PLAN_NET}/CodeSystem/OrgTypeCS`,
  providerRole: `${PLAN_NET}/CodeSystem/ProviderRoleCS`,
  acceptingPatients: `${PLAN_NET}/CodeSystem/AcceptingPatientsCS`,
  locationRole: 'http://terminology.hl7.org/CodeSystem/v3-RoleCode',
  identifierType: 'http://terminology.hl7.org/CodeSystem/v2-0203',
  serviceCategory: `${PLAN_NET}/CodeSystem/HealthcareServiceCategoryCS`,
  affiliationRole: `${PLAN_NET}/CodeSystem/OrganizationAffiliationRoleCS`,
  productType: `${PLAN_NET}/CodeSystem/InsuranceProductTypeCS`,
  planType: `${PLAN_NET}/CodeSystem/InsurancePlanTypeCS`,
} as const

export const PLAN_NET_CAPABILITY = `${PLAN_NET}/CapabilityStatement/plan-net`

export const PLAN_NET_PROFILES = {
  Practitioner: `${PLAN_NET}/StructureDefinition/plannet-Practitioner`,
  PractitionerRole: `${PLAN_NET}/StructureDefinition/plannet-PractitionerRole`,
  Organization: `${PLAN_NET}/StructureDefinition/plannet-Organization`,
  Network: `${PLAN_NET}/StructureDefinition/plannet-Network`,
  Location: `${PLAN_NET}/StructureDefinition/plannet-Location`,
  HealthcareService: `${PLAN_NET}/StructureDefinition/plannet-HealthcareService`,
  OrganizationAffiliation: `${PLAN_NET}/StructureDefinition/plannet-OrganizationAffiliation`,
  InsurancePlan: `${PLAN_NET}/StructureDefinition/plannet-InsurancePlan`,
} as const

export const FHIR_EXTENSIONS = {
  newPatients: `${PLAN_NET}/StructureDefinition/newpatients`,
  networkReference: `${PLAN_NET}/StructureDefinition/network-reference`,
  /** base FHIR: the distance of a `near` match, under Bundle.entry.search */
  locationDistance: 'http://hl7.org/fhir/StructureDefinition/location-distance',
  /** beyond Plan-Net: the directory's confidence in a listing (0..1) and the day it was last verified */
  confidence: 'https://citrus.health/fhir/StructureDefinition/directory-confidence',
  lastVerified: 'https://citrus.health/fhir/StructureDefinition/last-verified',
} as const

/**
 * The resource types /fhir serves. HealthcareService (a facility's services), OrganizationAffiliation (a facility in
 * its health system) and InsurancePlan (an insurer's product, its plan designs and network) come from the same
 * tables; Endpoint is not offered: the platform holds no electronic endpoints.
 */
export const FHIR_RESOURCE_TYPES = [
  'Practitioner',
  'PractitionerRole',
  'Organization',
  'Location',
  'HealthcareService',
  'OrganizationAffiliation',
  'InsurancePlan',
] as const
export type FhirResourceType = (typeof FHIR_RESOURCE_TYPES)[number]

export type FhirSearchParamType = 'token' | 'string' | 'reference' | 'date' | 'special'

export interface FhirSearchParamDefinition {
  name: string
  type: FhirSearchParamType
  /** the Plan-Net (or base R4) definition's canonical URL */
  definition: string
  documentation: string
  /** for reference parameters: the resource type referenced (chains are its parameters) */
  target?: FhirResourceType
  /**
   * for reference parameters: the target's parameters accepted after `name.` (Plan-Net's `chain` list, and a few more);
   * a chain may go on through a chained reference parameter of the target (`location.organization.name`). The
   * parameters with chains are also the ones reverse chaining (`_has`) takes.
   */
  chains?: readonly string[]
}

/** Plan-Net's chains of an Organization reference (an Organization's `partof` itself: name, address, type). */
const ORGANIZATION_CHAINS = ['name', 'address', 'partof', 'type'] as const
/** Plan-Net's chains of a Location reference */
const LOCATION_CHAINS = ['address', 'address-postalcode', 'address-city', 'address-state', 'organization', 'type'] as const
/** Plan-Net's chains of an InsurancePlan's payer */
const PAYER_CHAINS = ['name', 'partof'] as const

const planNetParam = (resource: string, name: string) => `${PLAN_NET}/SearchParameter/${resource.toLowerCase()}-${name}`
const baseParam = (resource: string, name: string) => `http://hl7.org/fhir/SearchParameter/${resource}-${name}`
const common = (resource: string): FhirSearchParamDefinition[] => [
  {
    name: '_id',
    type: 'token',
    definition: 'http://hl7.org/fhir/SearchParameter/Resource-id',
    documentation: 'Logical id, comma-separated for any of several',
  },
  {
    name: '_lastUpdated',
    type: 'date',
    definition: 'http://hl7.org/fhir/SearchParameter/Resource-lastUpdated',
    documentation: `When the ${resource} last changed (prefixes eq, ne, gt, lt, ge, le, sa, eb)`,
  },
]

/** Search parameters per resource type: exactly what the server implements (the CapabilityStatement lists these). */
export const FHIR_SEARCH_PARAMS: Record<FhirResourceType, readonly FhirSearchParamDefinition[]> = {
  Practitioner: [
    ...common('Practitioner'),
    {
      name: 'name',
      type: 'string',
      definition: planNetParam('Practitioner', 'name'),
      documentation: 'Given or family name (starts with, case-insensitive)',
    },
    { name: 'family', type: 'string', definition: planNetParam('Practitioner', 'family-name'), documentation: 'Family name' },
    { name: 'given', type: 'string', definition: planNetParam('Practitioner', 'given-name'), documentation: 'Given or middle name' },
    {
      name: 'identifier',
      type: 'token',
      definition: baseParam('Practitioner', 'identifier'),
      documentation: 'NPI (http://hl7.org/fhir/sid/us-npi|1234567893)',
    },
  ],
  PractitionerRole: [
    ...common('PractitionerRole'),
    {
      name: 'practitioner',
      type: 'reference',
      definition: planNetParam('PractitionerRole', 'practitioner'),
      documentation: 'Practitioner/{id}',
      target: 'Practitioner',
      chains: ['name', 'family', 'given', 'identifier'],
    },
    {
      name: 'organization',
      type: 'reference',
      definition: planNetParam('PractitionerRole', 'organization'),
      documentation: 'The facility the role is affiliated with (Organization/fac-{id})',
      target: 'Organization',
      chains: ORGANIZATION_CHAINS,
    },
    {
      name: 'location',
      type: 'reference',
      definition: planNetParam('PractitionerRole', 'location'),
      documentation: 'Location/prov-{id}; location.near=lat|lon|distance|unit is an extension of this server',
      target: 'Location',
      chains: [...LOCATION_CHAINS, 'near'],
    },
    {
      name: 'network',
      type: 'reference',
      definition: planNetParam('PractitionerRole', 'network'),
      documentation: 'Organization/net-{id}',
      target: 'Organization',
      chains: ORGANIZATION_CHAINS,
    },
    {
      name: 'role',
      type: 'token',
      definition: planNetParam('PractitionerRole', 'role'),
      documentation: 'ProviderRoleCS code (ph, apn, pa, rn, ...)',
    },
    {
      name: 'specialty',
      type: 'token',
      definition: planNetParam('PractitionerRole', 'specialty'),
      documentation: 'NUCC taxonomy code (http://nucc.org/provider-taxonomy|207R00000X)',
    },
    {
      name: 'new-patients',
      type: 'token',
      definition: 'https://citrus.health/fhir/SearchParameter/practitionerrole-new-patients',
      documentation: 'Beyond Plan-Net: newpt (accepting) or nopt (not accepting)',
    },
  ],
  Organization: [
    ...common('Organization'),
    {
      name: 'name',
      type: 'string',
      definition: planNetParam('Organization', 'name'),
      documentation: 'Name (starts with, case-insensitive)',
    },
    {
      name: 'address',
      type: 'string',
      definition: planNetParam('Organization', 'address'),
      documentation: 'Any address part: line, city, state, postal code',
    },
    { name: 'type', type: 'token', definition: planNetParam('Organization', 'type'), documentation: 'OrgTypeCS: fac, prvgrp, payer, ntwk' },
    {
      name: 'partof',
      type: 'reference',
      definition: planNetParam('Organization', 'partof'),
      documentation: 'A facility is part of its health system; a network of its payer',
      target: 'Organization',
      chains: ['name', 'address', 'type'],
    },
    { name: 'identifier', type: 'token', definition: baseParam('Organization', 'identifier'), documentation: 'NPI of a facility' },
  ],
  Location: [
    ...common('Location'),
    {
      name: 'address',
      type: 'string',
      definition: planNetParam('Location', 'address'),
      documentation: 'Any address part: line, city, state, postal code',
    },
    { name: 'address-city', type: 'string', definition: planNetParam('Location', 'address-city'), documentation: 'City' },
    { name: 'address-state', type: 'string', definition: planNetParam('Location', 'address-state'), documentation: 'State (USPS code)' },
    {
      name: 'address-postalcode',
      type: 'string',
      definition: planNetParam('Location', 'address-postalcode'),
      documentation: 'ZIP code (starts with)',
    },
    {
      name: 'organization',
      type: 'reference',
      definition: planNetParam('Location', 'organization'),
      documentation: 'The managing facility (Organization/fac-{id})',
      target: 'Organization',
      chains: ORGANIZATION_CHAINS,
    },
    { name: 'type', type: 'token', definition: planNetParam('Location', 'type'), documentation: 'v3 RoleCode: HOSP, SU, OF, RADDX, PROFF' },
    {
      name: 'near',
      type: 'special',
      definition: baseParam('Location', 'near'),
      documentation: 'latitude|longitude|distance|unit (km, m, mi, [mi_i], [mi_us]); sorted by distance',
    },
    {
      name: 'partof',
      type: 'reference',
      definition: planNetParam('Location', 'partof'),
      documentation:
        "A clinician's practice (Location/prov-{id}) is part of its facility's location (Location/fac-{id}) when both are at the same address",
      target: 'Location',
      chains: ['type', 'address', 'organization'],
    },
  ],
  HealthcareService: [
    ...common('HealthcareService'),
    { name: 'name', type: 'string', definition: planNetParam('HealthcareService', 'name'), documentation: 'The facility name' },
    {
      name: 'organization',
      type: 'reference',
      definition: planNetParam('HealthcareService', 'organization'),
      documentation: 'The providing facility (Organization/fac-{id})',
      target: 'Organization',
      chains: ORGANIZATION_CHAINS,
    },
    {
      name: 'location',
      type: 'reference',
      definition: planNetParam('HealthcareService', 'location'),
      documentation: 'The facility location (Location/fac-{id})',
      target: 'Location',
      chains: LOCATION_CHAINS,
    },
    {
      name: 'service-category',
      type: 'token',
      definition: planNetParam('HealthcareService', 'service-category'),
      documentation: 'HealthcareServiceCategoryCS: hosp, outpat, urg',
    },
    {
      name: 'specialty',
      type: 'token',
      definition: planNetParam('HealthcareService', 'specialty'),
      documentation: 'NUCC taxonomy code of the facility',
    },
  ],
  OrganizationAffiliation: [
    ...common('OrganizationAffiliation'),
    {
      name: 'primary-organization',
      type: 'reference',
      definition: planNetParam('OrganizationAffiliation', 'primary-organization'),
      documentation: 'The health system (Organization/hs-{id})',
      target: 'Organization',
      chains: ['type', 'address', 'name', 'partof'],
    },
    {
      name: 'participating-organization',
      type: 'reference',
      definition: planNetParam('OrganizationAffiliation', 'participating-organization'),
      documentation: 'The facility (Organization/fac-{id})',
      target: 'Organization',
      chains: ['type', 'address', 'name', 'partof'],
    },
    {
      name: 'location',
      type: 'reference',
      definition: planNetParam('OrganizationAffiliation', 'location'),
      documentation: 'The facility location (Location/fac-{id})',
      target: 'Location',
      chains: LOCATION_CHAINS,
    },
    {
      name: 'service',
      type: 'reference',
      definition: planNetParam('OrganizationAffiliation', 'service'),
      documentation: 'The facility services (HealthcareService/fac-{id})',
      target: 'HealthcareService',
      chains: ['service-category', 'organization', 'location'],
    },
    {
      name: 'role',
      type: 'token',
      definition: planNetParam('OrganizationAffiliation', 'role'),
      documentation: 'OrganizationAffiliationRoleCS: hospital, outpatient, urgent',
    },
    {
      name: 'specialty',
      type: 'token',
      definition: planNetParam('OrganizationAffiliation', 'specialty'),
      documentation: 'NUCC taxonomy code of the facility',
    },
  ],
  InsurancePlan: [
    ...common('InsurancePlan'),
    {
      name: 'administered-by',
      type: 'reference',
      definition: planNetParam('InsurancePlan', 'administered-by'),
      documentation: 'The payer (Organization/ins-{id})',
      target: 'Organization',
      chains: PAYER_CHAINS,
    },
    {
      name: 'owned-by',
      type: 'reference',
      definition: planNetParam('InsurancePlan', 'owned-by'),
      documentation: 'The payer (Organization/ins-{id})',
      target: 'Organization',
      chains: PAYER_CHAINS,
    },
    { name: 'name', type: 'string', definition: planNetParam('InsurancePlan', 'name'), documentation: 'The payer name' },
    {
      name: 'type',
      type: 'token',
      definition: planNetParam('InsurancePlan', 'type'),
      documentation: 'InsuranceProductTypeCS: commppo, mediadv, mediab, medi, tri',
    },
    {
      name: 'plan-type',
      type: 'token',
      definition: planNetParam('InsurancePlan', 'plan-type'),
      documentation: 'InsurancePlanTypeCS of a plan (one per type: lowdeductible, highdeductible)',
    },
  ],
}

/**
 * Reverse chaining (`_has:{Type}:{parameter}:{its parameter}=…`) per resource type: the reference parameters of other
 * types (and its own) that point at it and take chains, as `Type:parameter` (Plan-Net: "forward and reverse chaining
 * on all search parameters that specify the 'chain' property").
 */
const reverseChains = (type: FhirResourceType) =>
  FHIR_RESOURCE_TYPES.flatMap((source) =>
    FHIR_SEARCH_PARAMS[source].filter((param) => param.target === type && param.chains).map((param) => `${source}:${param.name}`),
  )
export const FHIR_REVERSE_CHAINS: Record<FhirResourceType, readonly string[]> = {
  Practitioner: reverseChains('Practitioner'),
  PractitionerRole: reverseChains('PractitionerRole'),
  Organization: reverseChains('Organization'),
  Location: reverseChains('Location'),
  HealthcareService: reverseChains('HealthcareService'),
  OrganizationAffiliation: reverseChains('OrganizationAffiliation'),
  InsurancePlan: reverseChains('InsurancePlan'),
}

/** how many references a chain (or `_has`) may follow: `location.organization.partof.name` is three */
export const FHIR_MAX_CHAIN = 3

/** `_include` and `_revinclude` values per resource type (the Plan-Net ones whose targets exist here). */
export const FHIR_INCLUDES: Record<FhirResourceType, { include: readonly string[]; revinclude: readonly string[] }> = {
  Practitioner: { include: [], revinclude: ['PractitionerRole:practitioner'] },
  PractitionerRole: {
    include: ['PractitionerRole:practitioner', 'PractitionerRole:organization', 'PractitionerRole:location', 'PractitionerRole:network'],
    revinclude: [],
  },
  Organization: {
    include: ['Organization:partof'],
    revinclude: [
      'PractitionerRole:organization',
      'PractitionerRole:network',
      'HealthcareService:organization',
      'InsurancePlan:administered-by',
      'InsurancePlan:owned-by',
      'OrganizationAffiliation:primary-organization',
      'OrganizationAffiliation:participating-organization',
    ],
  },
  Location: {
    include: ['Location:organization', 'Location:partof'],
    revinclude: ['PractitionerRole:location', 'HealthcareService:location', 'OrganizationAffiliation:location'],
  },
  HealthcareService: {
    include: ['HealthcareService:location', 'HealthcareService:organization'],
    revinclude: ['OrganizationAffiliation:service'],
  },
  OrganizationAffiliation: {
    include: [
      'OrganizationAffiliation:primary-organization',
      'OrganizationAffiliation:participating-organization',
      'OrganizationAffiliation:location',
      'OrganizationAffiliation:service',
    ],
    revinclude: [],
  },
  InsurancePlan: { include: ['InsurancePlan:administered-by', 'InsurancePlan:owned-by'], revinclude: [] },
}

/** Result parameters accepted on every search. `_cursor` carries the keyset position of a `next` link. */
export const FHIR_RESULT_PARAMS = ['_count', '_total', '_include', '_revinclude', '_cursor', '_format'] as const
export const FHIR_MAX_COUNT = 1000
export const FHIR_DEFAULT_COUNT = 20
/** at most this many resources are added to one page by `_revinclude` */
export const FHIR_MAX_REVINCLUDE = 1000

export const operationOutcomeSchema = z.object({
  resourceType: z.literal('OperationOutcome'),
  issue: z
    .array(
      z.object({
        severity: z.enum(['fatal', 'error', 'warning', 'information']),
        code: z.string(),
        diagnostics: z.string().optional(),
        expression: z.array(z.string()).optional(),
      }),
    )
    .min(1),
})
export type OperationOutcome = z.infer<typeof operationOutcomeSchema>

const resourceSchema = z.looseObject({ resourceType: z.string(), id: z.string().optional() })

export const bundleSchema = z.object({
  resourceType: z.literal('Bundle'),
  id: z.string().optional(),
  meta: z.object({ lastUpdated: z.string() }).optional(),
  type: z.literal('searchset'),
  total: z.number().int().nonnegative().optional(),
  link: z.array(z.object({ relation: z.string(), url: z.string() })),
  entry: z
    .array(
      z.object({
        fullUrl: z.string(),
        resource: resourceSchema,
        search: z.looseObject({ mode: z.enum(['match', 'include', 'outcome']) }),
      }),
    )
    .optional(),
})
export type FhirBundle = z.infer<typeof bundleSchema>

export const FHIR_MESSAGES = {
  unknownType: (type: string) => `Resource type ${type} is not served here; see /fhir/metadata`,
  unknownResource: (type: string, id: string) => `${type}/${id} does not exist`,
  unknownParam: (type: string, name: string) => `Unknown search parameter "${name}" for ${type}; see /fhir/metadata`,
  badValue: (name: string, reason: string) => `Invalid value of ${name}: ${reason}`,
  unsupportedModifier: (name: string, modifier: string) => `Modifier :${modifier} is not supported on ${name}`,
  unsupportedChain: (name: string, chain: string) => `Chained parameter ${name}.${chain} is not supported`,
  unsupportedReverseChain: (key: string) =>
    `Reverse chain ${key} is not supported: _has:{Type}:{reference parameter}:{its parameter}, where the reference parameter points here and takes chains; see /fhir/metadata`,
  chainTooLong: (key: string) => `${key} follows more than ${FHIR_MAX_CHAIN} references`,
  unsupportedInclude: (param: string, value: string) => `${param}=${value} is not supported; see /fhir/metadata`,
  badCursor: 'The paging cursor is not valid for this search; start again from the first page',
  badFormat: 'Only JSON is served (_format=json or application/fhir+json)',
  nearOnce: 'near may be given only once',
  unsupportedMethod: 'Only read and search are supported: the directory is read-only',
  unknownVersion: (type: string, id: string, current: string) =>
    `${type}/${id} has no version kept but the current one (${current}): earlier versions are not kept`,
  noHistory: 'History is not kept: only the current version of a resource is served (vread of meta.versionId)',
  searchTooCostly: (ms: number) =>
    `This search takes longer than ${ms} ms to answer and was stopped; narrow it (a specialty, a place, an exact name rather than :contains), or download the directory with $export`,
  totalTooCostly: (ms: number) =>
    `_total=accurate was not counted: counting this search takes longer than ${ms} ms, so the Bundle has no total; narrow the search, page by its next links, or download the directory with $export`,
} as const
