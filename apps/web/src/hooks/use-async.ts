import { useCallback, useEffect, useState } from 'react'

export type AsyncState<T> =
  | { status: 'loading'; data: undefined; error: undefined }
  | { status: 'success'; data: T; error: undefined }
  | { status: 'error'; data: undefined; error: unknown }

/** Runs a loader on mount and whenever its deps change; later results replace earlier ones only. */
export function useAsync<T>(load: () => Promise<T>, deps: readonly unknown[]): AsyncState<T> & { reload: () => void } {
  const [state, setState] = useState<AsyncState<T>>({ status: 'loading', data: undefined, error: undefined })
  const [attempt, setAttempt] = useState(0)
  // the caller lists what the loader depends on, as with useEffect
  const stableLoad = useCallback(load, deps)

  useEffect(() => {
    let current = true
    setState({ status: 'loading', data: undefined, error: undefined })
    stableLoad().then(
      (data) => current && setState({ status: 'success', data, error: undefined }),
      (error: unknown) => current && setState({ status: 'error', data: undefined, error }),
    )
    return () => {
      current = false
    }
  }, [stableLoad, attempt])

  return { ...state, reload: () => setAttempt((n) => n + 1) }
}
