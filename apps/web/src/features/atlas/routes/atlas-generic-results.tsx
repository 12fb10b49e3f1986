import { ATLAS_MESSAGES, REGION_ANALYSIS_ESTIMATES, type AtlasInsight } from '@citrus/contracts'
import { Box, Button, Chip, Divider, Drawer, Group, Paper, Progress, Stack, Tabs, Text } from '@mantine/core'
import { useInterval } from '@mantine/hooks'
import { IconArrowLeft, IconDownload, IconShare } from '@tabler/icons-react'
import { useEffect, useState } from 'react'
import { useNavigate, useSearchParams } from 'react-router'
import { EmptyState } from '../../../components/feedback/empty-state'
import { notify } from '../../../lib/notify'
import { useAtlasGeneric } from '../api/atlas'
import { apiMessageOf } from '../../../lib/api-client'
import { saveBlob } from '../../../lib/save-file'
import { AtlasMapSlot } from '../components/atlas-map-slot'
import { DrilldownList, type DrillLevel } from '../components/drilldown-list'
import { AiHubSlot, AtlasHubProvider, SaveToHubSlot, type AtlasHubSlots } from '../components/hub-slots'
import { metricValue } from '../utils/metrics'
import { breadcrumbLabels, genericApiQuery, readAtlasQuery } from '../utils/search-params'

/** 'Analyzing patient data... {n}% complete': +10 every 200 ms up to 90 while searching (spec 2 §2). */
function SearchProgress() {
  const [percent, setPercent] = useState(0)
  const interval = useInterval(() => setPercent((p) => Math.min(90, p + 10)), 200)
  useEffect(() => {
    interval.start()
    return interval.stop
  }, [interval])
  return (
    <Stack align="center" py="xl" gap="sm" data-testid="atlas-progress">
      <Text>{ATLAS_MESSAGES.analyzing(percent)}</Text>
      <Progress value={percent} w={320} />
    </Stack>
  )
}

/** The drawer counts the patients of the searched codes (its 'Arthritis cases' came from a single-condition design). */
function casesLabel(codes: readonly string[]): string {
  return `Cases (${codes.length > 0 ? codes.join(', ') : 'all conditions'})`
}

const percent = (share: number) => `${Math.round(share * 1000) / 10}%`

/** The drawer's fixed rates (spec 2 §2) are the same for every condition: said so where they are shown. */
const ESTIMATES_NOTE = 'Fixed rates, the same for every condition; not measured for the searched conditions.'

async function copyUrl(url: string) {
  try {
    if (!navigator.clipboard?.writeText) throw new Error('Clipboard API unavailable')
    await navigator.clipboard.writeText(url)
    notify({ severity: 'success', message: ATLAS_MESSAGES.urlCopied })
  } catch {
    notify({ severity: 'error', message: ATLAS_MESSAGES.urlCopyFailed })
  }
}

/**
 * /atlas/generic/results: map, drill-down cards, breadcrumbs, share and GeoJSON export (spec 2 §2, §4, §8). The app
 * passes the AI Hub's parts (`hub`): the ai-hub tab and 'Save to Hub' on the cards (app/routes/atlas-generic-results-page.tsx).
 */
export function AtlasGenericResultsRoute({ hub = null }: { hub?: AtlasHubSlots | null } = {}) {
  return (
    <AtlasHubProvider value={hub}>
      <AtlasGenericResults />
    </AtlasHubProvider>
  )
}

function AtlasGenericResults() {
  const [params, setParams] = useSearchParams()
  const navigate = useNavigate()
  const query = readAtlasQuery(params)
  const generic = useAtlasGeneric(query ? genericApiQuery(query) : null)
  const [history, setHistory] = useState<DrillLevel[]>([{ level: 'STATE' }])
  const [analysis, setAnalysis] = useState<AtlasInsight | null>(null)
  const tab = params.get('tab') ?? 'overview'
  const backToSearch = () => void navigate('/atlas/generic')

  if (!query) {
    return (
      <EmptyState
        type="error"
        title={ATLAS_MESSAGES.mapLoadFailed}
        message={ATLAS_MESSAGES.missingParams}
        action={{ label: 'Back to Search', onClick: backToSearch }}
      />
    )
  }
  const labels = breadcrumbLabels(query)
  const exportGeojson = () => {
    if (!generic.data) return
    saveBlob(
      new Blob([JSON.stringify(generic.data.geojson)], { type: 'application/geo+json' }),
      `atlas-${new Date().toISOString().slice(0, 10)}.geojson`,
    )
    notify({ severity: 'success', message: ATLAS_MESSAGES.geojsonExported })
  }

  let mapArea
  if (generic.isPending) mapArea = <SearchProgress />
  else if (generic.isError)
    mapArea = (
      <EmptyState
        type="error"
        title={ATLAS_MESSAGES.mapLoadFailed}
        message={apiMessageOf(generic.error, ATLAS_MESSAGES.atlasFailed)}
        action={{ label: 'Back to Search', onClick: backToSearch }}
      />
    )
  else if (generic.data.summary.total_patients === 0)
    mapArea = (
      <EmptyState type="no-data" title={ATLAS_MESSAGES.noMapData} message={ATLAS_MESSAGES.noMapDataText}>
        <Group>
          <Button variant="light" onClick={backToSearch}>
            Adjust Filters
          </Button>
          <Button onClick={backToSearch}>Back to Search</Button>
        </Group>
      </EmptyState>
    )
  else
    mapArea = (
      <AtlasMapSlot
        height={520}
        choropleth={{
          data: generic.data.geojson as never,
          property: 'value',
          stops: generic.data.choropleth_legend.items.map((i) => ({ value: i.min_value, color: i.color })),
          title: generic.data.choropleth_legend.metric_config.title,
        }}
        onFeatureClick={(props) => {
          if (props.entity_type === 'STATE' && typeof props.id === 'string') {
            setHistory([{ level: 'STATE' }, { level: 'FACILITY', state: props.id, stateName: String(props.label ?? props.id) }])
          }
        }}
      />
    )

  const cases = analysis ? (metricValue(analysis, 'patient_count') ?? 0) : 0
  const prevalence = analysis ? metricValue(analysis, 'prevalence_per_100k') : null

  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Button variant="subtle" leftSection={<IconArrowLeft size={16} />} onClick={backToSearch}>
          Back to Search
        </Button>
        <Group gap="xs">
          <Button variant="light" leftSection={<IconShare size={16} />} onClick={() => void copyUrl(window.location.href)}>
            Share Results
          </Button>
          <Button leftSection={<IconDownload size={16} />} onClick={exportGeojson} disabled={!generic.data}>
            Export Data
          </Button>
        </Group>
      </Group>
      <Group gap="xs">
        <Chip checked={false} variant="light">
          {labels.analysis}
        </Chip>
        <Chip checked={false} variant="light">
          {labels.region}
        </Chip>
        <Chip checked={false} variant="light">
          {labels.type}
        </Chip>
      </Group>
      <Tabs value={tab} onChange={(t) => setParams((p) => (p.set('tab', t ?? 'overview'), p))}>
        <Tabs.List>
          <Tabs.Tab value="overview">Overview</Tabs.Tab>
          <Tabs.Tab value="ai-hub">AI Hub</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="overview" pt="md">
          <Group align="flex-start" wrap="nowrap" gap="md">
            <Box w="38%" miw={280}>
              <DrilldownList query={query} history={history} onHistoryChange={setHistory} onAnalyze={setAnalysis} />
            </Box>
            <Paper withBorder radius="md" p="xs" style={{ flex: 1 }} mih={520}>
              {mapArea}
            </Paper>
          </Group>
        </Tabs.Panel>
        <Tabs.Panel value="ai-hub" pt="md">
          <Box data-testid="atlas-ai-hub-panel">
            <AiHubSlot />
          </Box>
        </Tabs.Panel>
      </Tabs>
      <Drawer opened={analysis !== null} onClose={() => setAnalysis(null)} position="right" size={420} title="Region Analysis">
        {analysis && (
          <Stack gap="sm">
            <Text fw={600}>{analysis.display_name}</Text>
            <Text data-testid="region-cases">
              {casesLabel(query.codes)}: {cases.toLocaleString('en-US')}
            </Text>
            <Text>Prevalence rate: {prevalence === null ? '—' : `${prevalence.toFixed(2)} per 100,000`}</Text>
            <Divider />
            <Stack gap={4} data-testid="region-estimates">
              <Text fw={600} size="sm">
                Illustrative estimates
              </Text>
              <Text size="xs" c="dimmed">
                {ESTIMATES_NOTE}
              </Text>
              <Text>
                Trial potential: {Math.round(cases * REGION_ANALYSIS_ESTIMATES.trialEligible).toLocaleString('en-US')} eligible (assumed{' '}
                {percent(REGION_ANALYSIS_ESTIMATES.trialEligible)} of cases)
              </Text>
              <Text>
                Moderate to severe: {Math.round(cases * REGION_ANALYSIS_ESTIMATES.moderateToSevere).toLocaleString('en-US')} (assumed{' '}
                {percent(REGION_ANALYSIS_ESTIMATES.moderateToSevere)})
              </Text>
              <Text>Average diagnosis delay: {REGION_ANALYSIS_ESTIMATES.diagnosisDelayYears} years (assumed)</Text>
            </Stack>
            <Group>
              <Button variant="light">Generate AI Report</Button>
              <Button variant="light">Export Data</Button>
              <SaveToHubSlot insight={analysis} />
            </Group>
          </Stack>
        )}
      </Drawer>
    </Stack>
  )
}
