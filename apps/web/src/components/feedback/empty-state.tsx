import { Button, Center, Paper, Stack, Text, ThemeIcon, Title } from '@mantine/core'
import { IconAlertTriangle, IconDatabaseOff, IconInfoCircle, IconLock, IconSearchOff, IconShieldLock } from '@tabler/icons-react'
import type { ReactNode } from 'react'

export type EmptyStateType = 'no-results' | 'no-data' | 'unauthorized' | 'access-required' | 'error' | 'info' | 'custom'
export type EmptyStateVariant = 'card' | 'inline' | 'fullscreen'

/** 'No {items} Found' / 'There are no {items} to display. ...' (spec 1 §8). */
export const emptyListTitle = (items: string) => `No ${items} Found`
export const emptyListMessage = (items: string) => `There are no ${items} to display. Try adjusting your filters or search criteria.`

const DEFAULTS: Record<
  Exclude<EmptyStateType, 'custom'>,
  { title: (items: string) => string; message: (items: string) => string; icon: ReactNode; color: string }
> = {
  'no-results': { title: emptyListTitle, message: emptyListMessage, icon: <IconSearchOff />, color: 'gray' },
  'no-data': { title: emptyListTitle, message: emptyListMessage, icon: <IconDatabaseOff />, color: 'gray' },
  unauthorized: {
    title: () => 'Not Authorized',
    message: () => 'You do not have permission to view this content.',
    icon: <IconShieldLock />,
    color: 'red',
  },
  'access-required': {
    title: () => 'Access Required',
    message: () => 'Your organization needs access to view this content.',
    icon: <IconLock />,
    color: 'orange',
  },
  error: {
    title: () => 'Something Went Wrong',
    message: () => 'An unexpected error occurred.',
    icon: <IconAlertTriangle />,
    color: 'red',
  },
  info: { title: () => 'Information', message: () => '', icon: <IconInfoCircle />, color: 'blue' },
}

export interface EmptyStateProps {
  type?: EmptyStateType
  variant?: EmptyStateVariant
  /** the plural noun used by the list texts, e.g. 'Providers' */
  items?: string
  title?: string
  message?: string
  icon?: ReactNode
  action?: { label: string; onClick: () => void }
  children?: ReactNode
}

/** Empty-state card: types no-results, no-data, unauthorized, access-required, error, info, custom (spec 1 §2). */
export function EmptyState({
  type = 'no-results',
  variant = 'card',
  items = 'Items',
  title,
  message,
  icon,
  action,
  children,
}: EmptyStateProps) {
  const preset = type === 'custom' ? undefined : DEFAULTS[type]
  const heading = title ?? preset?.title(items) ?? ''
  const body = message ?? preset?.message(items) ?? ''
  const content = (
    <Stack align="center" ta="center" gap="sm" data-empty-state={type}>
      {(icon ?? preset?.icon) && (
        <ThemeIcon size={variant === 'inline' ? 36 : 56} radius="xl" variant="light" color={preset?.color ?? 'gray'}>
          {icon ?? preset?.icon}
        </ThemeIcon>
      )}
      {heading && <Title order={variant === 'inline' ? 5 : 3}>{heading}</Title>}
      {body && <Text c="dimmed">{body}</Text>}
      {children}
      {action && <Button onClick={action.onClick}>{action.label}</Button>}
    </Stack>
  )
  if (variant === 'inline') return content
  if (variant === 'fullscreen') return <Center mih="100vh">{content}</Center>
  return (
    <Paper withBorder radius="lg" p="xl">
      {content}
    </Paper>
  )
}
