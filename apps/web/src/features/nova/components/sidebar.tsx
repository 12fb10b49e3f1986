import { NOVA_SORT_OPTIONS, type NovaInsight, type NovaPageResults, type NovaSortKey, type TerritoryName } from '@citrus/contracts'
import {
  ActionIcon,
  Anchor,
  Breadcrumbs,
  Button,
  Chip,
  Collapse,
  Group,
  Pagination,
  Paper,
  Select,
  Stack,
  Tabs,
  Text,
  Tooltip,
  UnstyledButton,
} from '@mantine/core'
import { IconArrowLeft, IconBulb, IconFilter, IconList, IconPin, IconSortAscending, IconSortDescending } from '@tabler/icons-react'
import { useState } from 'react'
import { EmptyState } from '../../../components/feedback/empty-state'
import { PageLoader } from '../../../components/feedback/page-loader'
import { useNovaHub } from './hub-slots'
import { QUICK_FILTERS, type NovaFilters, type QuickFilterKey } from '../utils/filters'
import { BadgeRow, KeyMetrics, MetricTabs } from './insight-parts'

export type SidebarTab = 'list' | 'insights' | 'pinned'

const CARD_METRICS = ['snake_envenomination_cases_5y', 'crofab_units_used_5y', 'serb_crofab_opportunity_score'] as const
const HCP_METRICS = ['snake_envenomination_cases_5y', 'crofab_patients_5y', 'anavip_patients_5y'] as const
const CARD_LABELS: Record<string, string> = {
  snake_envenomination_cases_5y: 'Cases (5 yr)',
  crofab_units_used_5y: 'CroFab Units',
  serb_crofab_opportunity_score: 'Opportunity',
  crofab_patients_5y: 'CroFab Pts',
  anavip_patients_5y: 'Anavip Pts',
}

/** One account or provider of the list. */
export function InsightCard({ insight, selected, onSelect }: { insight: NovaInsight; selected?: boolean; onSelect: () => void }) {
  return (
    <UnstyledButton onClick={onSelect} data-insight={insight.citrus_id} aria-current={selected ? 'true' : undefined}>
      <Paper withBorder radius="md" p="sm" bg={selected ? 'var(--mantine-color-citrus-light)' : undefined}>
        <Stack gap={6}>
          <Group justify="space-between" wrap="nowrap" gap="xs">
            <Text fw={600} size="sm" lineClamp={2}>
              {insight.display_name}
            </Text>
            <Text size="xs" c="dimmed">
              {insight.entity_type === 'HEALTH_SYSTEM'
                ? 'System'
                : insight.entity_type === 'PROVIDER'
                  ? (insight.entity.cms_specialization ?? 'HCP')
                  : insight.entity.state}
            </Text>
          </Group>
          <BadgeRow badges={insight.badges} />
          <KeyMetrics insight={insight} codes={insight.entity_type === 'PROVIDER' ? HCP_METRICS : CARD_METRICS} labels={CARD_LABELS} />
        </Stack>
      </Paper>
    </UnstyledButton>
  )
}

export interface Crumb {
  label: string
  onClick?: () => void
}

/** The drill breadcrumb: optional back-to-atlas chip, territory root, system, hospital, provider (spec 2 §2). */
export function DrillBreadcrumb({ crumbs, onBackToAtlas }: { crumbs: Crumb[]; onBackToAtlas?: () => void }) {
  return (
    <Group gap="xs" wrap="wrap" data-testid="nova-breadcrumb">
      {onBackToAtlas && (
        <Chip size="xs" checked={false} onChange={onBackToAtlas} icon={<IconArrowLeft size={12} />}>
          Back to Atlas
        </Chip>
      )}
      <Breadcrumbs separator="›">
        {crumbs.map((c, i) =>
          c.onClick && i < crumbs.length - 1 ? (
            <Anchor key={`${c.label}-${i}`} size="sm" onClick={c.onClick} component="button" type="button">
              {c.label}
            </Anchor>
          ) : (
            <Text
              key={`${c.label}-${i}`}
              size="sm"
              fw={i === crumbs.length - 1 ? 600 : 400}
              aria-current={i === crumbs.length - 1 ? 'page' : undefined}
            >
              {c.label}
            </Text>
          ),
        )}
      </Breadcrumbs>
    </Group>
  )
}

/** Geographic region, sales territory or granularity, and map visualization (on the hospital list tab). */
export function FilterBar({
  filters,
  onChange,
  territories,
  states,
  mapOptions,
}: {
  filters: NovaFilters
  onChange: (change: Partial<NovaFilters>) => void
  territories: TerritoryName[]
  states: string[]
  mapOptions: { code: string; name: string }[]
}) {
  return (
    <Stack gap="xs">
      <Select
        label="Geographic region"
        size="xs"
        allowDeselect={false}
        value={filters.selectedRegionLevel || null}
        data={[
          { value: 'COUNTRY', label: 'United States' },
          { value: 'SALES_TERRITORY', label: 'Sales Territory' },
          { value: 'STATE', label: 'State' },
        ]}
        onChange={(v) =>
          v && onChange({ selectedRegionLevel: v as NovaFilters['selectedRegionLevel'], selectedState: '', selectedSalesTerritory: '' })
        }
      />
      {filters.selectedRegionLevel === 'STATE' && (
        <Select
          label="State"
          size="xs"
          searchable
          data={states}
          value={filters.selectedState || null}
          onChange={(v) => onChange({ selectedState: v ?? '' })}
        />
      )}
      {filters.selectedRegionLevel === 'SALES_TERRITORY' ? (
        <Select
          label="Sales territory"
          size="xs"
          searchable
          data={territories.map((t) => ({ value: t.name, label: `${t.name} (${t.state})` }))}
          value={filters.selectedSalesTerritory || null}
          onChange={(v) => onChange({ selectedSalesTerritory: v ?? '' })}
        />
      ) : (
        <Select
          label="Granularity"
          size="xs"
          allowDeselect={false}
          value={filters.selectedGranularity || null}
          data={[
            { value: 'SALES_TERRITORY', label: 'Sales Territory' },
            { value: 'STATE', label: 'State' },
          ]}
          onChange={(v) => v && onChange({ selectedGranularity: v })}
        />
      )}
      <Select
        label="Map visualization"
        size="xs"
        allowDeselect={false}
        value={filters.selectedMapType || null}
        data={mapOptions.map((o) => ({ value: o.code, label: o.name }))}
        onChange={(v) => v && onChange({ selectedMapType: v })}
      />
    </Stack>
  )
}

/** The collapsible filter and sort panel: quick filters, sort key and direction; filters can be cleared. */
export function InsightsFilterPanel({
  filters,
  onChange,
  quick,
  onQuickChange,
}: {
  filters: NovaFilters
  onChange: (change: Partial<NovaFilters>) => void
  quick: QuickFilterKey[]
  onQuickChange: (quick: QuickFilterKey[]) => void
}) {
  const [open, setOpen] = useState(false)
  return (
    <Stack gap={4}>
      <Group justify="space-between">
        <Button
          size="compact-xs"
          variant="subtle"
          leftSection={<IconFilter size={14} />}
          onClick={() => setOpen((o) => !o)}
          aria-expanded={open}
        >
          Filter and sort{quick.length > 0 ? ` (${quick.length})` : ''}
        </Button>
        {quick.length > 0 && (
          <Button size="compact-xs" variant="subtle" color="gray" onClick={() => onQuickChange([])}>
            Clear filters
          </Button>
        )}
      </Group>
      <Collapse expanded={open}>
        <Stack gap="xs">
          <Chip.Group multiple value={quick} onChange={(v) => onQuickChange(v as QuickFilterKey[])}>
            <Group gap={6}>
              {(Object.keys(QUICK_FILTERS) as QuickFilterKey[]).map((key) => (
                <Chip key={key} value={key} size="xs">
                  {QUICK_FILTERS[key].label}
                </Chip>
              ))}
            </Group>
          </Chip.Group>
          <Group gap="xs" wrap="nowrap">
            <Select
              aria-label="Sort by"
              size="xs"
              flex={1}
              allowDeselect={false}
              value={filters.selectedInsightsSort}
              data={NOVA_SORT_OPTIONS.map((o) => ({ value: o.code, label: o.name }))}
              onChange={(v) => v && onChange({ selectedInsightsSort: v as NovaSortKey })}
            />
            <Tooltip label={filters.insightsSortDirection === 'DESC' ? 'Descending' : 'Ascending'}>
              <ActionIcon
                variant="light"
                aria-label="Sort direction"
                data-direction={filters.insightsSortDirection}
                onClick={() => onChange({ insightsSortDirection: filters.insightsSortDirection === 'DESC' ? 'ASC' : 'DESC' })}
              >
                {filters.insightsSortDirection === 'DESC' ? <IconSortDescending size={16} /> : <IconSortAscending size={16} />}
              </ActionIcon>
            </Tooltip>
          </Group>
        </Stack>
      </Collapse>
    </Stack>
  )
}

/** A page of accounts or providers with its pagination (1-based on screen, 0-based in the filters). */
export function InsightList({
  query,
  selectedId,
  onSelect,
  page,
  onPage,
  emptyText,
}: {
  query: {
    data?: NovaPageResults | undefined
    isPending: boolean
    isError: boolean
    error: Error | null
    refetch: () => unknown
    fetchStatus?: string
  }
  selectedId?: string
  onSelect: (insight: NovaInsight) => void
  page: number
  onPage: (page: number) => void
  emptyText: string
}) {
  if (query.isError) {
    return (
      <EmptyState
        type="error"
        variant="inline"
        title="Something Went Wrong"
        message={query.error?.message ?? ''}
        action={{ label: 'Try Again', onClick: () => void query.refetch() }}
      />
    )
  }
  if (query.isPending || !query.data) return <PageLoader />
  const { results, total_pages: totalPages } = query.data
  if (results.length === 0) {
    return (
      <Text c="dimmed" size="sm" ta="center" py="md" data-empty="list">
        {emptyText}
      </Text>
    )
  }
  return (
    <Stack gap="xs">
      {results.map((r) => (
        <InsightCard key={r.citrus_id} insight={r} selected={r.citrus_id === selectedId} onSelect={() => onSelect(r)} />
      ))}
      {totalPages > 1 && (
        <Group justify="center">
          <Pagination size="sm" total={totalPages} value={Math.min(page + 1, totalPages)} onChange={(p) => onPage(p - 1)} />
        </Group>
      )}
    </Stack>
  )
}

/** Sidebar tabs: hospital list, insights, pinned insights. */
export function SidebarTabs({ value, onChange }: { value: SidebarTab; onChange: (tab: SidebarTab) => void }) {
  return (
    <Tabs value={value} onChange={(v) => v && onChange(v as SidebarTab)} fz="xs">
      <Tabs.List>
        <Tabs.Tab value="list" leftSection={<IconList size={14} />}>
          Hospital List
        </Tabs.Tab>
        <Tabs.Tab value="insights" leftSection={<IconBulb size={14} />}>
          Insights
        </Tabs.Tab>
        <Tabs.Tab value="pinned" leftSection={<IconPin size={14} />}>
          Pinned
        </Tabs.Tab>
      </Tabs.List>
    </Tabs>
  )
}

/** The scope's insight (atlas/summary): metrics of the territory. */
export function ScopeInsights({ summary }: { summary: NovaInsight | undefined }) {
  if (!summary) return <PageLoader />
  return (
    <Stack gap="sm">
      <Text fw={600}>{summary.display_name}</Text>
      <Text size="sm">{summary.summary_md.replace(/\*\*/g, '')}</Text>
      <BadgeRow badges={summary.badges} />
      <MetricTabs insight={summary} />
    </Stack>
  )
}

/** The pinned insights of the AI Hub context (the AI Hub's context panel, when the app provides it). */
export function PinnedList() {
  const hub = useNovaHub()
  return hub ? <hub.PinnedInsights /> : null
}
