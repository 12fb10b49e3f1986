import { z } from 'zod'
import { defineEndpoint } from './endpoint.js'

export const dataDictionaryRowSchema = z.object({
  column: z.string(),
  type: z.string(),
  description: z.string(),
  example: z.string().optional(),
})
export type DataDictionaryRow = z.infer<typeof dataDictionaryRowSchema>

export const dataDictionaryTabSchema = z.object({
  key: z.string().describe('stable identifier, e.g. medx_claims'),
  label: z.string().describe('tab title, e.g. MEDX CLAIMS'),
  table: z.string().describe('database table that holds the data'),
  row_count: z.number().int().nullable().describe('live row count; null while the table does not exist yet'),
  row_count_is_estimate: z.boolean(),
  rows: z.array(dataDictionaryRowSchema),
})
export type DataDictionaryTab = z.infer<typeof dataDictionaryTabSchema>

export const dataDictionaryResponseSchema = z
  .object({
    tab_sets: z.array(z.object({ key: z.string(), title: z.string(), tabs: z.array(dataDictionaryTabSchema) })),
  })
  .meta({ id: 'DataDictionary' })
export type DataDictionaryResponse = z.infer<typeof dataDictionaryResponseSchema>

export const dataDictionaryEndpoints = {
  get: defineEndpoint({
    method: 'GET',
    path: '/data-dictionary',
    summary: 'The public data dictionary: two tab sets of tables with their columns and live row counts',
    tags: ['data-dictionary'],
    response: dataDictionaryResponseSchema,
    errors: [],
  }),
} as const
