import { Group, Text, ThemeIcon } from '@mantine/core'
import { IconLemon2 } from '@tabler/icons-react'

/** The Citrus mark; `compact` shows only the icon (collapsed sidebar). */
export function Logo({ compact = false, inverted = false }: { compact?: boolean; inverted?: boolean }) {
  return (
    <Group gap={8} wrap="nowrap" aria-label="Citrus">
      <ThemeIcon size={compact ? 36 : 32} radius="md" variant={inverted ? 'white' : 'filled'}>
        <IconLemon2 size={20} />
      </ThemeIcon>
      {!compact && (
        <Text fw={800} fz="xl" c={inverted ? 'white' : undefined} style={{ letterSpacing: '-0.02em' }}>
          Citrus
        </Text>
      )}
    </Group>
  )
}
