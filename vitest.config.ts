import { defineConfig } from 'vitest/config'

// One `vitest run` runs every project: pure units, the React client in jsdom, API tests on a
// real database (embedded by default, TEST_DATABASE_URL otherwise) and real-browser tests.
export default defineConfig({
  test: {
    // React's scheduler may run one last microtask after jsdom's teardown removed `window` (react-dom reads
    // `window.event` in shouldAttemptEagerTransition): that is the environment going away under a root already
    // unmounted, not a defect of the code under test. Only that exact error is dropped; every other one fails the run.
    onUnhandledError(error): boolean | void {
      const stack = String(error.stack ?? '')
      if (
        error.name === 'ReferenceError' &&
        error.message === 'window is not defined' &&
        stack.includes('shouldAttemptEagerTransition') &&
        stack.includes('react-dom-client')
      )
        return false
    },
    projects: [
      {
        test: {
          name: 'unit',
          environment: 'node',
          include: [
            'packages/**/src/**/*.test.ts',
            'apps/server/src/**/*.test.ts',
            'scripts/**/*.test.ts',
            'seed/**/*.test.ts',
            'test/**/*.test.ts',
            'bench/**/*.test.ts',
          ],
          exclude: ['**/*.int.test.ts', '**/node_modules/**'],
          setupFiles: ['test/fail-on-console-error.ts'],
        },
      },
      {
        test: {
          name: 'web',
          environment: 'jsdom',
          include: ['apps/web/src/**/*.test.{ts,tsx}'],
          setupFiles: ['test/fail-on-console-error.ts', 'apps/web/src/test/setup.ts'],
          // a file's first test renders the lazily imported routes: seconds on a loaded machine (setup.ts's find* wait)
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'int',
          environment: 'node',
          include: ['apps/server/src/**/*.int.test.ts', 'test/**/*.int.test.ts', 'seed/**/*.int.test.ts'],
          globalSetup: ['test/global-setup.ts'],
          setupFiles: ['test/fail-on-console-error.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'e2e',
          environment: 'node',
          include: ['e2e/**/*.e2e.test.ts'],
          globalSetup: ['test/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
})
