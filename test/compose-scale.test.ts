import { spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parse } from 'yaml'
import { describe, expect, it, type TestContext } from 'vitest'

const root = path.resolve(import.meta.dirname, '..')
const BALANCER_CONFIG = 'scripts/compose/Caddyfile'

interface Service {
  image?: string
  build?: { context?: string } | string
  profiles?: string[]
  environment?: Record<string, string | null>
  depends_on?: Record<string, unknown> | string[]
  ports?: { published?: number | string; target?: number | string }[]
  volumes?: (string | { source?: string; target?: string })[]
  entrypoint?: string[] | string
}

/**
 * `docker-compose config` of a compose file with the given profiles (no Docker engine needed). The environment has
 * no DATABASE_REPLICA_URL: what the profile wires, it must wire by itself.
 */
function config(file: string, profiles: string[]): { status: number | null; stdout: string; stderr: string } {
  const env: NodeJS.ProcessEnv = { ...process.env, JWT_SECRET: 'compose-validation-secret-of-32-characters' }
  delete env.DATABASE_REPLICA_URL
  delete env.PORT
  const args = ['-f', file, '--project-directory', path.dirname(file), ...profiles.flatMap((p) => ['--profile', p]), 'config']
  const result = spawnSync('docker-compose', args, { encoding: 'utf8', env })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

function requireCompose(context: TestContext): boolean {
  if (spawnSync('docker-compose', ['version'], { encoding: 'utf8' }).status === 0) return true
  if (process.env.CI) throw new Error('docker-compose is required in CI (.ci/run installs it)')
  context.skip('docker-compose is not installed')
  return false
}

const dependsOn = (service: Service): string[] =>
  Array.isArray(service.depends_on) ? service.depends_on : Object.keys(service.depends_on ?? {})

/** The host file mounted at `target` (the short `source:target[:mode]` form or the long one), or null. */
function mountedFile(service: Service, target: string): string | null {
  for (const volume of service.volumes ?? []) {
    if (typeof volume === 'string') {
      const [source, to] = volume.split(':')
      if (to === target) return source!
    } else if (volume.target === target && volume.source) return volume.source
  }
  return null
}

/** The upstreams of the Caddyfile's reverse_proxy and the settings in its block. */
function reverseProxy(caddyfile: string): { upstreams: string[]; block: string } | null {
  const text = caddyfile.replace(/#.*$/gm, '')
  const match = /\breverse_proxy\s+([^{\n]*)\{([^}]*)\}/.exec(text)
  if (!match) return null
  return { upstreams: match[1]!.trim().split(/\s+/).filter(Boolean), block: match[2]! }
}

/**
 * What is missing from the `scale` profile as `docker-compose config` resolved it: two or more Citrus servers, each
 * with the primary and the replica wired and trusting the balancer's X-Forwarded-For; the streaming replica; a
 * balancer on port 3000 whose upstreams are exactly those servers, checked on /readyz. Empty when all is there.
 */
export function scaleProblems(resolved: string): string[] {
  const services = (parse(resolved) as { services: Record<string, Service> }).services
  const problems: string[] = []
  const inScale = (service: Service) => service.profiles?.includes('scale') === true
  const servers = Object.entries(services)
    .filter(([, service]) => inScale(service) && service.environment?.DATABASE_URL !== undefined)
    .map(([name]) => name)
    .sort()
  if (servers.length < 2) problems.push(`two app servers in profile scale, found: ${servers.join(', ') || 'none'}`)
  for (const name of servers) {
    const env = services[name]!.environment!
    if (!/@db:5432\/citrus$/.test(env.DATABASE_URL ?? '')) problems.push(`${name}: DATABASE_URL is not db's`)
    if (!/^postgres:\/\/citrus:[^@]*@db-replica:5432\/citrus$/.test(env.DATABASE_REPLICA_URL ?? ''))
      problems.push(`${name}: DATABASE_REPLICA_URL is not db-replica's (${JSON.stringify(env.DATABASE_REPLICA_URL ?? null)})`)
    if (env.TRUST_PROXY !== 'true') problems.push(`${name}: TRUST_PROXY is not true behind the balancer`)
    if (!dependsOn(services[name]!).includes('db-replica')) problems.push(`${name}: does not start after db-replica`)
  }

  const replica = services['db-replica']
  if (!replica || !inScale(replica)) problems.push('db-replica: missing from profile scale')
  else if (!String(replica.entrypoint).includes('pg_basebackup -h db -U citrus')) problems.push('db-replica: not copied from db')

  const lb = services.lb
  if (!lb || !inScale(lb)) return [...problems, 'lb: missing from profile scale']
  if (!lb.ports?.some((port) => String(port.published) === '3000' && String(port.target) === '80'))
    problems.push('lb: does not publish port 3000')
  for (const name of servers) if (!dependsOn(lb).includes(name)) problems.push(`lb: does not start after ${name}`)
  const file = mountedFile(lb, '/etc/caddy/Caddyfile')
  if (!file) return [...problems, 'lb: no Caddyfile mounted at /etc/caddy/Caddyfile']
  const proxy = reverseProxy(readFileSync(file, 'utf8'))
  if (!proxy) return [...problems, `lb: no reverse_proxy in ${file}`]
  const expected = servers.map((name) => `${name}:3000`)
  for (const upstream of expected) if (!proxy.upstreams.includes(upstream)) problems.push(`lb: upstream ${upstream} missing`)
  for (const upstream of proxy.upstreams) if (!expected.includes(upstream)) problems.push(`lb: upstream ${upstream} is no server`)
  if (!/^\s*health_uri\s+\/readyz\s*$/m.test(proxy.block)) problems.push('lb: upstreams not checked on /readyz')
  return problems
}

// docs/scaling.md: the profiles are validated here; none of their containers runs on these machines.
describe('docker-compose.yml profiles scale and citus', { timeout: 60_000 }, () => {
  const composeFile = path.join(root, 'docker-compose.yml')

  it('scale: two app servers behind a load balancer checking /readyz, both reading from a streaming replica, wired by the profile', (context) => {
    if (!requireCompose(context)) return
    const result = config(composeFile, ['scale'])
    expect(result.stderr).not.toMatch(/ERROR/)
    expect(result.status).toBe(0)
    expect(scaleProblems(result.stdout)).toEqual([])
    const services = (parse(result.stdout) as { services: Record<string, Service> }).services
    expect(services.lb!.image).toMatch(/^caddy:2\./)
    // the file as written: compose's output folds the script
    expect(readFileSync(composeFile, 'utf8')).toContain('gosu postgres pg_basebackup -h db -U citrus -D "$$PGDATA" -R -X stream -c fast')
    expect(mountedFile(services.db!, '/docker-entrypoint-initdb.d/allow-replication.sh')).toBe(
      path.join(root, 'scripts/compose/allow-replication.sh'),
    )
  })

  it('without a profile: one server on port 3000 with no replica, and nothing of profile scale', (context) => {
    if (!requireCompose(context)) return
    const result = config(composeFile, [])
    expect(result.status).toBe(0)
    const services = (parse(result.stdout) as { services: Record<string, Service> }).services
    // `config` lists every service; those with a profile start only when it is named
    const started = Object.entries(services).filter(([, service]) => !service.profiles?.length)
    expect(started.map(([name]) => name).sort()).toEqual(['app', 'db'])
    expect(services.app!.environment!.DATABASE_REPLICA_URL).toBe('')
    expect(services.app!.ports).toEqual([{ published: 3000, target: 3000 }])
  })

  describe('the check of profile scale fails when a part is missing (a mutated copy)', () => {
    const composeText = readFileSync(composeFile, 'utf8')
    const caddyfile = readFileSync(path.join(root, BALANCER_CONFIG), 'utf8')
    /** `docker-compose config --profile scale` of a copy of the files, changed by `edit`; the check's problems. */
    function problemsOf(edit: { compose?: (text: string) => string; caddyfile?: (text: string) => string }): string[] {
      const dir = mkdtempSync(path.join(tmpdir(), 'citrus-compose-scale-'))
      try {
        mkdirSync(path.join(dir, 'scripts'), { recursive: true })
        // what the file refers to: the replication script, the balancer's config, the Citus image's folder
        for (const folder of ['scripts/compose', 'scripts/citus'])
          cpSync(path.join(root, folder), path.join(dir, folder), { recursive: true })
        const mutatedCompose = (edit.compose ?? ((text) => text))(composeText)
        const mutatedCaddyfile = (edit.caddyfile ?? ((text) => text))(caddyfile)
        // each edit must change what it names: an edit that matches nothing would prove nothing
        if (edit.compose) expect(mutatedCompose).not.toBe(composeText)
        if (edit.caddyfile) expect(mutatedCaddyfile).not.toBe(caddyfile)
        writeFileSync(path.join(dir, 'docker-compose.yml'), mutatedCompose)
        writeFileSync(path.join(dir, BALANCER_CONFIG), mutatedCaddyfile)
        const result = config(path.join(dir, 'docker-compose.yml'), ['scale'])
        expect(result.status, result.stderr).toBe(0)
        return scaleProblems(result.stdout)
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }

    it('the copy unchanged passes', (context) => {
      if (!requireCompose(context)) return
      expect(problemsOf({})).toEqual([])
    })

    it('the replica not wired into the servers', (context) => {
      if (!requireCompose(context)) return
      const problems = problemsOf({ compose: (text) => text.replace(/^ {4}DATABASE_REPLICA_URL: postgres:\/\/.*@db-replica:.*\n/m, '') })
      expect(problems).toEqual([
        expect.stringMatching(/^app-1: DATABASE_REPLICA_URL is not db-replica's/),
        expect.stringMatching(/^app-2: DATABASE_REPLICA_URL is not db-replica's/),
      ])
    })

    it('the second server gone', (context) => {
      if (!requireCompose(context)) return
      const problems = problemsOf({
        compose: (text) => text.replace(/^ {2}app-2: \*scaled-server\n/m, '').replace(/^ {6}app-2:\n {8}condition: service_started\n/m, ''),
      })
      expect(problems).toEqual(['two app servers in profile scale, found: app-1', 'lb: upstream app-2:3000 is no server'])
    })

    it("a server missing from the balancer's upstreams", (context) => {
      if (!requireCompose(context)) return
      expect(problemsOf({ caddyfile: (text) => text.replace(' app-2:3000', '') })).toEqual(['lb: upstream app-2:3000 missing'])
    })

    it("the balancer's health check gone", (context) => {
      if (!requireCompose(context)) return
      expect(problemsOf({ caddyfile: (text) => text.replace(/^\s*health_uri \/readyz\n/m, '\n') })).toEqual([
        'lb: upstreams not checked on /readyz',
      ])
    })

    it('the balancer gone', (context) => {
      if (!requireCompose(context)) return
      expect(problemsOf({ compose: (text) => text.replace(/^ {2}lb:\n(?: {4}.*\n| {6,}.*\n)*/m, '') })).toEqual([
        'lb: missing from profile scale',
      ])
    })
  })

  it('citus: a coordinator and two workers on the citusdata image (with PostGIS), beside the plain database', (context) => {
    if (!requireCompose(context)) return
    const result = config(composeFile, ['citus'])
    expect(result.status).toBe(0)
    const services = (parse(result.stdout) as { services: Record<string, Service> }).services
    expect(services.db!.image).toMatch(/^postgis\/postgis/)
    for (const name of ['citus-coordinator', 'citus-worker-1', 'citus-worker-2']) expect(services[name]!.image).toBe('citrus-citus:12.1')
    expect(JSON.stringify(services['citus-coordinator']!.ports)).toContain('127.0.0.1:5434:5432')
    expect(services['citus-setup']!.entrypoint).toContain('/citus/cluster.sql')
    expect(readFileSync(path.join(root, 'scripts/citus/Dockerfile'), 'utf8')).toMatch(/^FROM citusdata\/citus:12\.1$/m)
    const cluster = readFileSync(path.join(root, 'scripts/citus/cluster.sql'), 'utf8')
    expect(cluster).toContain("citus_add_node('citus-worker-1', 5432)")
    expect(cluster).toContain("citus_add_node('citus-worker-2', 5432)")
  })
})
