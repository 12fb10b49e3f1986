import { createServer } from 'node:net'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { REPO_ROOT } from '../apps/server/src/runtime.ts'

/**
 * Node's arguments that run a TypeScript entry point (the server, the CLI) in one process, with tsx as a loader.
 * Not tsx's CLI: it runs the script in a child process and, when the child does not acknowledge a relayed SIGTERM
 * within 30 ms (a busy event loop on a loaded machine), kills it with SIGKILL, so a clean shutdown cannot be tested.
 */
export function typeScriptArgs(script: string): string[] {
  return ['--import', pathToFileURL(path.join(REPO_ROOT, 'node_modules/tsx/dist/loader.mjs')).href, script]
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

export async function waitForReady(baseUrl: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  let last = ''
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`${baseUrl}/readyz`)
      if (response.status === 200) return
      last = `status ${response.status}`
    } catch (error) {
      last = error instanceof Error ? error.message : String(error)
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  throw new Error(`${baseUrl} was not ready within ${timeoutMs} ms (${last})`)
}
