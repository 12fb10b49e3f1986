import type { FastifyInstance } from 'fastify'
import { atlasClaims } from '../../engines/atlas/claim-index.js'
import { warmEachVersion } from '../../engines/warm.js'
import { warmZipNeighbours } from './regions.js'

/**
 * Builds the Atlas indexes of each data version as soon as the version exists (engines/warm.ts), so the first
 * condition search after a start or a data load is answered from the index instead of reading its rows from the
 * database (issue 33 item 14); then the ZIP areas' neighbours, which a ZIP search's hotspots need.
 */
export function warmAtlasIndexes(app: FastifyInstance): void {
  warmEachVersion(app, {
    done: 'Atlas indexes built',
    failed: 'building the Atlas indexes failed; searches read their rows from the database until the next data version',
    warm: async (pool, version) => {
      await atlasClaims.build(pool, version, true)
      // then the ZIP catalog and every ZIP area's neighbours, read by the first ZIP search otherwise
      return { zip_areas: await warmZipNeighbours(pool, version) }
    },
  })
}
