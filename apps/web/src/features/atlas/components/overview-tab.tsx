import { ATLAS_MESSAGES, type AtlasInsight } from '@citrus/contracts'
import { Button, Group, Progress, SimpleGrid, Stack, Text, Title } from '@mantine/core'
import { IconPhotoDown } from '@tabler/icons-react'
import { useRef, useState, type ReactNode } from 'react'
import { EmptyState } from '../../../components/feedback/empty-state'
import { InlineLoader } from '../../../components/feedback/loading'
import { metricValue, payerMix, payerSentence, pieGeometry, pieSlices } from '../utils/metrics'
import { exportCardsPng } from '../utils/image-export'
import { EXPORT_CARD_ATTRIBUTE, ExportableCard } from './exportable-card'
import { StatCard } from './stat-card'

const PAYER_COLORS = { commercial: '#1c7ed6', medicare: '#2f9e44', medicaid: '#f08c00', other: '#868e96' } as const

function CardTitle({ children }: { children: ReactNode }) {
  return (
    <Title order={4} mb="sm">
      {children}
    </Title>
  )
}

/** A pie of the payer shares (SVG; 5 % minimum slice, labels to one decimal). */
function PayerPie({ insight }: { insight: AtlasInsight }) {
  const shares = payerMix(insight)
  if (!shares) return <Text c="dimmed">{ATLAS_MESSAGES.noInsurance}</Text>
  const slices = pieGeometry(pieSlices(shares))
  return (
    <Group align="center" gap="lg">
      <svg viewBox="0 0 100 100" width={160} height={160} role="img" aria-label="Payer mix">
        {slices.map((s) =>
          s.display >= 99.99 ? (
            <circle key={s.key} cx={50} cy={50} r={45} fill={PAYER_COLORS[s.key]} />
          ) : (
            <path key={s.key} d={s.d} fill={PAYER_COLORS[s.key]} />
          ),
        )}
      </svg>
      <Stack gap={4}>
        {shares.map((s) => (
          <Text key={s.key} size="sm">
            <span style={{ color: PAYER_COLORS[s.key] }}>●</span> {s.label}: {s.share.toFixed(1)}%
          </Text>
        ))}
      </Stack>
    </Group>
  )
}

/** Overview tab: stat cards, National Payer Mix, Key Insights (spec 2 §2). */
export function OverviewTab({ country, loading, error }: { country: AtlasInsight | null | undefined; loading: boolean; error: boolean }) {
  if (loading) return <InlineLoader />
  if (error) return <EmptyState type="error" title={ATLAS_MESSAGES.overviewError} message={ATLAS_MESSAGES.countryFailed} />
  if (!country || (metricValue(country, 'patient_count') ?? 0) === 0)
    return <EmptyState type="no-results" title={ATLAS_MESSAGES.noResults} message={ATLAS_MESSAGES.noGeoDataCriteria} />
  const shares = payerMix(country)
  return <OverviewCards country={country} shares={shares} />
}

function OverviewCards({ country, shares }: { country: AtlasInsight; shares: ReturnType<typeof payerMix> }) {
  const container = useRef<HTMLDivElement>(null)
  const [busy, setBusy] = useState(false)
  const exportAll = async () => {
    const cards = [...(container.current?.querySelectorAll<HTMLElement>(`[${EXPORT_CARD_ATTRIBUTE}]`) ?? [])]
    setBusy(true)
    try {
      await exportCardsPng(cards.map((node) => ({ node, title: node.getAttribute(EXPORT_CARD_ATTRIBUTE) ?? '' })))
    } finally {
      setBusy(false)
    }
  }
  return (
    <Stack gap="md" ref={container}>
      <Group justify="flex-end">
        <Button size="xs" variant="light" leftSection={<IconPhotoDown size={14} />} loading={busy} onClick={() => void exportAll()}>
          Export All as PNG
        </Button>
      </Group>
      {/* columns by the width of the results panel, not of the window (the query builder takes part of it) */}
      <SimpleGrid type="container" cols={{ base: 1, '300px': 2, '540px': 3 }}>
        <StatCard label="Total Patients" value={metricValue(country, 'patient_count') ?? 0} />
        <StatCard label="Healthcare Providers" value={metricValue(country, 'provider_count') ?? 0} />
        <StatCard label="States Analyzed" value={metricValue(country, 'state_count') ?? 0} />
        <StatCard label="Health Systems" value={metricValue(country, 'health_system_count') ?? 0} />
        <StatCard label="Facilities" value={metricValue(country, 'facility_count') ?? 0} />
        <StatCard label="Total Claims" value={metricValue(country, 'claim_count') ?? 0} />
      </SimpleGrid>
      <SimpleGrid type="container" cols={{ base: 1, '600px': 2 }}>
        <ExportableCard title="National Payer Mix" heading={<CardTitle>National Payer Mix</CardTitle>} data-card="national-payer-mix">
          {shares ? (
            <Stack gap="xs">
              {shares.map((s) => (
                <div key={s.key}>
                  <Group justify="space-between">
                    <Text size="sm">{s.label}</Text>
                    <Text size="sm">{s.share.toFixed(1)}%</Text>
                  </Group>
                  <Progress value={s.share} color={PAYER_COLORS[s.key]} />
                </div>
              ))}
            </Stack>
          ) : (
            <Text c="dimmed">{ATLAS_MESSAGES.noInsurance}</Text>
          )}
        </ExportableCard>
        <ExportableCard title="Key Insights" heading={<CardTitle>Key Insights</CardTitle>} data-card="key-insights">
          <PayerPie insight={country} />
          {shares && (
            <Text size="sm" mt="sm">
              {payerSentence(shares)}
            </Text>
          )}
        </ExportableCard>
      </SimpleGrid>
    </Stack>
  )
}
