import { Group, Stack, Text, Title } from '@mantine/core'
import type { ReactNode } from 'react'
import { AppStatusBadge, type AppStatus } from '../brand/app-status-badge'

/**
 * The title block of a page: heading with the app's status badge when it has one (Price Check: Beta),
 * optional description and actions on the right.
 */
export function PageHeader({
  title,
  description,
  actions,
  status,
}: {
  title: ReactNode
  description?: ReactNode
  actions?: ReactNode
  status?: AppStatus
}) {
  return (
    <Group justify="space-between" align="flex-start" wrap="wrap" gap="md">
      <Stack gap={4} maw={760}>
        <Group gap="sm" align="center" wrap="wrap">
          <Title order={1} fz={{ base: 24, sm: 28 }}>
            {title}
          </Title>
          {status && <AppStatusBadge status={status} />}
        </Group>
        {description && (typeof description === 'string' ? <Text c="dimmed">{description}</Text> : description)}
      </Stack>
      {actions && <Group gap="sm">{actions}</Group>}
    </Group>
  )
}
