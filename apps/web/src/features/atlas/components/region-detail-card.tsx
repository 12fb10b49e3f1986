import type { AtlasFeatureProperties } from '@citrus/contracts'
import { CloseButton, Group, Paper, Stack, Text, UnstyledButton } from '@mantine/core'

/** The feature properties the card reads (the generic response's, spec 2 §3). */
export type RegionFeatureProperties = Pick<AtlasFeatureProperties, 'label' | 'metrics'>

/** A region's metrics as the card shows them: percentages ×100 to 1 decimal, ratios to 2, counts grouped. */
export function regionDetailRows(properties: RegionFeatureProperties): { code: string; label: string; text: string }[] {
  return properties.metrics
    .filter((m) => m.value.v !== null)
    .map((m) => {
      const v = m.value.v
      const text =
        typeof v !== 'number'
          ? String(v)
          : m.unit === 'PERCENT'
            ? `${(v * 100).toFixed(1)}%`
            : m.value.value_kind === 'INT'
              ? v.toLocaleString('en-US')
              : v.toLocaleString('en-US', { maximumFractionDigits: 2, minimumFractionDigits: 2 })
      return { code: m.code, label: m.name, text }
    })
}

export type RegionCardVariant = 'region-popup' | 'fixed-card'

/**
 * The detail card a click on a map region shows (spec 2 §2 Map tab, §4 map popup variants): first as the
 * region popup over the map; clicking it promotes it to the fixed card, which stays until closed or an empty map click.
 */
export function RegionDetailCard({
  properties,
  variant,
  onPromote,
  onClose,
}: {
  properties: RegionFeatureProperties
  variant: RegionCardVariant
  onPromote: () => void
  onClose: () => void
}) {
  const rows = regionDetailRows(properties)
  const body = (
    <Stack gap={4}>
      {rows.map((row) => (
        <Group key={row.code} justify="space-between" gap="md" wrap="nowrap">
          <Text size="sm" c="dimmed">
            {row.label}
          </Text>
          <Text size="sm" fw={600} data-metric={row.code}>
            {row.text}
          </Text>
        </Group>
      ))}
    </Stack>
  )
  return (
    <Paper
      withBorder
      shadow="md"
      radius="md"
      p="sm"
      role="dialog"
      aria-label={`Region details: ${properties.label}`}
      data-variant={variant}
      style={{
        position: 'absolute',
        zIndex: 2,
        top: 12,
        left: 12,
        width: 280,
        maxWidth: 'calc(100% - 24px)',
        ...(variant === 'fixed-card' ? { borderWidth: 2 } : {}),
      }}
    >
      <Group justify="space-between" wrap="nowrap" mb={6}>
        <Text fw={700} size="sm">
          {properties.label}
        </Text>
        <CloseButton size="sm" aria-label="Close region details" onClick={onClose} />
      </Group>
      {variant === 'region-popup' ? (
        <UnstyledButton onClick={onPromote} aria-label="Pin region details" style={{ display: 'block', width: '100%' }}>
          {body}
          <Text size="xs" c="dimmed" mt={6}>
            Click to pin
          </Text>
        </UnstyledButton>
      ) : (
        body
      )}
    </Paper>
  )
}
