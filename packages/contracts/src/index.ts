import type { EndpointDefinition } from './endpoint.js'
import { adminEndpoints } from './admin.js'
import { aiHubEndpoints } from './ai-hub.js'
import { analyticsEndpoints } from './analytics.js'
import { atlasEndpoints } from './atlas.js'
import { companyEndpoints } from './company.js'
import { costTransparencyEndpoints } from './cost-transparency.js'
import { dataDictionaryEndpoints } from './data-dictionary.js'
import { feedbackEndpoints } from './feedback.js'
import { geoEndpoints } from './geo.js'
import { healthEndpoints, metaEndpoints } from './health.js'
import { insurersEndpoints } from './insurers.js'
import { novaEndpoints } from './nova.js'
import { shareableUrlEndpoints } from './shareable-url.js'
import { superAdminEndpoints } from './super-admin.js'
import { typeaheadEndpoints } from './typeahead.js'
import { usersEndpoints } from './users.js'
import { careSelectEndpoints } from './care-select.js'
import { memberAccessEndpoints } from './member-access.js'

export * from './access.js'
export * from './errors.js'
export * from './health.js'
export * from './routes.js'
export * from './validation.js'
export * from './users.js'
export * from './company.js'
export * from './shareable-url.js'
export * from './feedback.js'
export * from './analytics.js'
export * from './data-dictionary.js'
export * from './admin.js'
export * from './super-admin.js'
export * from './typeahead.js'
export * from './insurers.js'
export * from './cost-transparency.js'
export * from './insights.js'
export * from './nova.js'
export * from './endpoint.js'
export * from './geo.js'
export * from './ai-hub.js'
export * from './fhir.js'
export * from './care-select.js'
export * from './member-access.js'
export * from './atlas.js'
export * from './format.js'

/** Every endpoint of the API, by area: `endpoints.users.login`, `endpoints.admin.createApiToken`, ... */
export const endpoints = {
  health: healthEndpoints,
  meta: metaEndpoints,
  users: usersEndpoints,
  company: companyEndpoints,
  shareableUrl: shareableUrlEndpoints,
  feedback: feedbackEndpoints,
  analytics: analyticsEndpoints,
  dataDictionary: dataDictionaryEndpoints,
  typeahead: typeaheadEndpoints,
  insurers: insurersEndpoints,
  costTransparency: costTransparencyEndpoints,
  admin: adminEndpoints,
  superAdmin: superAdminEndpoints,
  geo: geoEndpoints,
  nova: novaEndpoints,
  aiHub: aiHubEndpoints,
  careSelect: careSelectEndpoints,
  memberAccess: memberAccessEndpoints,
  atlas: atlasEndpoints,
} as const

/** The same definitions as one list (registration checks, OpenAPI, tests). */
export const ALL_ENDPOINTS: readonly EndpointDefinition[] = Object.values(endpoints).flatMap((area) =>
  Object.values(area as Record<string, EndpointDefinition>),
)
