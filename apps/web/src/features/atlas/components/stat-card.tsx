import { Text } from '@mantine/core'
import { ExportableCard } from './exportable-card'

/** A stat card of the Overview; it exports itself as a PNG named after its label. */
export function StatCard({ label, value }: { label: string; value: number | string }) {
  return (
    <ExportableCard
      title={label}
      data-stat={label}
      heading={
        <Text size="sm" c="dimmed">
          {label}
        </Text>
      }
    >
      <Text fw={700} fz="xl" mt={2}>
        {typeof value === 'number' ? value.toLocaleString('en-US') : value}
      </Text>
    </ExportableCard>
  )
}
