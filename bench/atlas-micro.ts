/**
 * Micro-bench of the Atlas pure functions against the indexes of DATABASE_URL (read-only session). The indexes are
 * snapshotted to /tmp per data version, so that repeated runs need not rebuild them (dev tool).
 *
 *   DATABASE_URL=... npx tsx bench/atlas-micro.ts [runs]
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import pg from 'pg'
import { loadEnv } from '../apps/server/src/config.ts'
import {
  buildClaimIndex,
  drillWithIndex,
  stateSummaryOf,
  type ClaimIndex,
  type DrillQuery,
} from '../apps/server/src/engines/atlas/claim-index.ts'
import {
  buildPatientIndex,
  countWithIndex,
  patientFilter,
  regionCountsMap,
  type PatientIndex,
} from '../apps/server/src/engines/atlas/patient-index.ts'
import { filtersOf, resolveScope } from '../apps/server/src/services/atlas/query.ts'
import { dataVersion, neighboursOf, regionCatalog } from '../apps/server/src/services/atlas/regions.ts'
import { getisOrdGiStar, giStar, neighbourhoods } from '../apps/server/src/services/atlas/statistics.ts'

type Desc = unknown
const TYPED: Record<string, new (b: ArrayBuffer, o: number, n: number) => ArrayLike<number>> = {
  Uint8Array,
  Uint16Array,
  Uint32Array,
  Int16Array,
  Int32Array,
  Float64Array,
}

function serialise(value: unknown, blobs: Buffer[], at: { n: number }): Desc {
  if (ArrayBuffer.isView(value)) {
    const v = value as unknown as {
      constructor: { name: string }
      buffer: ArrayBuffer
      byteOffset: number
      byteLength: number
      length: number
    }
    const pad = (8 - (at.n % 8)) % 8
    if (pad) blobs.push(Buffer.alloc(pad))
    at.n += pad
    const off = at.n
    blobs.push(Buffer.from(v.buffer, v.byteOffset, v.byteLength))
    at.n += v.byteLength
    return { $t: v.constructor.name, off, len: v.length }
  }
  if (Array.isArray(value)) return { $a: value.map((x) => serialise(x, blobs, at)) }
  if (value && typeof value === 'object')
    return { $o: Object.fromEntries(Object.entries(value).map(([k, x]) => [k, serialise(x, blobs, at)])) }
  return { $v: value }
}

function deserialise(d: Desc, data: Buffer): unknown {
  const x = d as { $t?: string; off: number; len: number; $a?: Desc[]; $o?: Record<string, Desc>; $v?: unknown }
  if (x.$t) {
    const C = TYPED[x.$t]!
    const bytes = (C as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT
    const copy = new ArrayBuffer(x.len * bytes)
    new Uint8Array(copy).set(data.subarray(x.off, x.off + x.len * bytes))
    return new C(copy, 0, x.len)
  }
  if (x.$a) return x.$a.map((y) => deserialise(y, data))
  if (x.$o) return Object.fromEntries(Object.entries(x.$o).map(([k, y]) => [k, deserialise(y, data)]))
  return x.$v
}

export async function loadIndexes(pool: pg.Pool): Promise<{ people: PatientIndex; claims: ClaimIndex }> {
  const version = await dataVersion(pool)
  const file = `/tmp/atlasdrill-snap-${new URL(loadEnv({ LOG_LEVEL: 'silent' }).DATABASE_URL!).pathname.slice(1)}-${version}`
  if (existsSync(`${file}.json`)) {
    const t = performance.now()
    const data = readFileSync(`${file}.bin`)
    const desc = JSON.parse(readFileSync(`${file}.json`, 'utf8')) as { people: Desc; claims: Desc }
    const people = deserialise(desc.people, data) as PatientIndex
    const claims = deserialise(desc.claims, data) as ClaimIndex
    claims.people = people
    // the summary of this checkout's code (the snapshot may hold an older layout)
    const t1 = performance.now()
    claims.stateSummary = stateSummaryOf(people, claims, claims.providers.count, claims.facilitySystem)
    console.log(`state summary rebuilt in ${((performance.now() - t1) / 1000).toFixed(1)} s`)
    console.log(`snapshot loaded in ${((performance.now() - t) / 1000).toFixed(1)} s`)
    return { people, claims }
  }
  let t = performance.now()
  const people = await buildPatientIndex(pool, version)
  console.log(`patient index ${((performance.now() - t) / 1000).toFixed(1)} s`)
  t = performance.now()
  const claims = await buildClaimIndex(pool, people)
  console.log(`claim index ${((performance.now() - t) / 1000).toFixed(1)} s`)
  const blobs: Buffer[] = []
  const at = { n: 0 }
  const desc = { people: serialise(people, blobs, at), claims: serialise({ ...claims, people: null }, blobs, at) }
  writeFileSync(`${file}.bin`, Buffer.concat(blobs))
  writeFileSync(`${file}.json`, JSON.stringify(desc))
  return { people, claims }
}

const cpu = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

export async function time(name: string, runs: number, f: (i: number) => unknown) {
  await f(0)
  const wall: number[] = []
  const c0 = cpu()
  for (let i = 0; i < runs; i++) {
    const t = performance.now()
    await f(i)
    wall.push(performance.now() - t)
  }
  const c = (cpu() - c0) / runs
  wall.sort((a, b) => a - b)
  console.log(`${name.padEnd(50)} wall p50 ${wall[runs >> 1]!.toFixed(2)} ms  cpu ${c.toFixed(2)} ms/call`)
}

async function main() {
  const runs = Number(process.argv[2] ?? 20)
  const pool = new pg.Pool({
    connectionString: loadEnv({ LOG_LEVEL: 'silent' }).DATABASE_URL,
    max: 4,
    options: '-c default_transaction_read_only=on',
  })
  const { people, claims } = await loadIndexes(pool)
  console.log(`load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`)
  const country = await resolveScope(pool, 'US', 'COUNTRY')
  const texas = await resolveScope(pool, 'TX', 'STATE')
  const e11 = filtersOf({ codes: 'E11,I10' })
  const ten = filtersOf({ codes: 'E11,I10,E66,J45,J44,M17,M06,N18,F32,I25', gender: 'F', min_age: 18, max_age: 70 })
  // the 25 states of the first page: largest by the generic count
  const filter = (await patientFilter(pool, people, e11, country))!
  const byState = regionCountsMap(countWithIndex(people, e11, filter, 'STATE'))
  const ranked = [...byState].sort((a, b) => b[1].patients - a[1].patients || (a[0] < b[0] ? -1 : 1)).map(([s]) => s)
  const pages = [0, 1, 2].map((p) => ranked.slice(p * 25, p * 25 + 25).sort())
  const q = (over: Partial<DrillQuery>): DrillQuery => ({
    group: 'STATE',
    filters: e11,
    scope: country,
    facilityId: null,
    healthSystemId: null,
    state: null,
    ...over,
  })
  const fTen = (await patientFilter(pool, people, ten, country))!
  await time('countWithIndex STATE E11,I10', runs, () => countWithIndex(people, e11, filter, 'STATE'))
  await time('countWithIndex COUNTY 10 codes F 18-70', runs, () => countWithIndex(people, ten, fTen, 'COUNTY'))
  {
    const version = await dataVersion(pool)
    const regions = [...(await regionCatalog(pool, 'COUNTY', version)).values()]
    const map = await neighboursOf(pool, 'COUNTY', regions, version)
    const position = new Map(regions.map((r, k) => [r.id, k]))
    const layout = () => regions.map((r) => (map.get(r.id) ?? []).map((id) => position.get(id)).filter((k): k is number => k !== undefined))
    const values = regions.map((_, i) => (i * 7919) % 1000)
    const neighbours = layout()
    const hoods = neighbourhoods(neighbours)
    if (JSON.stringify(getisOrdGiStar(values, neighbours)) !== JSON.stringify(giStar(values, hoods))) throw new Error('Gi* differs')
    await time('Gi* COUNTY: neighbour lists + Sets (before)', runs, () => getisOrdGiStar(values, layout()))
    await time('Gi* COUNTY: kept neighbourhoods (after)', runs, () => giStar(values, hoods))
  }
  for (let p = 0; p < 3; p++) {
    const [a, b] = [
      await drillWithIndex(pool, claims, q({ states: pages[p]! })),
      await drillWithIndex(pool, claims, q({ states: pages[p]! }), { walk: true }),
    ]
    if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`page ${p}: summary and walk differ`)
    await time(`walk STATE page ${p} (${pages[p]!.length} states)`, runs, () =>
      drillWithIndex(pool, claims, q({ states: pages[p]! }), { walk: true }),
    )
  }
  console.log(
    `state summary ${((claims.stateSummary?.bytes ?? 0) / 2 ** 20).toFixed(1)} MiB, ${claims.stateSummary?.codes.length} codes, ${claims.sets.length} sets, ${claims.stateSummary?.providers.bits.length} provider words, ${claims.stateSummary?.claims.set.length} state-set entries`,
  )
  for (let p = 0; p < 3; p++)
    await time(`drill STATE page ${p} (${pages[p]!.length} states)`, runs, () => drillWithIndex(pool, claims, q({ states: pages[p]! })))
  await time('drill STATE all states', Math.max(3, runs >> 2), () => drillWithIndex(pool, claims, q({})))
  await time('drill FACILITY TX', runs, () => drillWithIndex(pool, claims, q({ group: 'FACILITY', scope: texas })))
  await pool.end()
}

if (process.argv[1]?.endsWith('atlas-micro.ts')) await main()
