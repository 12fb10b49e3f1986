import { plural, type Badge as BadgeData, type NovaInsight, type TopPrescriber } from '@citrus/contracts'
import { Badge, Group, Paper, Progress, SimpleGrid, Stack, Table, Tabs, Text, Title, Tooltip } from '@mantine/core'
import { useState } from 'react'
import {
  BADGE_COLORS,
  formatMetricValue,
  METRIC_TAB_LABELS,
  metricOf,
  metricTabsWithData,
  PAYER_COLORS,
  specialtyLabel,
  topEntries,
  visibleBadges,
} from '../utils/format'
import { NOVA_CLIENT_MESSAGES } from '../utils/messages'

/** At most three badges in priority order and a '+N' chip (spec 2 §9). */
export function BadgeRow({ badges }: { badges: readonly BadgeData[] }) {
  const { shown, hidden } = visibleBadges(badges)
  if (shown.length === 0) return null
  return (
    <Group gap={4} wrap="wrap">
      {shown.map((b) => (
        <Tooltip key={`${b.type}-${b.code}`} label={b.description} multiline w={260}>
          <Badge size="xs" variant="light" color={BADGE_COLORS[b.type]} data-badge={b.code}>
            {b.label}
          </Badge>
        </Tooltip>
      ))}
      {hidden > 0 && (
        <Badge size="xs" variant="outline" color="gray">
          +{hidden}
        </Badge>
      )}
    </Group>
  )
}

/** The metric values of an insight for some codes, as a compact grid. */
export function KeyMetrics({
  insight,
  codes,
  labels = {},
}: {
  insight: NovaInsight
  codes: readonly string[]
  labels?: Record<string, string>
}) {
  const metrics = codes.map((code) => metricOf(insight, code)).filter((m) => m !== undefined)
  return (
    <SimpleGrid cols={metrics.length > 2 ? 3 : metrics.length || 1} spacing="xs">
      {metrics.map((m) => (
        <Stack key={m.code} gap={0}>
          <Text size="xs" c="dimmed" lineClamp={1}>
            {labels[m.code] ?? m.name}
          </Text>
          <Text size="sm" fw={600} data-metric={m.code}>
            {formatMetricValue(m)}
          </Text>
        </Stack>
      ))}
    </SimpleGrid>
  )
}

/** Metric tabs for the categories that have data; 'No Metrics Available' when none has. */
export function MetricTabs({ insight, emptyText = NOVA_CLIENT_MESSAGES.noMetrics }: { insight: NovaInsight; emptyText?: string }) {
  const groups = metricTabsWithData(insight)
  const [active, setActive] = useState<string | null>(null)
  if (groups.length === 0) {
    return (
      <Text c="dimmed" size="sm" data-empty="metrics">
        {emptyText}
      </Text>
    )
  }
  const current = active && groups.includes(active as (typeof groups)[number]) ? active : groups[0]!
  return (
    <Tabs value={current} onChange={setActive} variant="pills" radius="md">
      <Tabs.List>
        {groups.map((g) => (
          <Tabs.Tab key={g} value={g} size="xs">
            {METRIC_TAB_LABELS[g] ?? g}
          </Tabs.Tab>
        ))}
      </Tabs.List>
      {groups.map((g) => {
        const metrics = insight.metrics[g] ?? []
        return (
          <Tabs.Panel key={g} value={g} pt="sm">
            {metrics.length === 0 ? (
              <Text c="dimmed" size="sm">
                {NOVA_CLIENT_MESSAGES.noCategoryData(METRIC_TAB_LABELS[g] ?? g)}
              </Text>
            ) : (
              <Table striped withRowBorders={false} fz="sm">
                <Table.Tbody>
                  {metrics.map((m) => (
                    <Table.Tr key={m.code}>
                      <Table.Td>
                        <Tooltip label={m.description} multiline w={280}>
                          <Text size="sm">{m.name}</Text>
                        </Tooltip>
                      </Table.Td>
                      <Table.Td ta="right" fw={600} data-metric={m.code}>
                        {formatMetricValue(m)}
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            )}
          </Tabs.Panel>
        )
      })}
    </Tabs>
  )
}

type TopKey = 'top_crofab_hcps' | 'top_anavip_hcps' | 'top_antivenom_hcps'
const TOP_TABS: { key: TopKey; label: string; value: (e: TopPrescriber) => number }[] = [
  { key: 'top_crofab_hcps', label: 'CroFab', value: (e) => e.crofab_patients_5yr },
  { key: 'top_anavip_hcps', label: 'Anavip', value: (e) => e.anavip_patients_5yr },
  { key: 'top_antivenom_hcps', label: 'All Antivenom', value: (e) => e.crofab_patients_5yr + e.anavip_patients_5yr },
]

/** Top-prescriber lists: 8 entries (4 on the health system view) and a '+N more' note. */
export function TopPrescribers({ insight, max = 8 }: { insight: NovaInsight; max?: number }) {
  const [tab, setTab] = useState<TopKey>('top_crofab_hcps')
  const anyData = TOP_TABS.some((t) => (insight[t.key] ?? []).length > 0)
  return (
    <Stack gap="xs">
      <Title order={5}>Top Prescribers</Title>
      {!anyData ? (
        <Text c="dimmed" size="sm">
          {NOVA_CLIENT_MESSAGES.noTopHcps}
        </Text>
      ) : (
        <Tabs value={tab} onChange={(v) => v && setTab(v as TopKey)} variant="outline">
          <Tabs.List>
            {TOP_TABS.map((t) => (
              <Tabs.Tab key={t.key} value={t.key} size="xs">
                {t.label}
              </Tabs.Tab>
            ))}
          </Tabs.List>
          {TOP_TABS.map((t) => {
            const { shown, more } = topEntries(insight[t.key], max)
            return (
              <Tabs.Panel key={t.key} value={t.key} pt="xs">
                {shown.length === 0 ? (
                  <Text c="dimmed" size="sm">
                    {NOVA_CLIENT_MESSAGES.noTopHcps}
                  </Text>
                ) : (
                  <Stack gap={4}>
                    {shown.map((e) => (
                      <Group key={e.npi} justify="space-between" wrap="nowrap" data-top-hcp={e.npi}>
                        <Stack gap={0} miw={0}>
                          <Text size="sm" fw={500} truncate>
                            {e.name}
                          </Text>
                          <Text size="xs" c="dimmed" truncate>
                            {[e.cms_specialization, e.city && e.state ? `${e.city}, ${e.state}` : null].filter(Boolean).join(' · ')}
                          </Text>
                        </Stack>
                        <Text size="sm" fw={600}>
                          {plural(t.value(e), 'patient')}
                        </Text>
                      </Group>
                    ))}
                    {more > 0 && (
                      <Text size="xs" c="dimmed">
                        {NOVA_CLIENT_MESSAGES.moreEntries(more)}
                      </Text>
                    )}
                  </Stack>
                )}
              </Tabs.Panel>
            )
          })}
        </Tabs>
      )}
    </Stack>
  )
}

/** The top 6 specialties of the affiliated clinicians as bars (labels over 30 characters cut to 27 + '...'). */
export function SpecialtyChart({ insight }: { insight: NovaInsight }) {
  const rows = (insight.specialty_breakdown ?? []).slice(0, 6)
  if (rows.length === 0) return null
  const max = Math.max(...rows.map((r) => r.count))
  return (
    <Stack gap={6}>
      <Title order={5}>Top Specialties</Title>
      {rows.map((r) => (
        <Stack key={r.specialty} gap={2}>
          <Group justify="space-between" wrap="nowrap">
            <Tooltip label={r.specialty}>
              <Text size="xs">{specialtyLabel(r.specialty)}</Text>
            </Tooltip>
            <Text size="xs" fw={600}>
              {r.count}
            </Text>
          </Group>
          <Progress value={(r.count / max) * 100} size="sm" />
        </Stack>
      ))}
    </Stack>
  )
}

/** Payer mix: shares to 1 decimal, largest first, colours fixed by payer type. */
export function PayerMix({ insight }: { insight: NovaInsight }) {
  if (insight.payer_mix.length === 0) return null
  return (
    <Stack gap={6}>
      <Title order={5}>Payer Mix</Title>
      <Progress.Root size="lg">
        {insight.payer_mix.map((p) => (
          <Progress.Section key={p.payer_type} value={p.share} color={PAYER_COLORS[p.payer_type]} />
        ))}
      </Progress.Root>
      <Group gap="md">
        {insight.payer_mix.map((p) => (
          <Group key={p.payer_type} gap={4} data-payer={p.payer_type}>
            <Badge size="xs" circle color={PAYER_COLORS[p.payer_type]}>
              {' '}
            </Badge>
            <Text size="xs">
              {p.label} {p.share.toFixed(1)}%
            </Text>
          </Group>
        ))}
      </Group>
    </Stack>
  )
}

export function PanelCard({ children }: { children: React.ReactNode }) {
  return (
    <Paper withBorder radius="lg" p="md">
      <Stack gap="md">{children}</Stack>
    </Paper>
  )
}
