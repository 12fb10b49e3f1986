import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { inject } from 'vitest'
import { REPO_ROOT } from '../apps/server/src/runtime.ts'
import { freePort, typeScriptArgs, waitForReady } from './server-process.ts'

const main = path.join(REPO_ROOT, 'apps/server/src/main.ts')

describe('the server process', () => {
  it('refuses to start with a message naming each bad variable', () => {
    const result = spawnSync(process.execPath, typeScriptArgs(main), {
      env: { PATH: process.env.PATH, PORT: 'not-a-port', LOG_LEVEL: 'chatty' },
      encoding: 'utf8',
      timeout: 60_000,
    })
    expect(result.status).toBe(1)
    expect(result.stderr).toContain('Invalid configuration')
    expect(result.stderr).toContain('PORT')
    expect(result.stderr).toContain('LOG_LEVEL')
  })

  it('starts on the given database, seeds the demo accounts and shuts down cleanly on SIGTERM', async () => {
    const port = await freePort()
    const child = spawn(process.execPath, typeScriptArgs(main), {
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: inject('databaseUrl'),
        PORT: String(port),
        SEED_DEMO: 'true',
        DEMO_PASSWORD: 'Other#Demo99',
        JWT_SECRET: 'process-test-secret-with-more-than-32-chars',
        DATA_DIR: mkdtempSync(path.join(tmpdir(), 'citrus-proc-')),
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    await waitForReady(`http://127.0.0.1:${port}`, 90_000)
    expect(output).toContain(`http://localhost:${port}`)
    for (const email of ['admin@citrus.demo', 'citrus@citrus.demo', 'user@citrus.demo', 'member@citrus.demo']) {
      expect(output).toContain(email)
    }
    // The password came from DEMO_PASSWORD: a secret the logs must not repeat.
    expect(output).not.toContain('Other#Demo99')
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
  })

  it('first start on the embedded database: owner-only files, a password on the wire port, a bounded idle transaction, the CLI shares it, and /readyz and sign-in answer while the demo dataset loads, not after it', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'citrus-first-'))
    const dataDir = path.join(root, 'data')
    mkdirSync(dataDir, { mode: 0o755 }) // as an earlier version left it
    const port = await freePort()
    const env = { PATH: process.env.PATH, DATA_DIR: dataDir, LOG_LEVEL: 'warn' }
    const child = spawn(process.execPath, typeScriptArgs(main), {
      env: { ...env, PORT: String(port), SEED_DEMO: 'true', DEMO_PASSWORD: 'First#Start99' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    const base = `http://127.0.0.1:${port}`
    const signIn = () =>
      fetch(`${base}/api/users/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'admin@citrus.demo', password: 'First#Start99' }),
      })
    try {
      const deadline = Date.now() + 240_000
      // the long part of the load: the claims (minutes; the reference data before them upserts in a few seconds)
      while (!/^\s+claims\s/m.test(output)) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the first-start load did not begin:\n${output}`)
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
      const mode = (file: string) => statSync(path.join(dataDir, file)).mode & 0o777
      expect(mode('.')).toBe(0o700)
      expect(mode('pglite')).toBe(0o700)
      for (const file of ['embedded-db.json', 'embedded-db-password', 'jwt-secret']) expect(mode(file), file).toBe(0o600)

      const { url } = JSON.parse(readFileSync(path.join(dataDir, 'embedded-db.json'), 'utf8')) as { url: string }
      const endpoint = new URL(url)
      expect(decodeURIComponent(endpoint.password)).toBe(readFileSync(path.join(dataDir, 'embedded-db-password'), 'utf8').trim())
      // the attack of issue 32 item 2: any user name and password used to connect as superuser
      for (const password of ['postgres', 'anything']) {
        const intruder = new pg.Client({
          host: endpoint.hostname,
          port: Number(endpoint.port),
          user: 'postgres',
          password,
          database: 'postgres',
        })
        intruder.on('error', () => undefined)
        await expect(intruder.connect()).rejects.toMatchObject({ code: '28P01' })
      }

      // while the load runs, /readyz and sign-in answer during it, not after it: the claims step (minutes) prints
      // progress again after the last answer. Before, the load held the database for a table's whole transaction, and
      // a sign-in during the claims answered only once they were all written. Ordinal, not timed (issue 34).
      let answeredAt = 0
      for (let i = 0; i < 5; i++) {
        expect((await fetch(`${base}/readyz`)).status).toBe(200)
        expect((await signIn()).status).toBe(200)
        answeredAt = output.length
        await new Promise((resolve) => setTimeout(resolve, 500))
      }
      // a client holding a transaction open delays requests until the idle timeout (5 s) ends it, not for ever
      const holder = new pg.Client({ connectionString: url })
      const dropped = new Promise<Error>((resolve) => holder.on('error', resolve))
      await holder.connect()
      await holder.query('BEGIN')
      await holder.query('SELECT count(*) FROM users')
      expect((await signIn()).status).toBe(200)
      expect((await dropped).message).toBe('terminating connection due to idle-in-transaction timeout')
      while (!/^\s+claims\s/m.test(output.slice(answeredAt))) {
        if (Date.now() > deadline || child.exitCode !== null)
          throw new Error(`the claims were written before the sign-ins answered:\n${output}`)
        await new Promise((resolve) => setTimeout(resolve, 200))
      }

      // the operators' CLI uses the running server's database (reading the owner-only endpoint file)
      const cli = spawnSync(
        process.execPath,
        [...typeScriptArgs(path.join(REPO_ROOT, 'apps/server/src/cli/main.ts')), 'company', 'list', '--json'],
        {
          env,
          encoding: 'utf8',
          timeout: 120_000,
        },
      )
      expect(cli.stderr).toBe('')
      expect(cli.status).toBe(0)
      expect(JSON.stringify(JSON.parse(cli.stdout))).toContain('Citrus')
    } finally {
      child.kill('SIGTERM')
    }
    expect(await exited, output.slice(-3_000)).toBe(0)
  }, 420_000)
})
