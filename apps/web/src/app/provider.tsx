import { MantineProvider } from '@mantine/core'
import { Notifications } from '@mantine/notifications'
import type { ReactNode } from 'react'
import { NOTIFICATION_DURATION_MS, NOTIFICATION_EXIT_MS } from '../lib/notify'
import { theme } from './theme'

export function AppProvider({ children }: { children: ReactNode }) {
  return (
    <MantineProvider theme={theme} defaultColorScheme="light">
      <Notifications autoClose={NOTIFICATION_DURATION_MS} transitionDuration={NOTIFICATION_EXIT_MS} position="top-right" />
      {children}
    </MantineProvider>
  )
}
