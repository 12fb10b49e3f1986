import { endpoints } from '@citrus/contracts'
import { useApiQuery } from './use-api'

/** How long the carrier list is fresh by default; it changes with a data load, not during a session. */
const INSURERS_STALE_MS = 10 * 60_000

/**
 * GET /insurers/: the carriers offered by the insurance selectors of Care Connect, Price Check and the cost page.
 * `enabled` false asks nothing (Price Check asks once its insurance area opens).
 */
export function useInsurers({ enabled = true, staleTime = INSURERS_STALE_MS }: { enabled?: boolean; staleTime?: number } = {}) {
  return useApiQuery(endpoints.insurers.list, {}, { enabled, staleTime })
}
