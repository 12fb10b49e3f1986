import { NOVA_DEFAULT_USE_CASE, novaSearchFormSchema } from '@citrus/contracts'
import { Button, Container, Paper, Select, Stack, Text } from '@mantine/core'
import { schemaResolver, useForm } from '@mantine/form'
import { IconSearch } from '@tabler/icons-react'
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

interface NovaSearchValues {
  region_level: string
  granularity: string
  /** null until one is chosen: the metadata's default (defaultMapType) */
  map_type: string | null
}

const resolveSearch = schemaResolver(novaSearchFormSchema, { sync: true })

/**
 * /nova-search: region level, granularity and map type from the metadata call (spec 2 §2), on @mantine/form and
 * checked with the contract's novaSearchFormSchema (the parameters /nova-results asks atlas/tiles with).
 */
export function NovaSearchRoute() {
  const metadata = useNovaMetadata(NOVA_DEFAULT_USE_CASE)
  const navigate = useNavigate()
  const map = metadata.data?.atlas_metadata.map_metadata
  const options = map?.map_options ?? []
  /** The values as the results page gets them: the default map type filled in, the granularity normalised. */
  const chosen = (values: NovaSearchValues) => ({
    region_level: values.region_level === 'United States' ? 'COUNTRY' : values.region_level,
    granularity: normalizeGranularity(values.granularity),
    map_type: values.map_type ?? defaultMapType(options),
  })
  const form = useForm<NovaSearchValues>({
    mode: 'controlled',
    initialValues: { region_level: 'COUNTRY', granularity: 'STATE', map_type: null },
    validate: (values) => resolveSearch(chosen(values)),
  })
  const { region_level: regionLevel, granularity } = form.values
  const chosenMap = chosen(form.values).map_type
  // STATE is hidden from the region selector (spec 2 §2)
  const regions = (map?.region_levels ?? []).filter((r) => r.code !== 'STATE')
  const disabled = !granularity || metadata.isPending || !chosenMap

  const search = form.onSubmit((values) => {
    if (disabled) return
    const params = new URLSearchParams({
      ...chosen(values),
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
  })

  return (
    <Container size="sm" py="lg">
      <Stack gap="lg">
        <PageHeader title={NOVA_CLIENT_MESSAGES.searchTitle} description={NOVA_CLIENT_MESSAGES.searchDescription} />
        <Paper withBorder radius="lg" p="lg">
          {metadata.isPending || metadata.isError ? (
            <QueryStatus query={metadata} errorTitle="Failed to load Nova options" />
          ) : (
            <form onSubmit={search} noValidate aria-label="Nova search">
              <Stack gap="md">
                <Select
                  label="Region level"
                  allowDeselect={false}
                  value={regionLevel}
                  data={regions.map((r) => ({ value: r.code, label: r.name }))}
                  error={form.errors.region_level}
                  onChange={(v) => {
                    if (!v) return
                    form.setFieldValue('region_level', v)
                    if (v === 'SALES_TERRITORY') form.setFieldValue('granularity', 'SALES_TERRITORY')
                  }}
                />
                <Select
                  label="Granularity"
                  allowDeselect={false}
                  value={granularity || null}
                  data={(map?.granularity_options ?? []).map((g) => ({ value: g.code, label: g.name }))}
                  error={form.errors.granularity}
                  onChange={(v) => form.setFieldValue('granularity', v ?? '')}
                />
                <Select
                  label="Map type"
                  allowDeselect={false}
                  value={chosenMap || null}
                  data={options.map((o) => ({ value: o.code, label: o.name }))}
                  error={form.errors.map_type}
                  onChange={(v) => v && form.setFieldValue('map_type', v)}
                />
                <Text size="sm" c="dimmed">
                  Use case: SERB CroFab (snake antivenom)
                </Text>
                <Button
                  type="submit"
                  leftSection={<IconSearch size={16} />}
                  disabled={disabled}
                  loading={metadata.isFetching && !metadata.data}
                >
                  Search
                </Button>
              </Stack>
            </form>
          )}
        </Paper>
      </Stack>
    </Container>
  )
}
