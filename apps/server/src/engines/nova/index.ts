import { readPoolForVersion } from '../../db/replicas.js'
import { oneBuildAtATime } from '../../lib/build-queue.js'
import { versionedBuild, versionedEngine } from '../versioned-build.js'
import { buildNovaData, type NovaQuery } from './data.js'

export { LIST_WEIGHT, Memo, MEMO_BUDGET, type NovaData, type NovaQuery } from './data.js'

/**
 * Nova's data of the data version (engines/nova/data.ts), or null while it is being built (`wait`: awaited). Built in
 * the background on first ask, one whole-index build at a time (lib/build-queue.ts), from a read replica that has
 * replayed what the primary held (else the primary), and held under the shared memory budget as `nova_data`
 * (engines/versioned-build.ts).
 */
export const currentNovaData = versionedBuild((pool, version) => oneBuildAtATime(() => buildNovaData(pool, version)), 'nova_data')

/**
 * The Nova engine (docs/decisions/0080, 0086): a call's rows are the whole data of the version when it is held, else
 * (at a start, for a new data version, after an eviction) the call's own rows (NovaQuery) read straight from the
 * database by the same builder, on a read replica that holds the version (else the primary), as Care Select's look-ups.
 * The service's functions answer from either alike; no call waits for the build.
 */
export const novaEngine = versionedEngine('nova_data', currentNovaData, async (pool, version, query: NovaQuery) =>
  buildNovaData(await readPoolForVersion(pool, version), version, query),
)
