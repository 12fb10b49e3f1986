import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { inject } from 'vitest'
import { REPO_ROOT } from '../apps/server/src/runtime.ts'
import { freePort, waitForReady } from './server-process.ts'

const tsx = path.join(REPO_ROOT, 'node_modules/tsx/dist/cli.mjs')
const main = path.join(REPO_ROOT, 'apps/server/src/main.ts')

describe('the server process', () => {
  it('refuses to start with a message naming each bad variable', () => {
    const result = spawnSync(process.execPath, [tsx, main], {
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
    const child = spawn(process.execPath, [tsx, main], {
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
})
