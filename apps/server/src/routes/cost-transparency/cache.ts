/** The versioned cache moved to lib/ (shared with Care Select, docs/decisions/0060); kept here for its importers. */
export { dataVersion, VersionedLruCache } from '../../lib/versioned-cache.js'
