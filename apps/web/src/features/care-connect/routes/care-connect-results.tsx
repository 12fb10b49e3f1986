import { PRODUCT_NAMES, type SpecialtyOption } from '@citrus/contracts'
import { Alert, Button, Center, CloseButton, Container, Group, Loader, Modal, Paper, Stack, Text, Title } from '@mantine/core'
import { useMediaQuery } from '@mantine/hooks'
import { IconEdit, IconFileText, IconSearchOff } from '@tabler/icons-react'
import { useMemo, useState } from 'react'
import { useLocation, useNavigate, useSearchParams } from 'react-router'
import { isApiError } from '../../../lib/api-client'
import { useFindProviders, useRankings } from '../api/care-api'
import { ReferralLetterDialog } from '../components/referral-letter-dialog'
import { ResultsView } from '../components/results-view'
import { CareSearchForm } from '../components/search-form'
import type { Selection } from '../components/selection'
import { ShareDialog } from '../components/share-dialog'
import { useTour, type TourStep } from '../components/tour'
import { CARE_TEXT } from '../utils/messages'
import { rankingsQueryOf, searchFromParams, searchToParams } from '../utils/search-params'

export const RESULTS_TOUR: readonly TourStep[] = [
  { target: 'edit', title: 'Edit search', body: 'Change the ZIP, specialty, carrier or codes.' },
  { target: 'filter', title: CARE_TEXT.filter, body: 'Narrow the providers by type; filters apply at once.' },
  { target: 'sort', title: 'Sort', body: 'Order by overall score, affordability, quality or distance.' },
  {
    target: 'cards',
    title: 'Providers',
    body: 'Select cards to compare, copy, send to a member or put in a referral letter. Details shows the experience.',
  },
  { target: 'map', title: 'Map', body: 'Where the providers are, within the search radius.' },
  { target: 'referral', title: CARE_TEXT.referralLetter, body: 'Generate a PDF referral letter with the selected providers.' },
]

/** /care-connect-results: the referral view (spec 3 §2.2, §4). */
export function CareConnectResultsRoute() {
  const [params] = useSearchParams()
  const location = useLocation()
  const navigate = useNavigate()
  const small = useMediaQuery('(max-width: 48em)')
  const search = useMemo(() => searchFromParams(params), [params])
  const query = search.zip_code && search.omni_code ? rankingsQueryOf(search) : null
  const rankings = useRankings(query)
  const finder = useFindProviders()
  const [editing, setEditing] = useState(false)
  const [letterFor, setLetterFor] = useState<string[] | null>(null)
  const [shareFor, setShareFor] = useState<string[] | null>(null)
  const tour = useTour('care-select-results', RESULTS_TOUR)
  const [banner, setBanner] = useState(!tour.completed)
  const taxonomy = (location.state as { taxonomy?: SpecialtyOption } | null)?.taxonomy ?? null

  const npisOf = (selection: Selection) => [
    ...selection.providers.map((p) => p.hcp_entity.npi),
    ...selection.facilities.flatMap((f) => (f.hco_npi ? [f.hco_npi] : [])),
  ]

  const empty = (
    <Center py="xl">
      <Stack align="center" gap="xs">
        <IconSearchOff size={40} />
        <Title order={3}>{CARE_TEXT.noProvidersTitle}</Title>
        <Text c="dimmed">{CARE_TEXT.noProvidersMessage}</Text>
        <Button onClick={() => setEditing(true)}>{CARE_TEXT.adjustSearch}</Button>
      </Stack>
    </Center>
  )

  return (
    <Container size="xl" py="lg">
      <Stack gap="md">
        {banner && (
          <Paper withBorder radius="md" p="sm" bg="var(--mantine-color-blue-light)">
            <Group justify="space-between">
              <Text fw={600}>{CARE_TEXT.title}: a quick tour of the results</Text>
              <Group gap="xs">
                <Button
                  size="xs"
                  onClick={() => {
                    setBanner(false)
                    tour.start()
                  }}
                >
                  {CARE_TEXT.startTour}
                </Button>
                <CloseButton aria-label="Dismiss" onClick={() => setBanner(false)} />
              </Group>
            </Group>
          </Paper>
        )}
        <Group justify="flex-end">
          <Button variant="default" leftSection={<IconEdit size={16} />} onClick={() => setEditing(true)} data-tour="edit">
            Edit search
          </Button>
        </Group>
        {query === null && empty}
        {query !== null && rankings.isLoading && (
          <Center py="xl">
            <Stack align="center">
              <Loader />
              <Text>{CARE_TEXT.analyzing}</Text>
            </Stack>
          </Center>
        )}
        {rankings.isError && (
          <>
            <Alert color="red" title={`${PRODUCT_NAMES.CARE_SELECT} error`}>
              {rankings.error.message}
              {isApiError(rankings.error) ? ` (${rankings.error.code})` : ''}
            </Alert>
            {empty}
          </>
        )}
        {rankings.isSuccess && rankings.data.hcp_rankings.length + rankings.data.hco_rankings.length === 0 && empty}
        {rankings.isSuccess && rankings.data.hcp_rankings.length + rankings.data.hco_rankings.length > 0 && query && (
          <ResultsView
            key={JSON.stringify(query)}
            data={rankings.data}
            mode="referral"
            search={query}
            onSend={(selection) => setShareFor(npisOf(selection))}
            actions={(selection) => (
              <Button leftSection={<IconFileText size={16} />} onClick={() => setLetterFor(npisOf(selection))} data-tour="referral">
                {small ? CARE_TEXT.referralShort : CARE_TEXT.referralLetter}
              </Button>
            )}
          />
        )}
      </Stack>
      <Modal opened={editing} onClose={() => setEditing(false)} title={CARE_TEXT.title} size="lg">
        <CareSearchForm
          initial={{ ...search, taxonomy }}
          busy={finder.busy}
          onSubmit={(next) => {
            void finder.find(rankingsQueryOf(next.search)).finally(() => {
              setEditing(false)
              navigate(`/care-connect-results?${searchToParams(next.search).toString()}`, {
                state: { taxonomy: next.taxonomy, procedures: next.procedures, diagnoses: next.diagnoses },
              })
            })
          }}
        />
      </Modal>
      {query && (
        <ReferralLetterDialog
          opened={letterFor !== null}
          onClose={() => setLetterFor(null)}
          selectedNpis={letterFor ?? []}
          search={query}
        />
      )}
      {query && <ShareDialog opened={shareFor !== null} onClose={() => setShareFor(null)} search={query} npis={shareFor ?? []} />}
      {tour.view}
    </Container>
  )
}
