import { Badge, type BadgeProps } from '@mantine/core'
import type { AppArea } from '@citrus/contracts'

export type AppStatus = 'New' | 'Beta'

/** Status badges of the apps (spec 1 §2: Nova and Atlas are New; spec 3 §1: Price Check is shown as beta). */
export const APP_STATUS: Partial<Record<AppArea, AppStatus>> = {
  Atlas: 'New',
  Nova: 'New',
  'Price Check': 'Beta',
}

const COLORS: Record<AppStatus, string> = { New: 'citrus', Beta: 'orange' }

/** The one rendering of an app's status, on launcher cards and page headers alike. */
export function AppStatusBadge({
  status,
  size,
  variant = 'filled',
}: {
  status: AppStatus
  size?: BadgeProps['size']
  variant?: BadgeProps['variant']
}) {
  return (
    <Badge variant={variant} color={COLORS[status]} size={size}>
      {status}
    </Badge>
  )
}
