/**
 * One memory budget shared by the in-memory engines of a process (ENGINE_MEMORY_BUDGET_MB, docs/operations.md),
 * least recently used first out. An engine holds each index it built under a key, with its bytes and how to drop it;
 * a use marks it recently used. When a newly held index takes the sum over the budget, the least recently used
 * others are dropped until it fits (the new one never: an index larger than the budget alone is still used). A
 * dropped index is built again on its next use, and the engines answer from SQL meanwhile as during any build, so
 * the answers stay the same. The default is 640 MiB (config.ts); 0 sets no budget: nothing is ever dropped. An index
 * whose caches grow after it is held (Nova's kept answers) is weighed again as they do (reweighEngine).
 */
interface Held {
  engine: string
  bytes: number
  evict: () => void
}

let budget = Number.POSITIVE_INFINITY
/** most recently used last */
const held = new Map<object, Held>()
const evictions = new Map<string, number>()

/** Sets the budget in bytes (null or 0: none) and applies it at once. */
export function setEngineMemoryBudget(bytes: number | null): void {
  budget = bytes && bytes > 0 ? bytes : Number.POSITIVE_INFINITY
  enforce(null)
}

/** The budget in bytes (Infinity: none). */
export function engineMemoryBudget(): number {
  return budget
}

/** Holds `key` (an index) under the budget as the most recently used, dropping others if the sum exceeds it. */
export function holdEngine(key: object, engine: string, bytes: number, evict: () => void): void {
  held.delete(key)
  held.set(key, { engine, bytes, evict })
  enforce(key)
}

/**
 * Gives a held `key` its bytes now (an index whose kept answers grew or shrank) and applies the budget, never
 * dropping `key` itself; its recency is unchanged. No-op when it is not held.
 */
export function reweighEngine(key: object, bytes: number): void {
  const entry = held.get(key)
  if (!entry || entry.bytes === bytes) return
  entry.bytes = bytes
  enforce(key)
}

/** Marks `key` used now (no-op when it is not held). */
export function touchEngine(key: object): void {
  const entry = held.get(key)
  if (!entry) return
  held.delete(key)
  held.set(key, entry)
}

/** Forgets `key` (its engine dropped or replaced it) without calling its evict. */
export function releaseEngine(key: object): void {
  held.delete(key)
}

/** Bytes held under the budget, and indexes dropped to fit it, by engine. */
export function engineBudgetStats(): { heldBytes: number; evictions: ReadonlyMap<string, number> } {
  let heldBytes = 0
  for (const entry of held.values()) heldBytes += entry.bytes
  return { heldBytes, evictions }
}

function enforce(keep: object | null): void {
  let total = 0
  for (const entry of held.values()) total += entry.bytes
  for (const [key, entry] of held) {
    if (total <= budget) break
    if (key === keep) continue
    held.delete(key)
    total -= entry.bytes
    evictions.set(entry.engine, (evictions.get(entry.engine) ?? 0) + 1)
    entry.evict()
  }
}
