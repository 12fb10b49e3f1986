// `npm start`: everything a fresh clone needs to run the product, then the server (embedded database
// unless DATABASE_URL is set; demo company and users are created, see README).
import { spawn } from 'node:child_process'
import path from 'node:path'
import { bootstrap, buildWebClient, root } from './bootstrap.mjs'

bootstrap()
buildWebClient()

const tsx = path.join(root, 'node_modules/tsx/dist/cli.mjs')
const server = spawn(process.execPath, [tsx, path.join(root, 'apps/server/src/main.ts')], {
  cwd: root,
  stdio: 'inherit',
  env: { SEED_DEMO: 'true', ...process.env },
})
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal))
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
