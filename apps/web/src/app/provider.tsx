import { MantineProvider } from '@mantine/core'
import { Notifications } from '@mantine/notifications'
import type { ReactNode } from 'react'
import { NOTIFICATION_DURATION_MS, NOTIFICATION_EXIT_MS } from '../lib/notify'
import { theme } from './theme'

/** `env="test"` turns off Mantine's transitions and portals (used by the component tests). */
export function AppProvider({ children, env = 'default' }: { children: ReactNode; env?: 'default' | 'test' }) {
  return (
    <MantineProvider theme={theme} defaultColorScheme="light" env={env}>
      <Notifications autoClose={NOTIFICATION_DURATION_MS} transitionDuration={NOTIFICATION_EXIT_MS} position="top-right" withAutoCloseProgress />
      {children}
    </MantineProvider>
  )
}
