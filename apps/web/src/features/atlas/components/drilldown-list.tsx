import { ATLAS_MESSAGES, ATLAS_PAGE_SIZES, type AtlasDrilldownRequest, type AtlasInsight, type RegionType } from '@citrus/contracts'
import { Anchor, Badge, Breadcrumbs, Button, Card, Group, Pagination, Select, SimpleGrid, Stack, Text } from '@mantine/core'
import { IconArrowLeft } from '@tabler/icons-react'
import { useState } from 'react'
import { EmptyState } from '../../../components/feedback/empty-state'
import { InlineLoader } from '../../../components/feedback/loading'
import { useAtlasDrilldown } from '../api/atlas'
import { apiMessageOf } from '../../../lib/api-client'
import { keyMetrics } from '../utils/metrics'
import { SaveToHubSlot } from './hub-slots'
import type { AtlasUrlQuery } from '../utils/search-params'

export type DrillLevel =
  | { level: 'STATE' }
  | { level: 'FACILITY'; state: string; stateName: string }
  | { level: 'PROVIDER'; state: string; stateName: string; facilityId: string; facilityName: string; zip: string }

const LEVEL_NAMES = { STATE: 'States', FACILITY: 'Facilities', PROVIDER: 'Providers' } as const
const KNOWN_TYPES = new Set(['STATE', 'FACILITY', 'HEALTH_SYSTEM', 'PROVIDER', 'CountryInsight'])

function requestFor(query: AtlasUrlQuery, level: DrillLevel, page: number, pageSize: number): AtlasDrilldownRequest {
  const region: { region_level: RegionType; search_within_region: string } =
    level.level === 'STATE'
      ? { region_level: query.search_within_region_type, search_within_region: query.search_within_region }
      : level.level === 'FACILITY'
        ? { region_level: 'STATE', search_within_region: level.state }
        : { region_level: 'ZIP_CODE_50KM', search_within_region: level.zip }
  return {
    drilldown_type: level.level,
    icd10_cm_union_csv: query.codes.join(','),
    geo_filter_input: {
      code: 'region',
      filter_value: {
        filter_value_kind: 'GEO_WITHIN_REGION',
        ...region,
        ...(level.level === 'PROVIDER' ? { granularity: 'ZIP_CODE_50KM' } : {}),
      },
    },
    filter_inputs: [],
    include_payer_mix: level.level === 'STATE',
    page,
    page_size: pageSize,
    sort_input: { code: 'patient_count', sort_direction: 'DESC' },
    _bypass_cache: query._bypass_cache,
    gender: query.gender,
    min_age: query.min_age,
    max_age: query.max_age,
  }
}

function InsightCard({ insight, onOpen, onAnalyze }: { insight: AtlasInsight; onOpen?: () => void; onAnalyze?: () => void }) {
  return (
    <Card
      withBorder
      radius="md"
      p="md"
      data-insight={insight.entity_type}
      style={onOpen ? { cursor: 'pointer' } : undefined}
      onClick={onOpen}
    >
      <Group justify="space-between" wrap="nowrap">
        <Text fw={600} lineClamp={1}>
          {insight.display_name}
        </Text>
        <Badge variant="light">{insight.entity_type}</Badge>
      </Group>
      {insight.entity.city && (
        <Text size="xs" c="dimmed">
          {[insight.entity.city, insight.entity.state, insight.zip_code].filter(Boolean).join(', ')}
        </Text>
      )}
      <SimpleGrid cols={2} mt="sm" spacing="xs">
        {keyMetrics(insight).map((m) => (
          <Stack key={m.code} gap={0}>
            <Text size="xs" c="dimmed">
              {m.name}
            </Text>
            <Text fw={600}>
              {m.unit === 'PERCENT' && typeof m.value.v === 'number'
                ? `${(m.value.v * 100).toFixed(1)}%`
                : typeof m.value.v === 'number'
                  ? m.value.v.toLocaleString('en-US')
                  : String(m.value.v ?? '—')}
            </Text>
          </Stack>
        ))}
      </SimpleGrid>
      <Group mt="sm" gap="xs">
        {onAnalyze && (
          <Button
            size="xs"
            variant="subtle"
            onClick={(e) => {
              e.stopPropagation()
              onAnalyze()
            }}
          >
            Region Analysis
          </Button>
        )}
        <SaveToHubSlot insight={insight} />
      </Group>
    </Card>
  )
}

/** The drill-down card list States → Facilities → Providers with history and back (spec 2 §2, §4). */
export function DrilldownList({
  query,
  history,
  onHistoryChange,
  onAnalyze,
}: {
  query: AtlasUrlQuery
  history: DrillLevel[]
  onHistoryChange: (history: DrillLevel[]) => void
  onAnalyze: (insight: AtlasInsight) => void
}) {
  const level = history.at(-1) ?? { level: 'STATE' }
  const [page, setPage] = useState(1)
  const [pageSize, setPageSize] = useState(25)
  const drill = useAtlasDrilldown(requestFor(query, level, page - 1, pageSize))
  const go = (next: DrillLevel[]) => {
    onHistoryChange(next)
    setPage(1)
  }
  const results = (drill.data?.page_results.results ?? []).filter((r) => {
    if (KNOWN_TYPES.has(r.entity_type)) return true
    console.warn(`Skipping a card of unknown entity type ${r.entity_type}`)
    return false
  })
  const failure = level.level === 'STATE' ? ATLAS_MESSAGES.stateDrilldownFailed : ATLAS_MESSAGES.facilityDrilldownFailed
  return (
    <Stack gap="sm">
      <Group gap="xs">
        <Button
          size="xs"
          variant="subtle"
          leftSection={<IconArrowLeft size={14} />}
          disabled={history.length <= 1}
          onClick={() => go(history.slice(0, -1))}
        >
          Back
        </Button>
        <Breadcrumbs>
          {history.map((h, i) =>
            i < history.length - 1 ? (
              <Anchor key={h.level} component="button" onClick={() => go(history.slice(0, i + 1))}>
                {LEVEL_NAMES[h.level]}
              </Anchor>
            ) : (
              <Text key={h.level} fw={600}>
                {LEVEL_NAMES[h.level]}
                {h.level === 'FACILITY' ? `: ${h.stateName}` : h.level === 'PROVIDER' ? `: ${h.facilityName}` : ''}
              </Text>
            ),
          )}
        </Breadcrumbs>
      </Group>
      {drill.isPending ? (
        <InlineLoader />
      ) : drill.isError ? (
        <EmptyState type="error" title={failure} message={apiMessageOf(drill.error, failure)} />
      ) : results.length === 0 ? (
        <EmptyState
          type="no-data"
          title={ATLAS_MESSAGES.emptyItemsTitle(LEVEL_NAMES[level.level])}
          message={ATLAS_MESSAGES.emptyItemsText(LEVEL_NAMES[level.level])}
        />
      ) : (
        <SimpleGrid cols={{ base: 1, md: 2 }}>
          {results.map((insight) => (
            <InsightCard
              key={insight.citrus_id}
              insight={insight}
              onAnalyze={insight.entity_type === 'STATE' ? () => onAnalyze(insight) : undefined}
              onOpen={
                level.level === 'STATE'
                  ? () => go([...history, { level: 'FACILITY', state: insight.citrus_id, stateName: insight.display_name }])
                  : level.level === 'FACILITY'
                    ? () => {
                        if (!insight.zip_code) {
                          console.error('Facility drill-down needs a zip_code')
                          return
                        }
                        if (insight.latitude === null || insight.longitude === null) console.warn('Facility without coordinates')
                        go([
                          ...history,
                          {
                            level: 'PROVIDER',
                            state: level.state,
                            stateName: level.stateName,
                            facilityId: insight.citrus_id,
                            facilityName: insight.display_name,
                            zip: insight.zip_code,
                          },
                        ])
                      }
                    : undefined
              }
            />
          ))}
        </SimpleGrid>
      )}
      {drill.data && drill.data.page_results.total_results > 0 && (
        <Group justify="space-between">
          <Select
            w={110}
            size="xs"
            aria-label="Cards per page"
            data={ATLAS_PAGE_SIZES.map(String)}
            value={String(pageSize)}
            onChange={(v) => (setPageSize(Number(v ?? 25)), setPage(1))}
          />
          <Pagination size="sm" total={drill.data.page_results.total_pages} value={page} onChange={setPage} />
        </Group>
      )}
    </Stack>
  )
}
