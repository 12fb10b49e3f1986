import pg from 'pg'
import { startEmbeddedPostgres } from './apps/server/src/db/embedded.ts'
const dir = process.argv[2]
let t = Date.now()
const e = await startEmbeddedPostgres(dir ? { dataDir: dir } : {})
console.log('start', Date.now() - t)
const c = new pg.Client({ connectionString: e.url }); await c.connect()
const v = await c.query('select version()'); console.log(v.rows[0])
await c.query('CREATE EXTENSION IF NOT EXISTS postgis')
const ddl = 'CREATE TABLE t (id bigint primary key, a text, b int, c numeric(12,2), d date, lat float8, lng float8, g geography(Point,4326) GENERATED ALWAYS AS (ST_Point(lng, lat, 4326)::geography) STORED)'
const N = 300000, B = Number(process.argv[3] ?? 5000)
const row = (i: number) => [i, `some text ${i}`, i % 100, (i * 1.37).toFixed(2), `2025-01-${String(1 + i % 28).padStart(2,'0')}`, 30 + (i%1000)/100, -90 - (i%1000)/100] as const
await c.query('DROP TABLE IF EXISTS t; ' + ddl)
t = Date.now()
await c.query('BEGIN')
for (let s = 0; s < N; s += B) {
  const cols: unknown[][] = [[],[],[],[],[],[],[]]
  for (let i = s; i < Math.min(N, s + B); i++) { const r = row(i); r.forEach((x, k) => cols[k]!.push(x)) }
  await c.query('INSERT INTO t (id,a,b,c,d,lat,lng) SELECT * FROM unnest($1::bigint[], $2::text[], $3::int[], $4::numeric[], $5::date[], $6::float8[], $7::float8[])', cols)
}
await c.query('COMMIT')
console.log('unnest', N, Date.now() - t, 'ms', Math.round(N / ((Date.now() - t) / 1000)), 'rows/s')
await c.query('DROP TABLE IF EXISTS t; ' + ddl)
t = Date.now()
await c.query('BEGIN')
for (let s = 0; s < N; s += B) {
  const rows: unknown[] = []
  for (let i = s; i < Math.min(N, s + B); i++) { const r = row(i); rows.push({ id: r[0], a: r[1], b: r[2], c: r[3], d: r[4], lat: r[5], lng: r[6] }) }
  await c.query('INSERT INTO t (id,a,b,c,d,lat,lng) SELECT id,a,b,c,d,lat,lng FROM json_populate_recordset(NULL::t, $1::json)', [JSON.stringify(rows)])
}
await c.query('COMMIT')
console.log('json', N, Date.now() - t, 'ms', Math.round(N / ((Date.now() - t) / 1000)), 'rows/s')
await c.end(); await e.stop()
