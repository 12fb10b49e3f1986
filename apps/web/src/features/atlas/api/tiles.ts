import { endpoints } from '@citrus/contracts'
import { endpointUrl } from '../../../lib/api-client'

/** The vector-tile URL template of a query ({z}/{x}/{y} kept literal for the map), with the shareable token when there is no login. */
export function tilesUrl(query: Record<string, string | number | boolean | undefined | null>): string {
  return endpointUrl(endpoints.atlas.tile, { query })
}
