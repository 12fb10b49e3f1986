import { Paper, Skeleton, Stack, Text, Title } from '@mantine/core'
import { Suspense, useState } from 'react'
import { CitrusMap, useBoundaries, type ChoroplethStop } from '../../../components/map'
import { EmptyState } from '../../../components/feedback/empty-state'
import { apiMessageOf } from '../../../lib/api-client'

export const COVERAGE_TITLE = 'Geographic Coverage'
const MAP_HEIGHT = 420

/** Census population bands of the states (sequential blues). */
export const POPULATION_STOPS: ChoroplethStop[] = [
  { value: 0, color: '#d0ebff' },
  { value: 2_000_000, color: '#a5d8ff' },
  { value: 5_000_000, color: '#74c0fc' },
  { value: 10_000_000, color: '#339af0' },
  { value: 20_000_000, color: '#1864ab' },
]

/**
 * The states and counties the data platform covers, on the map every product uses (its offline basemap of
 * Census boundaries), coloured by Census population. Shown to signed-in callers: the geo endpoints need one.
 */
export function CoverageMap() {
  const states = useBoundaries({ level: 'state' })
  const [picked, setPicked] = useState<Record<string, unknown> | null>(null)
  return (
    <Stack gap="sm">
      <Title order={2} size="h3">
        {COVERAGE_TITLE}
      </Title>
      {states.isError && <EmptyState type="error" message={apiMessageOf(states.error, 'The boundaries could not be loaded.')} />}
      {states.isPending && <Skeleton h={MAP_HEIGHT} />}
      {states.isSuccess && (
        <>
          <Text c="dimmed" size="sm">
            {`${states.data.features.length} states and territories with their county outlines (U.S. Census Bureau cartographic boundaries); colour: population.`}
          </Text>
          <Paper withBorder radius="md">
            <Suspense fallback={<Skeleton h={MAP_HEIGHT} />}>
              <CitrusMap
                height={MAP_HEIGHT}
                ariaLabel="Coverage map"
                choropleth={{ data: states.data, property: 'population', title: 'Population', stops: POPULATION_STOPS }}
                onFeatureClick={setPicked}
              />
            </Suspense>
          </Paper>
          {picked && (
            <Text size="sm" data-testid="coverage-picked">
              {`${String(picked.name)}: ${typeof picked.population === 'number' ? new Intl.NumberFormat('en-US').format(picked.population) : 'population not loaded'}`}
            </Text>
          )}
        </>
      )}
    </Stack>
  )
}
