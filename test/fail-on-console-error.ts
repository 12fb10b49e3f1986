import { afterEach, beforeEach, vi } from 'vitest'

// An unexpected console.error fails the test (STYLE.md). A test that expects one replaces the
// spy with its own (vi.spyOn(console, 'error').mockImplementation(() => {})) before it happens.
let calls: unknown[][] = []
beforeEach(() => {
  calls = []
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    calls.push(args)
  })
})
afterEach(() => {
  const seen = calls
  vi.restoreAllMocks()
  if (seen.length > 0) {
    throw new Error(`Unexpected console.error:\n${seen.map((args) => args.map(String).join(' ')).join('\n')}`)
  }
})
