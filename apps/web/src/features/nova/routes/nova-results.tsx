import { type endpoints, type EndpointInput, type NovaInsight } from '@citrus/contracts'
import { ActionIcon, Box, Button, Center, Flex, Group, LoadingOverlay, Paper, Stack, Text, Tooltip } from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import {
  IconBulb,
  IconChartBar,
  IconLayoutSidebarLeftCollapse,
  IconLayoutSidebarLeftExpand,
  IconList,
  IconMap2,
  IconSparkles,
} from '@tabler/icons-react'
import { useMemo, useState } from 'react'
import { PageHeader } from '../../../components/layouts/page-header'
import { TabHeader, useUrlTab } from '../../../components/layouts/tab-header'
import {
  useFacilityInsight,
  useNovaAccounts,
  useNovaHcps,
  useNovaMetadata,
  useNovaSummary,
  useNovaTiles,
  useTerritoryNames,
} from '../api/nova'
import { DetailArea } from '../components/detail-panels'
import { NovaHubProvider, useNovaHub, type NovaHubSlots } from '../components/hub-slots'
import { NovaMap, useTilesFlyTo } from '../components/nova-map'
import {
  DrillBreadcrumb,
  FilterBar,
  InsightList,
  InsightsFilterPanel,
  PinnedList,
  ScopeInsights,
  SidebarTabs,
  type Crumb,
  type SidebarTab,
} from '../components/sidebar'
import { useNovaFilters } from '../hooks/use-nova-filters'
import {
  backToHealthSystem,
  backToNone,
  buildAccountsRequest,
  buildHcpsRequest,
  buildTilesRequest,
  changeFilters,
  QUICK_FILTERS,
  searchWithinRegion,
  selectHealthSystem,
  selectHospital,
  shouldFetchTiles,
  type NovaFilters,
  type QuickFilterKey,
} from '../utils/filters'
import { NOVA_CLIENT_MESSAGES } from '../utils/messages'

export const NOVA_TABS = [
  { id: 'atlas', label: 'Atlas Intelligence', icon: <IconMap2 size={16} /> },
  { id: 'analytics', label: 'Market Analytics', icon: <IconChartBar size={16} /> },
  { id: 'strategy', label: 'Strategy Hub', icon: <IconSparkles size={16} /> },
] as const

/** Nova fetch debounce (spec 2 §9). */
const FETCH_DEBOUNCE_MS = 100

const attempt = <T,>(build: () => T): T | null => {
  try {
    return build()
  } catch {
    return null
  }
}

/** Debounces a request object by its content. */
function useDebouncedRequest<T>(request: T | null): T | null {
  const key = JSON.stringify(request)
  const [debounced] = useDebouncedValue(key, FETCH_DEBOUNCE_MS)
  return useMemo(() => (debounced === 'null' ? null : (JSON.parse(debounced) as T)), [debounced])
}

/** /nova-results: Atlas Intelligence (map), Market Analytics (drill-down), Strategy Hub (AI context) (spec 2 §2, §4). */
export function NovaResultsRoute({ hub = null }: { hub?: NovaHubSlots | null } = {}) {
  return (
    <NovaHubProvider value={hub}>
      <NovaResults />
    </NovaHubProvider>
  )
}

function NovaResults() {
  const [filters, setFilters] = useNovaFilters()
  const [tab, selectTab] = useUrlTab(NOVA_TABS)
  const [collapsed, setCollapsed] = useState(false)
  const [sidebarTab, setSidebarTab] = useState<SidebarTab>('list')
  const [quick, setQuick] = useState<QuickFilterKey[]>([])
  const [provider, setProvider] = useState<NovaInsight | null>(null)
  const [transition, setTransition] = useState(false)
  const metadata = useNovaMetadata(filters.novaUseCase)
  const territories = useTerritoryNames(filters.novaUseCase)
  const states = [...new Set((territories.data ?? []).map((t) => t.state))].sort()
  const onAnalytics = tab === 'analytics'
  // The Strategy Hub's sidebar drills down like Market Analytics' (systems, a system's hospitals, a hospital's HCPs):
  // it has no request of its own, and a list without one would wait forever.
  const drillList = onAnalytics || tab === 'strategy'
  const quickInputs = quick.map((k) => QUICK_FILTERS[k].filter)

  const update = (change: Partial<NovaFilters>) => setFilters((current) => changeFilters(current, change))

  // Fetch rule (spec 2 §4): analytics — HCPs of a hospital, hospitals of a system, else systems; map — facilities.
  const hcpRequest = useDebouncedRequest(drillList && filters.selectedHcoNpi ? attempt(() => buildHcpsRequest(filters, quickInputs)) : null)
  const accountsRequest = useDebouncedRequest(
    drillList
      ? filters.selectedHcoNpi
        ? null
        : attempt(() =>
            buildAccountsRequest(filters, quickInputs, {
              accountQueryType: filters.selectedCitrusSystemId ? 'FACILITY' : 'HEALTH_SYSTEM_OR_INDEPENDENT_FACILITY',
            }),
          )
      : tab === 'atlas' && (filters.selectedRegionLevel !== 'SALES_TERRITORY' || filters.selectedSalesTerritory)
        ? attempt(() => buildAccountsRequest(filters, quickInputs, { accountQueryType: 'FACILITY' }))
        : null,
  )
  const tilesRequest = useDebouncedRequest(tab === 'atlas' && shouldFetchTiles(filters) ? attempt(() => buildTilesRequest(filters)) : null)
  const accounts = useNovaAccounts(accountsRequest)
  const hcps = useNovaHcps(hcpRequest)
  const tiles = useNovaTiles(tilesRequest)
  const systemRequest: EndpointInput<typeof endpoints.nova.accounts>['body'] | null = filters.selectedCitrusSystemId
    ? attempt(() => ({
        ...buildAccountsRequest({ ...filters, selectedPage: 0 }, [], {
          accountQueryType: 'HEALTH_SYSTEM_OR_INDEPENDENT_FACILITY',
          pageSize: 1,
        }),
        filter_inputs: [{ code: 'health_system_id' as const, filter_value: filters.selectedCitrusSystemId }],
      }))
    : null
  const systemQuery = useNovaAccounts(systemRequest)
  const system = systemQuery.data?.results[0] ?? null
  const hospital = useFacilityInsight(filters.selectedHcoNpi, filters.novaUseCase)
  const summaryRequest =
    sidebarTab === 'insights' && filters.selectedMapType
      ? attempt(() => {
          const t = buildTilesRequest({ ...filters, selectedGranularity: filters.selectedGranularity || 'STATE' })
          return { geo_filter_input: t.geo_filter_input, map_selection: t.map_selection, nova_use_case: t.nova_use_case }
        })
      : null
  const summary = useNovaSummary(summaryRequest)

  if (metadata.isPending) {
    return (
      <Center py="xl">
        <Text c="dimmed">{NOVA_CLIENT_MESSAGES.loadingFilters}</Text>
      </Center>
    )
  }

  const rootLabel =
    filters.selectedRegionLevel === 'STATE'
      ? filters.selectedState || 'State'
      : filters.selectedRegionLevel === 'SALES_TERRITORY'
        ? filters.selectedSalesTerritory || 'Sales Territory'
        : 'United States'
  const crumbs: Crumb[] = [
    {
      label: rootLabel,
      onClick: () => {
        setProvider(null)
        setFilters((f) => backToNone(f))
      },
    },
  ]
  if (filters.selectedCitrusSystemId) {
    crumbs.push({
      label: system?.display_name ?? filters.selectedCitrusSystemId,
      onClick: () => {
        setProvider(null)
        setFilters((f) => backToHealthSystem(f))
      },
    })
  }
  if (filters.selectedHcoNpi)
    crumbs.push({ label: hospital.data?.display_name ?? filters.selectedHcoNpi, onClick: () => setProvider(null) })
  if (provider) crumbs.push({ label: provider.display_name })

  const pickFromList = (insight: NovaInsight) => {
    if (insight.entity_type === 'HEALTH_SYSTEM') {
      setProvider(null)
      setFilters((f) => selectHealthSystem(f, insight.citrus_id))
    } else if (insight.entity_type === 'FACILITY') {
      setProvider(null)
      setFilters((f) => selectHospital(f, insight.citrus_id))
      if (tab === 'atlas') openHospitalFromMap(insight.citrus_id)
    } else if (insight.entity_type === 'PROVIDER') {
      setProvider(insight)
    }
  }

  /** From the map side to the analytics tab at hospital level, with a short transition (~100 ms + 300 ms). */
  function openHospitalFromMap(npi: string) {
    setTransition(true)
    setTimeout(() => {
      setFilters((f) => selectHospital(f, npi), { tab: 'analytics' })
      setTimeout(() => setTransition(false), 300)
    }, 100)
  }

  const listQuery = drillList && filters.selectedHcoNpi ? hcps : accounts
  const emptyText = drillList && filters.selectedHcoNpi ? NOVA_CLIENT_MESSAGES.noProviders : 'No accounts match these filters'
  const mapOptions = metadata.data?.atlas_metadata.map_metadata.map_options ?? []

  const sidebar = collapsed ? (
    <Stack gap="xs" align="center">
      <Tooltip label={NOVA_CLIENT_MESSAGES.expandSidebar}>
        <ActionIcon variant="subtle" aria-label={NOVA_CLIENT_MESSAGES.expandSidebar} onClick={() => setCollapsed(false)}>
          <IconLayoutSidebarLeftExpand size={18} />
        </ActionIcon>
      </Tooltip>
      <ActionIcon
        variant="light"
        aria-label="Hospital List"
        onClick={() => {
          setSidebarTab('list')
          setCollapsed(false)
        }}
      >
        <IconList size={16} />
      </ActionIcon>
      <ActionIcon
        variant="light"
        aria-label="Insights"
        onClick={() => {
          setSidebarTab('insights')
          setCollapsed(false)
        }}
      >
        <IconBulb size={16} />
      </ActionIcon>
    </Stack>
  ) : (
    <Stack gap="sm">
      <Group justify="space-between" wrap="nowrap">
        <DrillBreadcrumb crumbs={crumbs} onBackToAtlas={onAnalytics ? () => selectTab('atlas') : undefined} />
        <Tooltip label={NOVA_CLIENT_MESSAGES.collapseSidebar}>
          <ActionIcon variant="subtle" aria-label={NOVA_CLIENT_MESSAGES.collapseSidebar} onClick={() => setCollapsed(true)}>
            <IconLayoutSidebarLeftCollapse size={18} />
          </ActionIcon>
        </Tooltip>
      </Group>
      <SidebarTabs value={sidebarTab} onChange={setSidebarTab} />
      {sidebarTab === 'list' && (
        <Stack gap="sm">
          <FilterBar filters={filters} onChange={update} territories={territories.data ?? []} states={states} mapOptions={mapOptions} />
          <InsightsFilterPanel
            filters={filters}
            onChange={update}
            quick={quick}
            onQuickChange={(q) => {
              setQuick(q)
              update({ selectedPage: 0 })
            }}
          />
          <InsightList
            query={listQuery}
            selectedId={provider?.citrus_id ?? filters.selectedHcoNpi}
            onSelect={pickFromList}
            page={filters.selectedPage}
            onPage={(page) => setFilters((f) => ({ ...f, selectedPage: page }))}
            emptyText={emptyText}
          />
        </Stack>
      )}
      {sidebarTab === 'insights' && <ScopeInsights summary={summary.data} />}
      {sidebarTab === 'pinned' && <PinnedList />}
    </Stack>
  )

  return (
    <Box p="md" pos="relative">
      <LoadingOverlay visible={transition} />
      <Stack gap="md">
        <PageHeader title="Nova" description={`Antivenom territory intelligence · ${rootLabel} (${searchWithinRegion(filters)})`} />
        <TabHeader tabs={NOVA_TABS} />
        {/* side by side from md (992 px); stacked on a phone, where a third of the width is ~110 px */}
        <Flex gap="md" direction={{ base: 'column', md: 'row' }} align={{ base: 'stretch', md: 'flex-start' }}>
          <Box
            w={{ base: '100%', md: collapsed ? 56 : '33%' }}
            style={{ flexShrink: 0 }}
            data-collapsed={collapsed}
            data-testid="nova-sidebar"
          >
            <Paper withBorder radius="lg" p="sm">
              {sidebar}
            </Paper>
          </Box>
          <Box flex={1} miw={0}>
            {tab === 'atlas' && (
              <MapArea tiles={tiles} filters={filters} enabled={tilesRequest !== null} onHospital={openHospitalFromMap} />
            )}
            {tab === 'analytics' && (
              <DetailArea
                key={`${filters.selectedCitrusSystemId}|${filters.selectedHcoNpi}|${provider?.citrus_id ?? ''}`}
                system={system}
                hospitalNpi={filters.selectedHcoNpi}
                provider={provider}
                useCase={filters.novaUseCase}
              />
            )}
            {tab === 'strategy' && <StrategyHubSlot />}
          </Box>
        </Flex>
      </Stack>
    </Box>
  )
}

/** The Strategy Hub tab: the AI Hub (generating against the NOVA product), when the app provides it. */
function StrategyHubSlot() {
  const hub = useNovaHub()
  return <Box data-testid="strategy-hub">{hub && <hub.StrategyHub />}</Box>
}

function MapArea({
  tiles,
  filters,
  enabled,
  onHospital,
}: {
  tiles: ReturnType<typeof useNovaTiles>
  filters: NovaFilters
  enabled: boolean
  onHospital: (npi: string) => void
}) {
  if (!enabled) {
    return (
      <Paper withBorder radius="lg" p="xl">
        <Text c="dimmed" ta="center">
          {filters.selectedRegionLevel === 'SALES_TERRITORY'
            ? 'Choose a sales territory to see its map.'
            : 'The map covers the country or a sales territory.'}
        </Text>
      </Paper>
    )
  }
  if (tiles.isPending || (tiles.isFetching && !tiles.data)) {
    return (
      <Paper withBorder radius="lg" p="xl">
        <Text c="dimmed" ta="center">
          {NOVA_CLIENT_MESSAGES.fetchingMap}
        </Text>
      </Paper>
    )
  }
  if (tiles.isError) {
    return (
      <Paper withBorder radius="lg" p="xl">
        <Stack align="center" gap="sm">
          <Text c="red">{NOVA_CLIENT_MESSAGES.mapError(tiles.error.message)}</Text>
          <Button onClick={() => void tiles.refetch()}>Retry</Button>
        </Stack>
      </Paper>
    )
  }
  return <LoadedMap tiles={tiles} data={tiles.data} selectedNpi={filters.selectedHcoNpi} onHospital={onHospital} />
}

function LoadedMap({
  tiles,
  data,
  selectedNpi,
  onHospital,
}: {
  tiles: ReturnType<typeof useNovaTiles>
  data: NonNullable<ReturnType<typeof useNovaTiles>['data']>
  selectedNpi: string
  onHospital: (npi: string) => void
}) {
  const { geojson, choropleth_legend: legend } = data
  const flyTo = useTilesFlyTo(tiles.dataUpdatedAt, geojson.features[0])
  // stable layers: the map redraws its sources only when the tiles change
  const { polygons, points, choropleth } = useMemo(() => {
    const polygons = geojson.features.filter((f) => f.properties.entity_type !== 'FACILITY')
    const points = geojson.features
      .filter((f) => f.properties.entity_type === 'FACILITY' && f.geometry?.type === 'Point')
      .map((f) => {
        const [lng, lat] = f.geometry!.coordinates as [number, number]
        return { id: f.properties.id, lat, lng, label: f.properties.label, color: f.properties.fill }
      })
    const choropleth = {
      data: { type: 'FeatureCollection', features: polygons } as unknown as GeoJSON.FeatureCollection,
      property: 'value',
      title: legend.metric_config.title,
      stops: legend.items.map((i) => ({ value: i.min_value, color: i.color })),
    }
    return { polygons, points, choropleth }
  }, [geojson, legend])
  return (
    <Stack gap="sm">
      {tiles.isFetching && (
        <Text size="xs" c="dimmed">
          {NOVA_CLIENT_MESSAGES.fetchingMap}
        </Text>
      )}
      <NovaMap choropleth={choropleth} points={points} selectedId={selectedNpi} flyTo={flyTo} onPointClick={onHospital} height={520} />
      <Paper withBorder radius="md" p="sm" data-testid="nova-legend">
        <Text size="sm" fw={600} mb={4}>
          {legend.metric_config.title}
        </Text>
        <Group gap="sm">
          {legend.items.map((i) => (
            <Group key={i.label} gap={4}>
              <Box w={14} h={14} style={{ background: i.color, borderRadius: 3, border: '1px solid #ccc' }} />
              <Text size="xs">{i.label}</Text>
            </Group>
          ))}
        </Group>
      </Paper>
      <RegionTable features={polygons} />
    </Stack>
  )
}

/** The regions of the map with their values, largest first (readable without the map, and for checking it). */
function RegionTable({ features }: { features: { properties: { id: string; label: string; value: number | null } }[] }) {
  const rows = [...features]
    .filter((f) => f.properties.value !== null)
    .sort((a, b) => (b.properties.value ?? 0) - (a.properties.value ?? 0))
    .slice(0, 10)
  if (rows.length === 0) return null
  return (
    <Paper withBorder radius="md" p="sm">
      <Stack gap={2}>
        {rows.map((f) => (
          <Group key={f.properties.id} justify="space-between" data-region={f.properties.id}>
            <Text size="sm">{f.properties.label}</Text>
            <Text size="sm" fw={600}>
              {Math.round((f.properties.value ?? 0) * 1000) / 1000}
            </Text>
          </Group>
        ))}
      </Stack>
    </Paper>
  )
}
