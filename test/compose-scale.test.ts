import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const root = path.resolve(import.meta.dirname, '..')

/** `docker-compose config` of the repository's file with the given profiles (no Docker engine needed), or null without the tool. */
function config(profiles: string[]): { status: number | null; stdout: string; stderr: string } | null {
  if (spawnSync('docker-compose', ['version'], { encoding: 'utf8' }).status !== 0) return null
  const args = ['-f', path.join(root, 'docker-compose.yml'), ...profiles.flatMap((p) => ['--profile', p]), 'config']
  const result = spawnSync('docker-compose', args, {
    encoding: 'utf8',
    env: {
      ...process.env,
      JWT_SECRET: 'compose-validation-secret-of-32-characters',
      DATABASE_REPLICA_URL: 'postgres://citrus:citrus@db-replica:5432/citrus',
    },
  })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

/** The block of one service in `docker-compose config` output (services sorted, two-space indent). */
function service(stdout: string, name: string): string {
  const start = stdout.indexOf(`\n  ${name}:\n`)
  expect(start, `service ${name}`).toBeGreaterThan(-1)
  const rest = stdout.slice(start + name.length + 5)
  const end = rest.search(/\n {2}[a-z0-9-]+:\n|\n[a-z]/)
  return rest.slice(0, end === -1 ? undefined : end)
}

// docs/scaling.md: the profiles are validated here; none of their containers runs on these machines.
describe('docker-compose.yml profiles scale and citus', { timeout: 60_000 }, () => {
  it('scale: a second app server and a streaming replica that both servers read from', (context) => {
    const result = config(['scale'])
    if (!result) {
      if (process.env.CI) throw new Error('docker-compose is required in CI (.ci/run installs it)')
      return context.skip()
    }
    expect(result.stderr).not.toMatch(/ERROR/)
    expect(result.status).toBe(0)
    for (const name of ['app', 'app2']) {
      expect(service(result.stdout, name)).toContain('DATABASE_REPLICA_URL: postgres://citrus:citrus@db-replica:5432/citrus')
      expect(service(result.stdout, name)).toMatch(/DATABASE_URL: postgres:\/\/citrus:citrus@db:5432\/citrus/)
    }
    expect(service(result.stdout, 'app2')).toMatch(/published: 3001/)
    const replica = service(result.stdout, 'db-replica')
    expect(replica).toContain('postgis/postgis:16-3.5')
    expect(replica).toContain('pg_basebackup -h db -U citrus')
    // the file as written: compose's output folds the script
    expect(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8')).toContain(
      'gosu postgres pg_basebackup -h db -U citrus -D "$$PGDATA" -R -X stream -c fast',
    )
    expect(service(result.stdout, 'db')).toContain('allow-replication.sh:/docker-entrypoint-initdb.d/allow-replication.sh')
  })

  it('citus: a coordinator and two workers on the citusdata image (with PostGIS), beside the plain database', (context) => {
    const result = config(['citus'])
    if (!result) return context.skip()
    expect(result.status).toBe(0)
    expect(service(result.stdout, 'db')).toContain('postgis/postgis')
    for (const name of ['citus-coordinator', 'citus-worker-1', 'citus-worker-2']) {
      expect(service(result.stdout, name)).toContain('image: citrus-citus:12.1')
    }
    expect(service(result.stdout, 'citus-coordinator')).toContain('127.0.0.1:5434:5432')
    expect(service(result.stdout, 'citus-setup')).toContain('/citus/cluster.sql')
    expect(readFileSync(path.join(root, 'scripts/citus/Dockerfile'), 'utf8')).toMatch(/^FROM citusdata\/citus:12\.1$/m)
    const cluster = readFileSync(path.join(root, 'scripts/citus/cluster.sql'), 'utf8')
    expect(cluster).toContain("citus_add_node('citus-worker-1', 5432)")
    expect(cluster).toContain("citus_add_node('citus-worker-2', 5432)")
  })
})
