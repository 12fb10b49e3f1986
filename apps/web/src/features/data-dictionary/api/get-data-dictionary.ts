import { endpoints } from '@citrus/contracts'
import { useApiQuery } from '../../../hooks/use-api'

/** GET /data-dictionary: the tab sets with live row counts (spec 1 §2, spec 4 §4). */
export function useDataDictionary() {
  return useApiQuery(endpoints.dataDictionary.get, {})
}
