import { Group, Stack, Text, Title } from '@mantine/core'
import type { ReactNode } from 'react'

/** The title block of a page: heading, optional description and actions on the right. */
export function PageHeader({ title, description, actions }: { title: ReactNode; description?: ReactNode; actions?: ReactNode }) {
  return (
    <Group justify="space-between" align="flex-start" wrap="wrap" gap="md">
      <Stack gap={4} maw={760}>
        <Title order={1} fz={{ base: 24, sm: 28 }}>
          {title}
        </Title>
        {description && (typeof description === 'string' ? <Text c="dimmed">{description}</Text> : description)}
      </Stack>
      {actions && <Group gap="sm">{actions}</Group>}
    </Group>
  )
}
