import { NOVA_DEFAULT_USE_CASE } from '@citrus/contracts'
import { Button, Container, Paper, Select, Stack, Text } from '@mantine/core'
import { IconSearch } from '@tabler/icons-react'
import { useState } from 'react'
import { useNavigate } from 'react-router'
import { QueryStatus } from '../../../components/feedback/query-status'
import { PageHeader } from '../../../components/layouts/page-header'
import { useNovaMetadata } from '../api/nova'
import { DEFAULT_NOVA_FILTERS, normalizeGranularity } from '../utils/filters'
import { NOVA_CLIENT_MESSAGES } from '../utils/messages'

/** The map type the form starts with: the option named for CroFab opportunity when present, else the first. */
export function defaultMapType(options: readonly { code: string; name: string }[]): string {
  return (options.find((o) => /crofab/i.test(o.name) && /opportunity/i.test(o.name)) ?? options[0])?.code ?? ''
}

/** /nova-search: region level, granularity and map type from the metadata call (spec 2 §2). */
export function NovaSearchRoute() {
  const metadata = useNovaMetadata(NOVA_DEFAULT_USE_CASE)
  const navigate = useNavigate()
  const [regionLevel, setRegionLevel] = useState<string>('COUNTRY')
  const [granularity, setGranularity] = useState<string>('STATE')
  const [mapType, setMapType] = useState<string | null>(null)
  const map = metadata.data?.atlas_metadata.map_metadata
  const options = map?.map_options ?? []
  const chosenMap = mapType ?? defaultMapType(options)
  // STATE is hidden from the region selector (spec 2 §2)
  const regions = (map?.region_levels ?? []).filter((r) => r.code !== 'STATE')
  const disabled = !granularity || metadata.isPending || !chosenMap

  const search = () => {
    if (disabled) return
    const params = new URLSearchParams({
      region_level: regionLevel === 'United States' ? 'COUNTRY' : regionLevel,
      granularity: normalizeGranularity(granularity),
      map_type: chosenMap,
      nova_use_case: NOVA_DEFAULT_USE_CASE,
      point_type: 'ALL',
      tab: 'atlas',
      account_query_type: 'FACILITY',
    })
    void navigate(`/nova-results?${params.toString()}`, {
      state: {
        filters: {
          ...DEFAULT_NOVA_FILTERS,
          selectedRegionLevel: regionLevel,
          selectedGranularity: granularity,
          selectedMapType: chosenMap,
        },
        metadata: metadata.data,
      },
    })
  }

  return (
    <Container size="sm" py="lg">
      <Stack gap="lg">
        <PageHeader title={NOVA_CLIENT_MESSAGES.searchTitle} description={NOVA_CLIENT_MESSAGES.searchDescription} />
        <Paper withBorder radius="lg" p="lg">
          {metadata.isPending || metadata.isError ? (
            <QueryStatus query={metadata} errorTitle="Failed to load Nova options" />
          ) : (
            <Stack gap="md">
              <Select
                label="Region level"
                allowDeselect={false}
                value={regionLevel}
                data={regions.map((r) => ({ value: r.code, label: r.name }))}
                onChange={(v) => {
                  if (!v) return
                  setRegionLevel(v)
                  if (v === 'SALES_TERRITORY') setGranularity('SALES_TERRITORY')
                }}
              />
              <Select
                label="Granularity"
                allowDeselect={false}
                value={granularity || null}
                data={(map?.granularity_options ?? []).map((g) => ({ value: g.code, label: g.name }))}
                onChange={(v) => setGranularity(v ?? '')}
              />
              <Select
                label="Map type"
                allowDeselect={false}
                value={chosenMap || null}
                data={options.map((o) => ({ value: o.code, label: o.name }))}
                onChange={(v) => v && setMapType(v)}
              />
              <Text size="sm" c="dimmed">
                Use case: SERB CroFab (snake antivenom)
              </Text>
              <Button
                leftSection={<IconSearch size={16} />}
                disabled={disabled}
                loading={metadata.isFetching && !metadata.data}
                onClick={search}
              >
                Search
              </Button>
            </Stack>
          )}
        </Paper>
      </Stack>
    </Container>
  )
}
