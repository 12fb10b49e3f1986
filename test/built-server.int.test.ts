import { execFile } from 'node:child_process'
import { rmSync } from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'

// The Docker image runs the compiled server and CLI with plain `node` (Dockerfile: apps/server/dist/main.js and
// cli.js). Their npm imports stay external and resolve from apps/server/ at run time, so a package that the bundled
// workspace code imports must resolve there to the version that code was written for (a stale copy of stream-chain
// under apps/server/node_modules once made both fail at start with ERR_MODULE_NOT_FOUND).

const run = promisify(execFile)
const root = path.resolve(import.meta.dirname, '..')
const outdir = path.join(root, 'apps/server', `dist-test-${process.pid}`)

async function node(args: string[], env: NodeJS.ProcessEnv = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, timeout: 60_000 })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string }
    return { code: failed.code ?? 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' }
  }
}

describe('the compiled server and CLI (as the Docker image runs them)', () => {
  afterAll(() => rmSync(outdir, { recursive: true, force: true }))

  it('build, and start with every import resolved', async () => {
    const built = await node(['scripts/build-server.mjs', '--outdir', outdir])
    expect(built.stderr).toBe('')
    expect(built.code).toBe(0)

    const cli = await node([path.join(outdir, 'cli.js'), '--help'])
    expect(cli.stderr).not.toMatch(/ERR_MODULE_NOT_FOUND/)
    expect(cli.stdout).toMatch(/Citrus operators' CLI/)
    expect(cli.code).toBe(0)

    // every static import is linked before the first line runs: a configuration error proves they all resolved
    const server = await node([path.join(outdir, 'main.js')], { PORT: 'not-a-port', DATABASE_URL: '' })
    expect(server.stderr + server.stdout).not.toMatch(/ERR_MODULE_NOT_FOUND|Cannot find module/)
    expect(server.stderr + server.stdout).toMatch(/PORT/)
    expect(server.code).not.toBe(0)
  }, 120_000)
})
