import { notifications } from '@mantine/notifications'

/** Notification defaults (spec 1 §4, §9): 4000 ms, exit 300 ms, progress bar on; persist means no timeout. */
export const NOTIFICATION_DURATION_MS = 4000
export const NOTIFICATION_EXIT_MS = 300

export type Severity = 'success' | 'error' | 'info' | 'warning'

const COLORS: Record<Severity, string> = { success: 'citrus', error: 'red', info: 'blue', warning: 'yellow' }

export interface NotifyOptions {
  severity?: Severity
  title?: string
  message: string
  duration?: number
  persist?: boolean
  /** the line that runs down until the notification closes (default on; never shown when persisted) */
  progress?: boolean
}

export function autoCloseFor(options: Pick<NotifyOptions, 'duration' | 'persist'>): number | false {
  return options.persist ? false : (options.duration ?? NOTIFICATION_DURATION_MS)
}

export function notify(options: NotifyOptions): string {
  const severity = options.severity ?? 'info'
  const autoClose = autoCloseFor(options)
  return notifications.show({
    title: options.title,
    message: options.message,
    color: COLORS[severity],
    autoClose,
    withAutoCloseProgress: autoClose !== false && (options.progress ?? true),
    'data-severity': severity,
  })
}
