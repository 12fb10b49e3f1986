import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parse } from 'yaml'
import { describe, expect, it, type TestContext } from 'vitest'
import { envSchema } from '../apps/server/src/config.ts'

// CI validates every compose file of the repository (issue 35): `docker-compose config` resolves it (no Docker
// engine needed), once per profile it defines, and every service that runs the Citrus server may set only variables
// apps/server/src/config.ts reads, so that none is silently ignored. docker-compose.yml's topology per profile is
// test/compose-scale.test.ts's.

const root = path.resolve(import.meta.dirname, '..')
const JWT_SECRET = 'compose-validation-secret-of-32-characters'
const SERVER_VARIABLES = new Set(Object.keys(envSchema.shape))

/** The variable names of a service's `environment:`, in the map form (`NAME: value`) or the list form (`NAME=value`, `NAME`). */
function variableNames(environment: unknown): string[] {
  if (environment === null || environment === undefined) return []
  if (Array.isArray(environment)) return environment.map((entry) => String(entry).split('=')[0]!.trim())
  if (typeof environment === 'object') return Object.keys(environment)
  throw new Error(`environment is neither a map nor a list: ${JSON.stringify(environment)}`)
}

/**
 * Does the service run the Citrus server? It is built from the repository's Dockerfile (build context the root,
 * `build: .` as written, an absolute path once resolved), or it is given the server's DATABASE_URL.
 */
function runsCitrus(service: Record<string, unknown>): boolean {
  const build = service.build as string | { context?: string } | undefined
  const context = typeof build === 'string' ? build : build?.context
  return (context !== undefined && path.resolve(root, context) === root) || variableNames(service.environment).includes('DATABASE_URL')
}

/** `service: NAME` for each variable a Citrus service of the compose text sets that config.ts does not read. */
export async function unknownServerVariables(composeText: string): Promise<{ citrusServices: string[]; unknown: string[] }> {
  const compose = parse(composeText) as { services?: Record<string, Record<string, unknown>> }
  const citrus = Object.entries(compose.services ?? {}).filter(([, service]) => runsCitrus(service))
  return {
    citrusServices: citrus.map(([name]) => name),
    unknown: citrus.flatMap(([name, service]) =>
      variableNames(service.environment)
        .filter((variable) => !SERVER_VARIABLES.has(variable))
        .map((variable) => `${name}: ${variable}`),
    ),
  }
}

/** Every compose file the repository tracks. */
function composeFiles(): string[] {
  const listed = spawnSync('git', ['ls-files', '-z', '--', '*compose*.yml', '*compose*.yaml'], { cwd: root, encoding: 'utf8' })
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`)
  return listed.stdout.split('\0').filter(Boolean).sort()
}

function composeInstalled(): boolean {
  return spawnSync('docker-compose', ['version'], { encoding: 'utf8' }).status === 0
}

/** docker-compose is required in CI; elsewhere a test that needs it is skipped. */
function requireCompose(context: TestContext): boolean {
  if (composeInstalled()) return true
  if (process.env.CI) throw new Error('docker-compose is required in CI (.ci/run installs it)')
  context.skip('docker-compose is not installed')
  return false
}

/** `docker-compose -f <file> [--profile p] config [...args]`, relative paths from the repository root. */
function compose(file: string, args: string[], env: NodeJS.ProcessEnv = { ...process.env, JWT_SECRET }) {
  return spawnSync('docker-compose', ['-f', path.resolve(root, file), '--project-directory', root, ...args], { encoding: 'utf8', env })
}

describe('every compose file of the repository', { timeout: 120_000 }, () => {
  it('is found (docker-compose.yml among them)', () => {
    expect(composeFiles()).toContain('docker-compose.yml')
  })

  it('resolves with each of its profiles, and its Citrus services set only variables config.ts reads', async (context) => {
    if (!requireCompose(context)) return
    const problems: string[] = []
    const citrus = new Set<string>()
    for (const file of composeFiles()) {
      const listed = compose(file, ['config', '--profiles'])
      expect(listed.status, `${file}: docker-compose config --profiles\n${listed.stderr}`).toBe(0)
      const profiles = listed.stdout.split('\n').filter(Boolean)
      for (const profile of [null, ...profiles]) {
        const resolved = compose(file, [...(profile ? ['--profile', profile] : []), 'config'])
        const run = `${file}${profile ? ` --profile ${profile}` : ''}`
        expect(resolved.status, `${run}: docker-compose config\n${resolved.stderr}`).toBe(0)
        expect(resolved.stderr, run).not.toMatch(/ERROR/)
        const found = await unknownServerVariables(resolved.stdout)
        for (const name of found.citrusServices) citrus.add(`${file}: ${name}`)
        problems.push(...found.unknown.map((entry) => `${run}: ${entry}`))
      }
    }
    expect([...citrus]).toEqual(
      expect.arrayContaining(['docker-compose.yml: app', 'docker-compose.yml: app-1', 'docker-compose.yml: app-2']),
    )
    expect(problems, 'variables set for the Citrus server that apps/server/src/config.ts does not read').toEqual([])
  })

  it('a misspelt variable in the app of docker-compose.yml fails the check', async (context) => {
    if (!requireCompose(context)) return
    const source = readFileSync(path.join(root, 'docker-compose.yml'), 'utf8')
    expect(source).toMatch(/^ {4}TWILIO_FROM:/m)
    const dir = mkdtempSync(path.join(tmpdir(), 'citrus-compose-'))
    try {
      const mutated = path.join(dir, 'docker-compose.yml')
      writeFileSync(mutated, source.replace(/^( {4})TWILIO_FROM:/m, '$1TWILIO_FROM_NUMBER:'))
      const resolved = compose(mutated, ['--profile', 'scale', 'config'])
      expect(resolved.status, resolved.stderr).toBe(0)
      const { unknown } = await unknownServerVariables(resolved.stdout)
      expect(unknown).toEqual(expect.arrayContaining(['app: TWILIO_FROM_NUMBER', 'app-1: TWILIO_FROM_NUMBER', 'app-2: TWILIO_FROM_NUMBER']))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('the check of Citrus services (no docker-compose needed)', () => {
  it('reads the map and the list form of environment, and knows a Citrus service by its build or DATABASE_URL', async () => {
    const text = [
      'services:',
      '  app:',
      '    build: .',
      '    environment:',
      '      PUBLIC_URL: http://localhost:3000',
      "      TWILIO_FROM_NUMBER: '+15550100'",
      '  worker:',
      '    image: citrus:2.3.0',
      '    environment:',
      '      - DATABASE_URL=postgres://citrus:citrus@db:5432/citrus',
      '      - SMTP_HOSTNAME=mail.example.com',
      '      - LOG_LEVEL',
      '  db:',
      '    image: postgis/postgis:16-3.5',
      '    environment: [POSTGRES_PASSWORD=citrus]',
    ].join('\n')
    expect(await unknownServerVariables(text)).toEqual({
      citrusServices: ['app', 'worker'],
      unknown: ['app: TWILIO_FROM_NUMBER', 'worker: SMTP_HOSTNAME'],
    })
    expect(
      (await unknownServerVariables(text.replace('TWILIO_FROM_NUMBER', 'TWILIO_FROM').replace('SMTP_HOSTNAME', 'SMTP_HOST'))).unknown,
    ).toEqual([])
  })
})

describe('docker-compose.yml', { timeout: 60_000 }, () => {
  it('is a valid compose file with the database and the app', async (context) => {
    if (!requireCompose(context)) return
    const result = compose('docker-compose.yml', ['config'])
    expect(result.stderr).not.toMatch(/ERROR/)
    expect(result.status).toBe(0)
    const services = (parse(result.stdout) as { services: Record<string, { image?: string; environment?: Record<string, string> }> })
      .services
    expect(services.db!.image).toMatch(/^postgis\/postgis:/)
    expect(services.app!.environment!.DATABASE_URL).toMatch(/^postgres:\/\/citrus:.*@db:5432\/citrus$/)
    expect(result.stdout).toContain('3000')
  })

  it('refuses to run the app without a JWT secret', (context) => {
    if (!requireCompose(context)) return
    const env = { ...process.env }
    delete env.JWT_SECRET
    const result = compose('docker-compose.yml', ['config'], env)
    expect(result.status).not.toBe(0)
    expect(result.stderr).toContain('JWT_SECRET')
  })
})
