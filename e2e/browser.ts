import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, inject } from 'vitest'
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

/** The widths every app's main flow runs at: a desktop and an iPhone 12-sized phone. */
export const VIEWPORTS = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
] as const

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

/** The user guides' screenshots (docs/guide/*.md show them). */
export const GUIDE_IMAGES_DIR = path.join(REPO_ROOT, 'docs/guide/images')

/**
 * Saves the viewport as docs/guide/images/<name>.png for the user guides: only when CITRUS_GUIDE_SCREENSHOTS=1 and
 * only at desktop width (the guides show the 1440 px layout), so an ordinary run never writes into the tree.
 * How to refresh them: docs/guide/README.md.
 */
export async function guideScreenshot(page: Page, name: string): Promise<void> {
  if (process.env.CITRUS_GUIDE_SCREENSHOTS !== '1') return
  if ((page.viewportSize()?.width ?? 0) < 1024) return
  mkdirSync(GUIDE_IMAGES_DIR, { recursive: true })
  await page.screenshot({ path: path.join(GUIDE_IMAGES_DIR, `${name}.png`), animations: 'disabled', caret: 'hide' })
}

/** Something a page did that a flow must not do unless the test says it expects it. */
export interface BrowserProblem {
  kind: 'console' | 'pageerror' | 'response' | 'requestfailed'
  text: string
  status?: number
  path?: string
}

/** What a test expects on purpose (a refusal it provokes): every given field must match. */
export interface ExpectedProblem {
  kind?: BrowserProblem['kind']
  status?: number
  /** the request's path (and query), or the console message's / page error's text */
  path?: RegExp
  text?: RegExp
}

/**
 * Records, for every context it watches, console errors, uncaught page errors, responses of the app's origin
 * with status ≥ 400 and failed same-origin requests. `check()` (after each test) throws with the list of
 * recorded problems the test did not declare with `expect()`.
 */
export class BrowserGuard {
  private problems: BrowserProblem[] = []
  private expected: ExpectedProblem[] = []

  constructor(private readonly origin: () => string) {}

  /** Declares a problem the current test provokes on purpose; cleared after the test. */
  expect(...expected: ExpectedProblem[]): void {
    this.expected.push(...expected)
  }

  watch(context: BrowserContext): BrowserContext {
    const sameOrigin = (url: string) => url.startsWith(this.origin() + '/')
    const pathOf = (url: string) => url.slice(this.origin().length)
    context.on('console', (message) => {
      if (message.type() !== 'error') return
      const text = message.text()
      // Chromium's echo of a failed response: the response itself is recorded (or expected) below
      if (/^Failed to load resource: the server responded with a status of \d+/.test(text) && sameOrigin(message.location().url)) return
      this.problems.push({ kind: 'console', text: `${text} (at ${message.location().url})` })
    })
    context.on('weberror', (error) => this.problems.push({ kind: 'pageerror', text: String(error.error().stack ?? error.error()) }))
    context.on('response', (response) => {
      if (response.status() < 400 || !sameOrigin(response.url())) return
      const path = pathOf(response.url())
      this.problems.push({
        kind: 'response',
        status: response.status(),
        path,
        text: `${response.request().method()} ${path} → ${response.status()}`,
      })
    })
    context.on('requestfailed', (request) => {
      const failure = request.failure()?.errorText ?? ''
      // the client's own abort (a navigation or an unmounted query), not a failure
      if (!sameOrigin(request.url()) || failure === 'net::ERR_ABORTED') return
      const path = pathOf(request.url())
      this.problems.push({ kind: 'requestfailed', path, text: `${request.method()} ${path} failed: ${failure}` })
    })
    return context
  }

  private matches(problem: BrowserProblem, expected: ExpectedProblem): boolean {
    if (expected.kind !== undefined && expected.kind !== problem.kind) return false
    if (expected.status !== undefined && expected.status !== problem.status) return false
    if (expected.path !== undefined && (problem.path === undefined || !expected.path.test(problem.path))) return false
    if (expected.text !== undefined && !expected.text.test(problem.text)) return false
    return true
  }

  /** The recorded problems no expectation covers. */
  unexpected(): BrowserProblem[] {
    return this.problems.filter((problem) => !this.expected.some((expected) => this.matches(problem, expected)))
  }

  /** The recorded problems no expectation covers; both lists start afresh. */
  take(): BrowserProblem[] {
    const unexpected = this.unexpected()
    this.problems = []
    this.expected = []
    return unexpected
  }

  check(): void {
    const unexpected = this.take()
    if (unexpected.length === 0) return
    throw new Error(
      `the browser recorded ${unexpected.length} unexpected problem(s) (declare a provoked one with guard.expect):\n` +
        unexpected.map((problem) => `  [${problem.kind}] ${problem.text}`).join('\n'),
    )
  }
}

/** The browser with every context it creates (newContext, newPage) watched by the guard. */
export function guardedBrowser(browser: Browser, guard: BrowserGuard): Browser {
  return new Proxy(browser, {
    get(target, property, receiver) {
      if (property === 'newContext')
        return async (...args: Parameters<Browser['newContext']>) => guard.watch(await target.newContext(...args))
      if (property === 'newPage')
        return async (...args: Parameters<Browser['newPage']>) => {
          const page = await target.newPage(...args)
          guard.watch(page.context())
          return page
        }
      const value: unknown = Reflect.get(target, property, receiver)
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value
    },
  })
}

/**
 * Registers the suite's hooks: before all tests a test database handle, the real server process (with `env`,
 * read when it starts) and Chromium; after all tests each closed. Every page the suite's browser opens is
 * guarded: after each test the test fails on a console error, page error or same-origin 4xx/5xx it did not
 * declare with `suite.guard.expect(...)` (`guard: false` opts a suite out).
 */
export function useBrowserSuite(env: () => Record<string, string> = () => ({}), options: { guard?: boolean } = {}) {
  let server: RunningServer | undefined
  let browser: Browser | undefined
  let db: Database | undefined
  const guard = new BrowserGuard(() => started(server).baseUrl)
  beforeAll(async () => {
    db = testDatabase()
    server = await startServer(env())
    const launched = await launchBrowser()
    browser = options.guard === false ? launched : guardedBrowser(launched, guard)
  })
  afterEach(() => {
    if (options.guard !== false) guard.check()
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
    guard,
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
