import { dataDictionaryResponseSchema, type DataDictionaryResponse } from '@citrus/contracts'
import { api } from '../../../lib/api-client'

/** GET /data-dictionary: the tab sets with live row counts (spec 1 §2, spec 4 §4). */
export async function getDataDictionary(): Promise<DataDictionaryResponse> {
  const body = await api.get<unknown>('/data-dictionary')
  const parsed = dataDictionaryResponseSchema.safeParse(body)
  if (!parsed.success) throw new Error('The data dictionary could not be read.')
  return parsed.data
}
