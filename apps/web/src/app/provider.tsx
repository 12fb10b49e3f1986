import { MantineProvider } from '@mantine/core'
import { Notifications } from '@mantine/notifications'
import { QueryClientProvider, notifyManager, type QueryClient } from '@tanstack/react-query'
import { useEffect, useState, type ReactNode } from 'react'
import { getActiveShareableToken } from '../lib/guest-token-store'
import { subscribeGuestSession } from '../lib/guest-session'
import { NOTIFICATION_DURATION_MS, NOTIFICATION_EXIT_MS } from '../lib/notify'
import { createQueryClient } from '../lib/query-client'
import { getSession, subscribeSession } from '../lib/session'
import { theme } from './theme'

/** Who the server sees: the login token, else the shareable-link token, else nobody. */
const identity = () => getSession().token ?? getActiveShareableToken() ?? ''

/**
 * Server state belongs to the identity that fetched it: when the login or the guest link changes
 * (sign in, sign out, another account in another tab), every cached answer is dropped and the
 * queries on screen fetch again for the new identity, so one account never sees another's data.
 */
function useCacheScopedToIdentity(queryClient: QueryClient): void {
  useEffect(() => {
    let current = identity()
    const check = () => {
      const next = identity()
      if (next === current) return
      current = next
      // signed out: nothing may be fetched again for nobody, so the answers are only dropped
      if (next === '')
        notifyManager.batch(() =>
          queryClient
            .getQueryCache()
            .getAll()
            .forEach((query) => query.reset()),
        )
      else void queryClient.resetQueries()
    }
    const unsubscribeSession = subscribeSession(check)
    const unsubscribeGuest = subscribeGuestSession(check)
    return () => {
      unsubscribeSession()
      unsubscribeGuest()
    }
  }, [queryClient])
}

/**
 * `env="test"` turns off Mantine's transitions and portals (used by the component tests); tests pass
 * their own `queryClient` (one per test), the app creates one for its lifetime.
 */
export function AppProvider({
  children,
  env = 'default',
  queryClient: given,
}: {
  children: ReactNode
  env?: 'default' | 'test'
  queryClient?: QueryClient
}) {
  const [created] = useState(() => given ?? createQueryClient({ test: env === 'test' }))
  const queryClient = given ?? created
  useCacheScopedToIdentity(queryClient)
  return (
    <QueryClientProvider client={queryClient}>
      <MantineProvider theme={theme} defaultColorScheme="light" env={env}>
        <Notifications
          autoClose={NOTIFICATION_DURATION_MS}
          transitionDuration={NOTIFICATION_EXIT_MS}
          position="top-right"
          withAutoCloseProgress
        />
        {children}
      </MantineProvider>
    </QueryClientProvider>
  )
}
