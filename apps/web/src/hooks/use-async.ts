import { useCallback, useEffect, useRef, useState } from 'react'

export type AsyncState<T> =
  | { status: 'loading'; data: undefined; error: undefined }
  | { status: 'success'; data: T; error: undefined }
  | { status: 'error'; data: undefined; error: unknown }

const LOADING = { status: 'loading', data: undefined, error: undefined } as const

function sameDeps(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((value, index) => Object.is(value, b[index]))
}

/**
 * Runs a loader on mount, whenever its deps change and on reload(); later results replace earlier
 * ones only. Each run has a generation: a result counts only for the generation that started it,
 * so the state is 'loading' from the render that changes the deps (no state update inside an effect).
 */
export function useAsync<T>(load: () => Promise<T>, deps: readonly unknown[]): AsyncState<T> & { reload: () => void } {
  const [tracked, setTracked] = useState(() => ({ deps, generation: 0 }))
  let generation = tracked.generation
  if (!sameDeps(tracked.deps, deps)) {
    // adjusting state while rendering (react.dev "you might not need an effect")
    generation += 1
    setTracked({ deps, generation })
  }
  const [result, setResult] = useState<{ generation: number; state: AsyncState<T> } | null>(null)

  // the latest loader, read by the effect; the caller's deps decide when it runs
  const loadRef = useRef(load)
  useEffect(() => {
    loadRef.current = load
  })

  useEffect(() => {
    let current = true
    loadRef.current().then(
      (data) => current && setResult({ generation, state: { status: 'success', data, error: undefined } }),
      (error: unknown) => current && setResult({ generation, state: { status: 'error', data: undefined, error } }),
    )
    return () => {
      current = false
    }
  }, [generation])

  const reload = useCallback(() => setTracked((current) => ({ deps: current.deps, generation: current.generation + 1 })), [])
  const state: AsyncState<T> = result && result.generation === generation ? result.state : LOADING
  return { ...state, reload }
}
