import { Container, Stack, Text, Title } from '@mantine/core'
import { EmptyState } from '../../../components/feedback/empty-state'
import { InlineLoader } from '../../../components/feedback/loading'
import { track } from '../../../lib/analytics'
import { apiMessageOf } from '../../../lib/api-client'
import { useDataDictionary } from '../api/get-data-dictionary'
import { CoverageMap } from '../components/coverage-map'
import { DictionaryTabs } from '../components/dictionary-tabs'
import { useSession } from '../../../lib/session'

export const DATA_DICTIONARY_SUBTITLE = 'Explore our data dictionary and data access for your organization needs'

/** The public data dictionary page (spec 1 §1, §2). */
export function DataDictionaryRoute() {
  const dictionary = useDataDictionary()
  const session = useSession()
  return (
    <Container size="xl" py="lg">
      <Stack gap="lg">
        <Stack gap={4}>
          <Title order={1}>Data Dictionary</Title>
          <Text c="dimmed">{DATA_DICTIONARY_SUBTITLE}</Text>
        </Stack>
        {dictionary.isPending && <InlineLoader />}
        {dictionary.isError && (
          <EmptyState
            type="error"
            message={apiMessageOf(dictionary.error, 'The data dictionary could not be loaded.')}
            action={{ label: 'Try Again', onClick: () => void dictionary.refetch() }}
          />
        )}
        {dictionary.isSuccess &&
          dictionary.data.tab_sets.map((set) => (
            <DictionaryTabs
              key={set.key}
              title={set.title}
              tabs={set.tabs}
              onTabChange={(tab) => track('data_dictionary_tab_changed', { tab_set: set.key, tab: tab.key, label: tab.label })}
            />
          ))}
        {session.authenticated && <CoverageMap />}
      </Stack>
    </Container>
  )
}
