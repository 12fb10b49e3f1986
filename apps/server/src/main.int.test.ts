import { spawn, type ChildProcess } from 'node:child_process'
import { randomInt, randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { REPO_ROOT } from './runtime.js'
import { typeScriptArgs } from '../../../test/server-process.ts'

/**
 * The server process as operators start it (apps/server/src/main.ts), with WEB_CONCURRENCY=2: a primary that
 * forks two server processes on one port, whose credential limits are one set in PostgreSQL (docs/decisions/0076).
 */
describe('the server as a cluster of processes (WEB_CONCURRENCY)', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'citrus-cluster-'))
  let server: ChildProcess | null = null
  afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server!.once('exit', resolve))
      server.kill('SIGTERM')
      await exited
    }
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('serves from two processes whose login limits are one: the eleventh failure on an account waits its delay', async () => {
    server = spawn(process.execPath, typeScriptArgs(path.join(REPO_ROOT, 'apps/server/src/main.ts')), {
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: inject('databaseUrl'),
        WEB_CONCURRENCY: '2',
        // the limits are kept in the test database across runs: each run signs in from an address of its own
        TRUST_PROXY: 'true',
        HOST: '127.0.0.1',
        PORT: '0',
        DATA_DIR: dataDir,
        JWT_SECRET: `${randomUUID()}${randomUUID()}`,
        SEED_DEMO: 'false',
        LOG_LEVEL: 'warn',
        OUTBOX_POLL_INTERVAL_MS: '0',
        WEB_DIST_DIR: path.join(dataDir, 'no-client'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    const base = await new Promise<string>((resolve, reject) => {
      server!.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString()
        const match = /Citrus is running at (http:\/\/localhost:\d+) .*2 server processes\)/.exec(output)
        if (match) resolve(match[1]!.replace('localhost', '127.0.0.1'))
      })
      server!.once('exit', (code) => reject(new Error(`the server exited (${code}): ${output}`)))
    })
    expect((await fetch(`${base}/healthz`)).status).toBe(200)

    // failures on one account, each on a new connection (the cluster hands connections to its processes in turn)
    const account = `nobody-${randomUUID().slice(0, 8)}@cluster.test`
    const address = `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`
    const login = async () => {
      const started = performance.now()
      const response = await fetch(`${base}/api/users/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', connection: 'close', 'x-forwarded-for': address },
        body: JSON.stringify({ email: account, password: 'Wrong-Pass#1' }),
      })
      return { status: response.status, ms: performance.now() - started }
    }
    const first = []
    for (let i = 0; i < 10; i++) first.push(await login())
    expect(first.every((attempt) => attempt.status === 401)).toBe(true)
    // two processes with their own counters would each allow ten failures before the delay
    const eleventh = await login()
    expect(eleventh.status).toBe(401)
    expect(eleventh.ms).toBeGreaterThanOrEqual(950)
  }, 90_000)
})
