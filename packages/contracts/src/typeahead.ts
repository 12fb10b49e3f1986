import { z } from 'zod'
import { defineEndpoint } from './endpoint.js'

/**
 * Look-ups behind the search forms (spec 3 §3, §5, §7; spec 2 §3, §7): specialties (omni), ICD-10-CM and
 * CPT/HCPCS codes, and Price Check's procedures. Typo-tolerant, ranked exact code > code prefix > text match.
 */
export const TYPEAHEAD_DEFAULT_LIMIT = 10
/** The specialty field asks for 100 options on focus (spec 3 §5). */
export const TYPEAHEAD_MAX_LIMIT = 100
export const TYPEAHEAD_MAX_QUERY_LENGTH = 100

const limit = z.coerce
  .number()
  .int()
  .min(1)
  .max(TYPEAHEAD_MAX_LIMIT)
  .default(TYPEAHEAD_DEFAULT_LIMIT)
  .describe(`how many options, 1-${TYPEAHEAD_MAX_LIMIT} (default ${TYPEAHEAD_DEFAULT_LIMIT})`)

/** Code and procedure look-ups need some text (the clients ignore empty or blank input). */
export const typeaheadQuerySchema = z.object({
  query: z
    .string()
    .trim()
    .min(1, 'query is required')
    .max(TYPEAHEAD_MAX_QUERY_LENGTH)
    .describe('typed text: a code, a code prefix or words (typos tolerated)'),
  limit,
})
export type TypeaheadQuery = z.infer<typeof typeaheadQuerySchema>

/** The specialty look-up also answers an empty query (the most common specialties first). */
export const omniQuerySchema = z.object({
  query: z.string().trim().max(TYPEAHEAD_MAX_QUERY_LENGTH).default('').describe('typed text; empty lists the most common specialties'),
  limit,
})
export type OmniQuery = z.infer<typeof omniQuerySchema>

export const OMNI_GENRES = ['SPECIALTY'] as const

/** Specialty option: code, description, genre, score (spec 3 §3). */
export const specialtyOptionSchema = z
  .object({
    code: z.string().describe('NUCC taxonomy code (omni_code)'),
    description: z.string(),
    genre: z.enum(OMNI_GENRES).describe('omni_genre'),
    score: z.number().min(0).max(1).describe('match quality, 1 = exact'),
  })
  .meta({ id: 'SpecialtyOption' })
export type SpecialtyOption = z.infer<typeof specialtyOptionSchema>
export const omniResponseSchema = z.object({ suggestions: z.array(specialtyOptionSchema) }).meta({ id: 'OmniSuggestions' })
export type OmniResponse = z.infer<typeof omniResponseSchema>

/** CPT and ICD-10-CM code option: code, description, long_description, parent_code (spec 2 §3, spec 3 §3). */
export const codeOptionSchema = z
  .object({
    code: z.string(),
    description: z.string(),
    long_description: z.string(),
    parent_code: z.string().nullable(),
  })
  .meta({ id: 'CodeOption' })
export type CodeOption = z.infer<typeof codeOptionSchema>
export const codesResponseSchema = z.object({ codes: z.array(codeOptionSchema) }).meta({ id: 'CodeOptions' })
export type CodesResponse = z.infer<typeof codesResponseSchema>

/** Price Check's procedure search result: name, cpt_codes, description (spec 3 §3). */
export const procedureOptionSchema = z
  .object({
    name: z.string(),
    cpt_codes: z.array(z.string()),
    description: z.string(),
  })
  .meta({ id: 'ProcedureOption' })
export type ProcedureOption = z.infer<typeof procedureOptionSchema>
export const proceduresResponseSchema = z.object({ procedures: z.array(procedureOptionSchema) }).meta({ id: 'ProcedureOptions' })
export type ProceduresResponse = z.infer<typeof proceduresResponseSchema>

const typeaheadTags = ['typeahead'] as const
/** Every signed-in role, and shareable-link guests whose link lists the endpoint. */
const lookupSecurity = ['bearer', 'shareToken'] as const

/** Look-ups of the search forms; not metered (they are not product calls). */
export const typeaheadEndpoints = {
  omni: defineEndpoint({
    method: 'GET',
    path: '/typeahead/omni',
    summary: 'Specialty options (NUCC taxonomies): code, description, genre SPECIALTY, score; an empty query lists the most common',
    tags: typeaheadTags,
    security: lookupSecurity,
    query: omniQuerySchema,
    response: omniResponseSchema,
    errors: [400, 401, 403],
  }),
  icd10: defineEndpoint({
    method: 'GET',
    path: '/typeahead/icd10-fuzzy',
    summary: 'ICD-10-CM codes by code, code prefix or words (typos tolerated); exact code first, then prefixes, then text matches',
    tags: typeaheadTags,
    security: lookupSecurity,
    query: typeaheadQuerySchema,
    response: codesResponseSchema,
    errors: [400, 401, 403],
  }),
  cpt: defineEndpoint({
    method: 'GET',
    path: '/typeahead/cpt-fuzzy',
    summary: 'CPT and HCPCS codes by code, code prefix or words (typos tolerated), with plain-language names',
    tags: typeaheadTags,
    security: lookupSecurity,
    query: typeaheadQuerySchema,
    response: codesResponseSchema,
    errors: [400, 401, 403],
  }),
  procedures: defineEndpoint({
    method: 'GET',
    path: '/typeahead/procedure-typeahead',
    summary: 'Price Check procedures (name, cpt_codes, description) by name or code; default limit 10',
    tags: typeaheadTags,
    security: lookupSecurity,
    query: typeaheadQuerySchema,
    response: proceduresResponseSchema,
    errors: [400, 401, 403],
  }),
} as const
