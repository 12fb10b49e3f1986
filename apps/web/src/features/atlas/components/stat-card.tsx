import { Paper, Stack, Text } from '@mantine/core'

export function StatCard({ label, value }: { label: string; value: number | string }) {
  return (
    <Paper withBorder radius="md" p="md" data-stat={label}>
      <Stack gap={2}>
        <Text size="sm" c="dimmed">
          {label}
        </Text>
        <Text fw={700} fz="xl">
          {typeof value === 'number' ? value.toLocaleString('en-US') : value}
        </Text>
      </Stack>
    </Paper>
  )
}
