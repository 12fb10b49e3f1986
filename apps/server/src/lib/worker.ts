import { createRequire } from 'node:module'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { Worker, type WorkerOptions } from 'node:worker_threads'

/**
 * A worker thread of a module beside the caller: the built file (`built`, which scripts/build-server.mjs bundles next
 * to the server) when the server runs compiled, else the TypeScript source through tsx's ESM API (its package exports
 * map "tsx/esm/api" to dist/esm/api/index.mjs). A source that fails to load is reported as the parent expects:
 * `'message'` posts `{ type: 'error', message }`, `'exit'` prints it and ends the thread with code 1.
 */
export function startModuleWorker(
  callerUrl: string,
  files: { source: string; built: string },
  options: WorkerOptions = {},
  onLoadError: 'message' | 'exit' = 'exit',
): Worker {
  if (!callerUrl.endsWith('.ts')) return new Worker(new URL(files.built, callerUrl), options)
  const tsx = pathToFileURL(path.join(path.dirname(createRequire(callerUrl).resolve('tsx/package.json')), 'dist/esm/api/index.mjs')).href
  const entry = new URL(files.source, callerUrl).href
  const report =
    onLoadError === 'message'
      ? `require('node:worker_threads').parentPort.postMessage({ type: 'error', message: String((e && e.stack) || e) })`
      : `{ console.error(e); process.exit(1) }`
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}) }).catch((e) => ${report})`
  return new Worker(boot, { ...options, eval: true })
}
