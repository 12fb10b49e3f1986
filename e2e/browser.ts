import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, inject } from 'vitest'
import type { Database } from '../apps/server/src/db/database.ts'
import { REPO_ROOT } from '../apps/server/src/runtime.ts'
import { testDatabase } from '../test/helpers.ts'
import { freePort, waitForReady } from '../test/server-process.ts'

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** Debian's Chromium, headless, with no background traffic (the machine has no internet). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  })
}

export interface RunningServer {
  baseUrl: string
  output(): string
  stop(): Promise<void>
}

/** The real server process (the built client included) on the test database. */
export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  const port = await freePort()
  const child: ChildProcess = spawn(
    process.execPath,
    [path.join(REPO_ROOT, 'node_modules/tsx/dist/cli.mjs'), path.join(REPO_ROOT, 'apps/server/src/main.ts')],
    {
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: inject('databaseUrl'),
        PORT: String(port),
        HOST: '127.0.0.1',
        SEED_DEMO: 'true',
        JWT_SECRET: 'e2e-secret-with-more-than-thirty-two-characters',
        DATA_DIR: mkdtempSync(path.join(tmpdir(), 'citrus-e2e-')),
        LOG_LEVEL: 'warn',
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        OUTBOX_POLL_INTERVAL_MS: '200',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let output = ''
  child.stdout?.on('data', (chunk) => (output += chunk))
  child.stderr?.on('data', (chunk) => (output += chunk))
  const baseUrl = `http://127.0.0.1:${port}`
  try {
    await waitForReady(baseUrl, 90_000)
  } catch (error) {
    child.kill('SIGKILL')
    throw new Error(`${(error as Error).message}\n${output}`, { cause: error })
  }
  return {
    baseUrl,
    output: () => output,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}

/**
 * Registers the suite's hooks: before all tests a test database handle, the real server process (with `env`,
 * read when it starts) and Chromium; after all tests each closed.
 */
export function useBrowserSuite(env: () => Record<string, string> = () => ({})) {
  let server: RunningServer | undefined
  let browser: Browser | undefined
  let db: Database | undefined
  beforeAll(async () => {
    db = testDatabase()
    server = await startServer(env())
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
    await server?.stop()
    await db?.close()
  })
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the browser suite starts in beforeAll')
    return value
  }
  return {
    get server(): RunningServer {
      return started(server)
    },
    get browser(): Browser {
      return started(browser)
    },
    get db(): Database {
      return started(db)
    },
  }
}

/**
 * Closes every toast on the page. Mantine pauses a toast's auto-close while the pointer rests on it, and a
 * top-right toast covers the results header's buttons, so a test that clicks there right after a toast
 * closes it first, as a user would.
 */
export async function dismissToasts(page: Page): Promise<void> {
  const toasts = page.locator('.mantine-Notifications-notification')
  for (let remaining = await toasts.count(); remaining > 0; remaining = await toasts.count()) {
    const close = toasts.first().locator('.mantine-Notification-closeButton')
    if ((await close.count()) > 0) await close.click({ timeout: 5_000 }).catch(() => undefined)
    await toasts
      .first()
      .waitFor({ state: 'detached', timeout: 10_000 })
      .catch(() => undefined)
    if ((await toasts.count()) >= remaining) break
  }
}

/**
 * Picks an option of a Mantine Select opened by a click. The dropdown hides itself while its input is clipped
 * (Popover `hideDetached`), as it is while an enclosing Collapse still expands on a busy machine, and a second
 * click closes it: so each try closes any dropdown with Escape, clicks, and waits a moment for the option.
 */
export async function chooseOption(page: Page, combobox: string, option: string): Promise<void> {
  const choice = page.getByRole('option', { name: option, exact: true })
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('Escape')
    await page.getByRole('combobox', { name: combobox, exact: true }).click()
    try {
      await choice.click({ timeout: 3_000 })
      return
    } catch (error) {
      if (attempt === 8) throw error
    }
  }
}
