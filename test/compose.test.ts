import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { envSchema } from '../apps/server/src/config.ts'

const root = path.resolve(import.meta.dirname, '..')

function composeBinary(): string | null {
  const probe = spawnSync('docker-compose', ['version'], { encoding: 'utf8' })
  return probe.status === 0 ? 'docker-compose' : null
}

// No Docker engine runs here; `docker-compose config` validates the file without one.
describe('docker-compose.yml', { timeout: 60_000 }, () => {
  it('is a valid compose file with the database and the app', (context) => {
    const binary = composeBinary()
    if (!binary) {
      if (process.env.CI) throw new Error('docker-compose is required in CI (.ci/run installs it)')
      context.skip()
      return
    }
    const result = spawnSync(binary, ['-f', path.join(root, 'docker-compose.yml'), 'config'], {
      encoding: 'utf8',
      env: { ...process.env, JWT_SECRET: 'compose-validation-secret-of-32-characters' },
    })
    expect(result.stderr).not.toMatch(/ERROR/)
    expect(result.status).toBe(0)
    expect(result.stdout).toContain('postgis/postgis')
    expect(result.stdout).toMatch(/DATABASE_URL: postgres:\/\/citrus:.*@db:5432\/citrus/)
    expect(result.stdout).toContain('3000')
  })

  it('refuses to run the app without a JWT secret', (context) => {
    const binary = composeBinary()
    if (!binary) return context.skip()
    const env = { ...process.env }
    delete env.JWT_SECRET
    const result = spawnSync(binary, ['-f', path.join(root, 'docker-compose.yml'), 'config'], { encoding: 'utf8', env })
    expect(result.status).not.toBe(0)
    expect(result.stderr).toContain('JWT_SECRET')
  })

  it('sets for the app only variables the server reads (config.ts), so none is silently ignored', () => {
    const compose = readFileSync(path.join(root, 'docker-compose.yml'), 'utf8')
    const app = compose.slice(compose.indexOf('\n  app:'), compose.indexOf('\nvolumes:'))
    const environment = app.slice(app.indexOf('environment:'), app.indexOf('\n    ports:'))
    const names = [...environment.matchAll(/^ {6}([A-Z][A-Z0-9_]*):/gm)].map((match) => match[1]!)
    expect(names.length).toBeGreaterThan(10)
    const read = new Set(Object.keys(envSchema.shape))
    expect(names.filter((name) => !read.has(name))).toEqual([])
  })
})
