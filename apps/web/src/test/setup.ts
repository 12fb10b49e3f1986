import { cleanup, configure } from '@testing-library/react'
import { afterAll, afterEach, vi } from 'vitest'
import { disposeRouters } from './routers'

// A find* or waitFor waits up to 5 s for what it expects (the library's default is 1 s): the first test of a file renders
// the app's lazily imported routes, which on a loaded machine (two test modes side by side, CI) took longer than 1 s.
configure({ asyncUtilTimeout: 5_000 })

// jsdom lacks the browser APIs Mantine relies on.
if (typeof window !== 'undefined') {
  if (!window.matchMedia) {
    Object.defineProperty(window, 'matchMedia', {
      writable: true,
      configurable: true,
      value: (query: string): MediaQueryList => ({
        matches: false,
        media: query,
        onchange: null,
        addListener: () => {},
        removeListener: () => {},
        addEventListener: () => {},
        removeEventListener: () => {},
        dispatchEvent: () => false,
      }),
    })
  }
  if (!('ResizeObserver' in window)) {
    class ResizeObserverStub {
      observe(): void {}
      unobserve(): void {}
      disconnect(): void {}
    }
    Object.defineProperty(window, 'ResizeObserver', { writable: true, configurable: true, value: ResizeObserverStub })
    Object.defineProperty(globalThis, 'ResizeObserver', { writable: true, configurable: true, value: ResizeObserverStub })
  }
  if (!Element.prototype.scrollIntoView) Element.prototype.scrollIntoView = () => {}
  if (!Element.prototype.scrollTo) Element.prototype.scrollTo = () => {}
  if (!window.scrollTo || String(window.scrollTo).includes('notImplemented')) window.scrollTo = () => {}
  const style = window.getComputedStyle
  window.getComputedStyle = (element: Element, pseudo?: string | null) => style(element, pseudo ?? undefined)
}

// Registered first, so it runs after the hooks below (after-hooks run in reverse order): the test
// fails on a contract break only once everything was cleaned up, and the next test starts clean.
afterEach(async () => {
  const { assertNoContractViolations } = await import('./mock-api')
  assertNoContractViolations()
})

afterEach(() => {
  cleanup()
  disposeRouters()
  localStorage.clear()
  sessionStorage.clear()
  vi.useRealTimers()
})

afterEach(() => {
  vi.unstubAllGlobals()
})

// Module-level stores must not leak between tests (server state lives in each render's own QueryClient).
afterEach(async () => {
  const [{ endGuestSession }, { notifications }] = await Promise.all([import('../lib/guest-session'), import('@mantine/notifications')])
  endGuestSession()
  notifications.clean()
})

// React schedules its last work in microtasks and a macrotask: let it run while the test environment (window) is
// still there, not during its teardown ("window is not defined" from react-dom's scheduler).
afterAll(async () => {
  await new Promise((resolve) => setTimeout(resolve, 50))
})
