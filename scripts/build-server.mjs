// Compiles the server and the operators' CLI to JavaScript: apps/server/dist/main.js and cli.js, run by plain
// `node` (the Docker image does). The server's own code, the generated Prisma client and the workspace
// packages (@citrus/contracts, @citrus/data-kit: TypeScript sources) are bundled; every npm package stays an
// import resolved from node_modules at run time. The files stay at the depth of apps/server/src, so paths
// derived from import.meta.url (the repository root, prisma/migrations, apps/web/dist) hold in both.
import { build } from 'esbuild'
import { rmSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
// --outdir apps/server/<name>: another folder at the same depth (test/built-server.int.test.ts builds into one)
const outdirArg = process.argv.indexOf('--outdir')
const outdir = path.resolve(root, outdirArg > 0 ? process.argv[outdirArg + 1] : 'apps/server/dist')
if (path.dirname(outdir) !== path.join(root, 'apps/server')) throw new Error('--outdir must be a folder of apps/server')

/** Bare imports stay external, except the workspace packages, whose sources are TypeScript. */
const externalPackages = {
  name: 'external-packages',
  setup(context) {
    context.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('@citrus/')) return undefined
      return { path: args.path, external: true }
    })
  },
}

rmSync(outdir, { recursive: true, force: true })
const result = await build({
  absWorkingDir: root,
  // seed-worker: the synthetic load's generator threads (apps/server/src/data/seed.ts starts ./seed-worker.js)
  entryPoints: {
    main: 'apps/server/src/main.ts',
    cli: 'apps/server/src/cli/main.ts',
    'seed-worker': 'apps/server/src/data/seed-worker.ts',
    // the embedded database's thread (apps/server/src/db/embedded.ts starts ./embedded-worker.js)
    'embedded-worker': 'apps/server/src/db/embedded-worker.ts',
    // the AI Hub's document extraction threads (apps/server/src/services/ai-hub/extract-pool.ts starts ./ai-hub-extract-worker.js)
    'ai-hub-extract-worker': 'apps/server/src/services/ai-hub/extract-worker.ts',
  },
  outdir,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20.19',
  sourcemap: true,
  plugins: [externalPackages],
  logLevel: 'warning',
  metafile: true,
})
const bytes = Object.entries(result.metafile.outputs)
  .filter(([file]) => file.endsWith('.js'))
  .map(([file, output]) => `${path.relative(root, file)} (${Math.round(output.bytes / 1024)} KiB)`)
console.log(`Built ${bytes.join(', ')}`)
