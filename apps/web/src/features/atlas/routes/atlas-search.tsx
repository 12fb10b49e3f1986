import {
  ATLAS_MESSAGES,
  ATLAS_QUERY_BUILDER_COLLAPSED_KEY,
  ATLAS_ZIP_PATTERN,
  atlasSearchFormSchema,
  plural,
  type AtlasListRow,
} from '@citrus/contracts'
import { Badge, Button, Card, Group, Radio, ScrollArea, Stack, Tabs, Text, Title, Tooltip } from '@mantine/core'
import { schemaResolver, useForm, type FormErrors } from '@mantine/form'
import { IconLock } from '@tabler/icons-react'
import { useState } from 'react'
import { useSearchParams } from 'react-router'
import { EmptyState } from '../../../components/feedback/empty-state'
import { InlineLoader } from '../../../components/feedback/loading'
import { notify } from '../../../lib/notify'
import { useAtlasDrilldown, useAtlasGeneric, useAtlasHome } from '../api/atlas'
import { apiMessageOf } from '../../../lib/api-client'
import { tilesUrl } from '../api/tiles'
import { AtlasMapSlot } from '../components/atlas-map-slot'
import { ConditionPicker } from '../components/condition-picker'
import { RegionDetailCard, type RegionCardVariant } from '../components/region-detail-card'
import { ListTab } from '../components/list-tab'
import { OverviewTab } from '../components/overview-tab'
import { ResizablePanelLayout } from '../components/resizable-panel-layout'
import { ZipInput } from '../components/zip-input'
import { ATLAS_QUERY_BUILDER_WIDTH_KEY } from '../utils/panel-width'
import { genericApiQuery, readAtlasQuery, writeAtlasQuery, type Condition } from '../utils/search-params'

/** The seven preset HCPCS options and the sample NDC list (spec 2 §2); always locked in this form. */
export const HCPCS_PRESETS = [
  { code: 'J0178', label: 'Aflibercept injection, 1 mg' },
  { code: 'J9035', label: 'Bevacizumab injection, 10 mg' },
  { code: 'J2778', label: 'Ranibizumab injection, 0.1 mg' },
  { code: '99213', label: 'Office outpatient visit, established' },
  { code: '99214', label: 'Office outpatient visit, detailed' },
  { code: 'G0438', label: 'Annual wellness visit, initial' },
  { code: 'G0439', label: 'Annual wellness visit, subsequent' },
] as const
export const SAMPLE_NDCS = ['61755-0005', '50242-0080', '50242-0060', '0002-1433', '0169-4060', '0310-6205', '50090-0152'] as const

/** The query builder's values: the chosen conditions, the region scope and the custom ZIP codes. */
interface QueryBuilderValues {
  conditions: Condition[]
  scope: 'national' | 'custom-zips'
  zips: string[]
}

const resolveQueryBuilder = schemaResolver(atlasSearchFormSchema, { sync: true })
/** The query builder's errors by the contract's atlasSearchFormSchema, the codes' error on the condition picker. */
function queryBuilderErrors(values: QueryBuilderValues): FormErrors {
  const { codes, ...rest } = resolveQueryBuilder({ codes: values.conditions.map((c) => c.code), scope: values.scope, zips: values.zips })
  return codes ? { ...rest, conditions: codes } : rest
}

function LockedCard({ title, children }: { title: string; children: React.ReactNode }) {
  const premium = () =>
    notify({
      severity: 'warning',
      title: ATLAS_MESSAGES.premiumProcedureTitle,
      message: `${ATLAS_MESSAGES.premiumProcedure}. ${ATLAS_MESSAGES.learnMore}`,
      duration: 6000,
    })
  return (
    <Card withBorder radius="md" p="sm" onClick={premium} style={{ cursor: 'pointer', opacity: 0.7 }} data-locked-card={title}>
      <Group justify="space-between">
        <Text fw={600}>{title}</Text>
        <Badge leftSection={<IconLock size={12} />} variant="light" color="yellow">
          PRO
        </Badge>
      </Group>
      {children}
    </Card>
  )
}

/** /atlas-search: the condition-based query builder and its results (spec 2 §2, §4, §5). */
export function AtlasSearchRoute() {
  const [params, setParams] = useSearchParams()
  const urlQuery = readAtlasQuery(params)
  const home = useAtlasHome()
  const form = useForm<QueryBuilderValues>({
    mode: 'controlled',
    initialValues: {
      conditions: (urlQuery?.codes ?? []).map((code) => ({ code, description: code, title: code })),
      scope: urlQuery?.search_within_region_type === 'ZIP_CODE_50KM' ? 'custom-zips' : 'national',
      zips: urlQuery?.search_within_region_type === 'ZIP_CODE_50KM' ? urlQuery.search_within_region.split(',') : [],
    },
    validate: queryBuilderErrors,
  })
  const { conditions, scope, zips } = form.values
  // the form's errors show once Search was pressed, then follow every change; Reset starts over (@mantine/form 9 keeps
  // no submit count, hence `attempted`). Search itself waits for a query the form's rules accept.
  const [attempted, setAttempted] = useState(false)
  const change = (values: Partial<QueryBuilderValues>) => {
    form.setValues(values)
    if (attempted) form.validate()
  }
  const customAllowed = home.data?.features.customZips?.unlocked ?? false

  const validZips = zips.filter((z) => ATLAS_ZIP_PATTERN.test(z))
  const conditionError = (form.errors.conditions as string | undefined) ?? null
  const zipError = (form.errors.zips as string | undefined) ?? null
  const valid = form.isValid()

  const generic = useAtlasGeneric(urlQuery ? genericApiQuery(urlQuery) : null)
  // the region a map click selected: its detail card reads the full properties of the response's feature
  const [selectedRegion, setSelectedRegion] = useState<{ id: string; variant: RegionCardVariant } | null>(null)
  const selectedFeature = selectedRegion
    ? (generic.data?.geojson.features.find((f) => String(f.properties.id) === selectedRegion.id && !f.properties.has_marker)?.properties ??
      null)
    : null
  const country = useAtlasDrilldown(
    urlQuery
      ? {
          drilldown_type: 'COUNTRY',
          icd10_cm_union_csv: urlQuery.codes.join(','),
          geo_filter_input: {
            code: 'region',
            filter_value: {
              filter_value_kind: 'GEO_WITHIN_REGION',
              region_level: urlQuery.search_within_region_type,
              search_within_region: urlQuery.search_within_region,
            },
          },
          filter_inputs: [],
          include_payer_mix: true,
          page: 0,
          page_size: 1,
          _bypass_cache: false,
        }
      : null,
  )
  const status = !urlQuery
    ? attempted && !valid
      ? 'invalid'
      : 'idle'
    : generic.isPending
      ? 'loading'
      : generic.isError
        ? 'error'
        : 'success'

  const submit = form.onSubmit(
    () => run(),
    () => console.warn('Atlas search: the form is not valid'),
  )
  const search = () => {
    setAttempted(true)
    submit()
  }
  const run = () => {
    const next = writeAtlasQuery({
      codes: conditions.map((c) => c.code),
      tile_granularity: 'STATE',
      search_within_region: scope === 'national' ? 'US' : validZips.join(','),
      search_within_region_type: scope === 'national' ? 'COUNTRY' : 'ZIP_CODE_50KM',
      include_census_data: false,
      include_hco_points: false,
      _bypass_cache: false,
      gender: null,
      min_age: null,
      max_age: null,
    })
    next.set('view', params.get('view') ?? 'overview')
    setParams(next)
  }
  const reset = () => {
    form.setValues({ conditions: [], zips: [], scope: 'national' })
    setAttempted(false)
    setParams(new URLSearchParams())
  }
  const view = params.get('view') ?? 'overview'
  const listQuery = urlQuery
    ? {
        icd10_cm_union_csv: urlQuery.codes.join(','),
        search_within_region: urlQuery.search_within_region,
        search_within_region_type: urlQuery.search_within_region_type,
      }
    : null

  const left = (
    <ScrollArea h="100%">
      <Stack gap="md" p="xs">
        <Title order={3}>Query Builder</Title>
        <ConditionPicker value={conditions} onChange={(next) => change({ conditions: next })} error={conditionError} />
        <Radio.Group label="Region" value={scope} onChange={(v) => change({ scope: v as 'national' | 'custom-zips' })}>
          <Stack gap={6} mt={6}>
            <Radio value="national" label="National" />
            <Tooltip label={ATLAS_MESSAGES.customZipTooltip} disabled={customAllowed}>
              <div>
                <Radio value="custom-zips" label="Custom ZIP codes" disabled={!customAllowed} />
              </div>
            </Tooltip>
          </Stack>
        </Radio.Group>
        {scope === 'custom-zips' && <ZipInput value={zips} onChange={(next) => change({ zips: next })} error={zipError} />}
        <LockedCard title="Procedure codes (HCPCS)">
          <Text size="xs" c="dimmed">
            {HCPCS_PRESETS.map((p) => `${p.code} ${p.label}`).join(' · ')}
          </Text>
        </LockedCard>
        <LockedCard title="NDC medications">
          <Text size="xs" c="dimmed">
            {SAMPLE_NDCS.join(', ')}
          </Text>
        </LockedCard>
        <Stack gap={4}>
          <Button onClick={search} disabled={!valid || status === 'loading'} loading={status === 'loading'}>
            Search
          </Button>
          {conditions.length === 0 && (
            <Text size="xs" c="dimmed">
              {ATLAS_MESSAGES.selectConditionHelper}
            </Text>
          )}
          <Button variant="subtle" onClick={reset}>
            Reset
          </Button>
        </Stack>
      </Stack>
    </ScrollArea>
  )

  let right
  if (status === 'idle' || status === 'invalid')
    right = <EmptyState type="info" title={ATLAS_MESSAGES.emptyTitle} message={ATLAS_MESSAGES.selectConditionHelper} />
  else if (status === 'error')
    right = (
      <EmptyState
        type="error"
        title={ATLAS_MESSAGES.searchFailedTitle}
        message={apiMessageOf(generic.error, ATLAS_MESSAGES.searchFailed)}
      />
    )
  else
    right = (
      <Tabs value={view} onChange={(v) => setParams((p) => (p.set('view', v ?? 'overview'), p))} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="overview">Overview</Tabs.Tab>
          <Tabs.Tab value="list">List</Tabs.Tab>
          <Tabs.Tab value="map">Map</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="overview" pt="md">
          <OverviewTab
            country={country.data?.page_results.results[0]}
            loading={country.isPending || generic.isPending}
            error={country.isError}
          />
        </Tabs.Panel>
        <Tabs.Panel value="list" pt="md">
          {listQuery && (
            <ListTab
              query={listQuery}
              home={home.data}
              onApplyFilter={(row: AtlasListRow) => setParams((p) => (p.set('view', 'map'), p.set('focus', row.state), p))}
            />
          )}
        </Tabs.Panel>
        <Tabs.Panel value="map" pt="md">
          {generic.isPending ? (
            <InlineLoader />
          ) : generic.isError ? (
            <EmptyState type="error" title={ATLAS_MESSAGES.mapError} message={apiMessageOf(generic.error, ATLAS_MESSAGES.atlasFailed)} />
          ) : !generic.data || generic.data.summary.total_patients === 0 ? (
            <EmptyState type="no-data" title={ATLAS_MESSAGES.noGeoData} message={ATLAS_MESSAGES.noGeoDataCriteria} />
          ) : (
            <Stack>
              <div style={{ position: 'relative' }}>
                <AtlasMapSlot
                  height={560}
                  choropleth={{
                    data: generic.data.geojson as never,
                    property: 'value',
                    stops: generic.data.choropleth_legend.items.map((i) => ({ value: i.min_value, color: i.color })),
                    title: generic.data.choropleth_legend.metric_config.title,
                  }}
                  onFeatureClick={(props) => {
                    const id = String(props.id ?? '')
                    notify({ message: ATLAS_MESSAGES.viewingRegion(id) })
                    // a new region replaces the popup and a fixed card alike (the card of the region last clicked)
                    setSelectedRegion({ id, variant: 'region-popup' })
                  }}
                  // an empty click clears selection and popups, the fixed card included (spec 2, Map selection)
                  onEmptyClick={() => setSelectedRegion(null)}
                />
                {selectedFeature && selectedRegion && (
                  <RegionDetailCard
                    properties={selectedFeature}
                    variant={selectedRegion.variant}
                    onPromote={() => setSelectedRegion({ id: selectedRegion.id, variant: 'fixed-card' })}
                    onClose={() => setSelectedRegion(null)}
                  />
                )}
              </div>
              <Text size="xs" c="dimmed" data-tiles-url={tilesUrl(genericApiQuery(urlQuery!))}>
                {plural(generic.data.summary.total_patients, 'patient')} in {plural(generic.data.summary.region_count, 'region')}
              </Text>
            </Stack>
          )}
        </Tabs.Panel>
      </Tabs>
    )

  return (
    <ResizablePanelLayout
      left={left}
      right={right}
      panelLabel="query builder"
      widthKey={ATLAS_QUERY_BUILDER_WIDTH_KEY}
      collapsedKey={ATLAS_QUERY_BUILDER_COLLAPSED_KEY}
      header={{ title: 'Atlas Search' }}
    />
  )
}
