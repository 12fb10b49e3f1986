/**
 * What a user meets on the very first `npm start` (issue 32 §9: sign-in within 2 s during the first-start data load):
 * `node scripts/start.mjs` on a fresh DATA_DIR in a scratch folder and a free port, exactly as a fresh clone runs it,
 * while this process signs in over HTTP as admin@citrus.demo every `--interval-ms` and fetches a static file (the
 * event loop alone) beside it. Each sign-in is counted under the phase the server's output was in when it started:
 * the data load, the engines' warm-ups after it, then 30 s of a settled server. Prints per phase the sign-ins, their
 * median, p95 and longest time, and every one over 2 s.
 *
 *   npm run bench -- first-start-http [--interval-ms 250]
 *
 * Never passes or fails; the figures go to docs/performance.md.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { loadEnv } from '../apps/server/src/config.ts'
import { DEFAULT_DEMO_PASSWORD } from '../apps/server/src/seed/demo-accounts.ts'
import { freePort } from '../test/server-process.ts'
import { quantileOf } from './http-load.ts'

type Phase = 'load' | 'warm-up' | 'settled'

export async function benchFirstStartHttp(options: { intervalMs: number }): Promise<void> {
  const demoPassword = loadEnv().DEMO_PASSWORD ?? DEFAULT_DEMO_PASSWORD
  const dataDir = mkdtempSync(path.join(tmpdir(), 'citrus-first-start-'))
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  // changed by the server's output (a callback): read through the object, never narrowed
  const state: { phase: Phase; listening: boolean } = { phase: 'load', listening: false }
  const warmUpsLeft = new Set(['Atlas indexes built', 'Care Select indexes built', 'Nova data built'])
  let settledAt = 0
  const server = spawn(process.execPath, [path.join(import.meta.dirname, '../scripts/start.mjs')], {
    // eslint-disable-next-line no-restricted-properties -- the child is `npm start` itself: it reads its own environment
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', DATABASE_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const onOutput = (chunk: Buffer) => {
    const text = chunk.toString()
    if (text.includes('Citrus is running at')) state.listening = true
    if (state.phase === 'load' && /Loaded [\d,]+ rows/.test(text)) state.phase = 'warm-up'
    for (const line of [...warmUpsLeft]) if (text.includes(line)) warmUpsLeft.delete(line)
    if (state.phase === 'warm-up' && warmUpsLeft.size === 0) {
      state.phase = 'settled'
      settledAt = performance.now()
    }
  }
  server.stdout.on('data', onOutput)
  server.stderr.on('data', onOutput)
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()))
  const signIns: { phase: Phase; at: number; ms: number; status: number }[] = []
  const statics: { phase: Phase; ms: number }[] = []
  const started = performance.now()
  try {
    while (!state.listening) {
      if (performance.now() - started > 300_000) throw new Error('the server did not start within 5 minutes')
      if (server.exitCode !== null) throw new Error(`the server exited with code ${server.exitCode}`)
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    console.log(
      `npm start on a fresh DATA_DIR (${base}); sign-in every ${options.intervalMs} ms; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    )
    const staticProbe = (async () => {
      while (state.phase !== 'settled' || performance.now() - settledAt < 30_000) {
        const at = state.phase
        const t0 = performance.now()
        await fetch(`${base}/favicon.svg`).then((response) => response.arrayBuffer())
        statics.push({ phase: at, ms: performance.now() - t0 })
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    })()
    while (state.phase !== 'settled' || performance.now() - settledAt < 30_000) {
      if (performance.now() - started > 1_800_000) throw new Error('the first start did not settle within 30 minutes')
      const at = state.phase
      const t0 = performance.now()
      const response = await fetch(`${base}/api/users/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'admin@citrus.demo', password: demoPassword }),
      })
      await response.arrayBuffer()
      signIns.push({ phase: at, at: (t0 - started) / 1000, ms: performance.now() - t0, status: response.status })
      await new Promise((resolve) => setTimeout(resolve, options.intervalMs))
    }
    await staticProbe
  } finally {
    server.kill('SIGTERM')
    await exited
    rmSync(dataDir, { recursive: true, force: true })
  }
  console.log(
    `${'phase'.padEnd(10)} ${'sign-ins'.padStart(8)} ${'median ms'.padStart(10)} ${'p95 ms'.padStart(8)} ${'max ms'.padStart(8)} ${'static max ms'.padStart(14)}  statuses`,
  )
  for (const name of ['load', 'warm-up', 'settled'] as const) {
    const times = signIns
      .filter((s) => s.phase === name)
      .map((s) => s.ms)
      .sort((a, b) => a - b)
    const staticMax = Math.max(0, ...statics.filter((s) => s.phase === name).map((s) => s.ms))
    const statuses = [...new Set(signIns.filter((s) => s.phase === name).map((s) => s.status))].join(',')
    console.log(
      `${name.padEnd(10)} ${String(times.length).padStart(8)} ${(times.length ? quantileOf(times, 0.5) : 0).toFixed(0).padStart(10)} ${(times.length ? quantileOf(times, 0.95) : 0).toFixed(0).padStart(8)} ${(times.at(-1) ?? 0).toFixed(0).padStart(8)} ${staticMax.toFixed(0).padStart(14)}  ${statuses}`,
    )
  }
  const slow = signIns.filter((s) => s.ms > 2_000)
  console.log(
    `sign-ins over 2 s: ${slow.length === 0 ? 'none' : slow.map((s) => `${s.phase} at ${s.at.toFixed(0)} s: ${s.ms.toFixed(0)} ms`).join('; ')}`,
  )
}
