import {
  FHIR_INCLUDES,
  FHIR_MAX_COUNT,
  FHIR_MAX_CHAIN,
  FHIR_MEDIA_TYPE,
  FHIR_RESOURCE_TYPES,
  FHIR_REVERSE_CHAINS,
  FHIR_SEARCH_PARAMS,
  FHIR_VERSION,
  PLAN_NET_CAPABILITY,
  PLAN_NET_PROFILES,
  type FhirResourceType,
} from '@citrus/contracts'

const PROFILES: Record<FhirResourceType, string[]> = {
  Practitioner: [PLAN_NET_PROFILES.Practitioner],
  PractitionerRole: [PLAN_NET_PROFILES.PractitionerRole],
  Organization: [PLAN_NET_PROFILES.Organization, PLAN_NET_PROFILES.Network],
  Location: [PLAN_NET_PROFILES.Location],
  HealthcareService: [PLAN_NET_PROFILES.HealthcareService],
  OrganizationAffiliation: [PLAN_NET_PROFILES.OrganizationAffiliation],
  InsurancePlan: [PLAN_NET_PROFILES.InsurancePlan],
}

const RESULT_PARAMS = [
  { name: '_count', type: 'number', documentation: `Page size, 1 to ${FHIR_MAX_COUNT} (default 20)` },
  { name: '_total', type: 'token', documentation: 'none (default) or accurate' },
  {
    name: '_cursor',
    type: 'string',
    documentation: 'The keyset position of a next link (opaque; taken from the link, never built by hand)',
  },
]

/**
 * The server's CapabilityStatement: it instantiates the Plan-Net server statement and lists exactly what is served
 * (read, vread of the current version and search-type of seven resource types; their parameters, chains, includes
 * and revincludes). Endpoint is not listed: the platform holds no endpoints.
 */
export function capabilityStatement(baseUrl: string, software: { name: string; version: string }, publicAccess: boolean, date: string) {
  return {
    resourceType: 'CapabilityStatement',
    id: 'citrus-provider-directory',
    url: `${baseUrl}/metadata`,
    name: 'CitrusProviderDirectory',
    title: 'Citrus provider directory (Da Vinci PDex Plan-Net)',
    status: 'active',
    date,
    publisher: 'Citrus',
    kind: 'instance',
    instantiates: [PLAN_NET_CAPABILITY],
    software,
    implementation: { description: 'Citrus provider directory', url: baseUrl },
    fhirVersion: FHIR_VERSION,
    format: [FHIR_MEDIA_TYPE, 'json'],
    rest: [
      {
        mode: 'server',
        documentation:
          'Read-only. Strict handling: an unknown or malformed parameter answers 400 with an OperationOutcome (Prefer: handling=lenient ignores unknown ones). ' +
          'Paging by keyset: follow the next link. near answers the distance of each match in entry.search (location-distance extension). ' +
          'PractitionerRole also takes location.near=lat|lon|distance|unit (an extension of this server). ' +
          `Chains (forward, and reverse with _has) follow at most ${FHIR_MAX_CHAIN} references; a chain may go on through a reference parameter its target takes chains on (location.organization.name). ` +
          'Bulk NDJSON: GET /fhir/$export. ' +
          'vread answers the current version only (meta.versionId, the data version); history is not kept, so _history without a version answers 400.',
        security: {
          cors: false,
          description: publicAccess
            ? 'Public: anonymous reads (rate limited).'
            : 'A login token or an API key as Authorization: Bearer; each answered call takes one Care Select credit (rate limited).',
        },
        resource: FHIR_RESOURCE_TYPES.map((type) => ({
          type,
          profile: PROFILES[type][0],
          supportedProfile: PROFILES[type],
          interaction: [{ code: 'read' }, { code: 'vread' }, { code: 'search-type' }],
          versioning: 'versioned',
          readHistory: false,
          updateCreate: false,
          conditionalCreate: false,
          conditionalRead: 'not-supported',
          conditionalUpdate: false,
          conditionalDelete: 'not-supported',
          searchInclude: [...FHIR_INCLUDES[type].include],
          searchRevInclude: [...FHIR_INCLUDES[type].revinclude],
          searchParam: [
            ...FHIR_SEARCH_PARAMS[type].map((param) => ({
              name: param.name,
              definition: param.definition,
              type: param.type,
              documentation: param.chains ? `${param.documentation}. Chains: ${param.chains.join(', ')}` : param.documentation,
            })),
            ...(FHIR_REVERSE_CHAINS[type].length
              ? [
                  {
                    name: '_has',
                    type: 'special',
                    documentation: `Reverse chaining, _has:{Type}:{parameter}:{a parameter of Type}, by ${FHIR_REVERSE_CHAINS[type].join(', ')}`,
                  },
                ]
              : []),
            ...RESULT_PARAMS,
          ],
        })),
        operation: [
          {
            name: 'export',
            definition: 'http://hl7.org/fhir/uv/bulkdata/OperationDefinition/export',
            documentation: 'NDJSON, one file per type, streamed',
          },
        ],
      },
    ],
  }
}
