import pLimit from 'p-limit'

/**
 * One whole-index build at a time per process (issue 34 §5): the Care Select specialty indexes, the Atlas patient and
 * claim indexes. Each build holds its rows read from the database beside the index it makes (1-1.5 GiB at the full
 * scale for the largest); run side by side at a start or after a data load, their peaks added up (2.1-2.3 GiB at a start,
 * 3.0-3.2 GiB at a new data version, docs/performance.md). Requests never wait in this line: while an index is queued or
 * building they read their own rows from the database (docs/decisions/0080). Only leaf builds queue here (a build that
 * awaits another index would wait for itself).
 */
const line = pLimit(1)

/** Runs `build` when no other whole-index build of this process is running. */
export function oneBuildAtATime<T>(build: () => Promise<T>): Promise<T> {
  return line(build)
}

/** Builds waiting their turn (not counting the one running): GET /metrics. */
export function queuedBuilds(): number {
  return line.pendingCount
}
