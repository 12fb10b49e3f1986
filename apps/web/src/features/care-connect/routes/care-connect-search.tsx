import { Container, Paper, Stack, Text, Title } from '@mantine/core'
import { useState } from 'react'
import { useNavigate } from 'react-router'
import { useFindProviders } from '../api/care-api'
import { CareSearchForm } from '../components/search-form'
import { useTour, WelcomeModal, type TourStep } from '../components/tour'
import { CARE_TEXT } from '../utils/messages'
import { rankingsQueryOf, searchToParams } from '../utils/search-params'

export const SEARCH_TOUR: readonly TourStep[] = [
  { target: 'zip', title: CARE_TEXT.zipLabel, body: "Enter the patient's 5-digit ZIP code: the search looks for care around it." },
  { target: 'taxonomy', title: CARE_TEXT.specialtyLabel, body: 'Choose the kind of provider the patient needs.' },
  { target: 'insurance', title: CARE_TEXT.insuranceLabel, body: 'Optional: in-network providers of this carrier are ranked first.' },
  {
    target: 'advanced',
    title: CARE_TEXT.advancedFilters,
    body: 'Optional: procedures and diagnoses focus quality on the care the patient needs.',
  },
]

/** /care-connect-search (spec 3 §2.1). */
export function CareConnectSearchRoute() {
  const navigate = useNavigate()
  const finder = useFindProviders()
  const tour = useTour('care-select-search', SEARCH_TOUR)
  const [welcome, setWelcome] = useState(!tour.completed)
  return (
    <Container size="sm" py="xl">
      <Stack gap="lg">
        <div>
          <Title order={1}>{CARE_TEXT.title}</Title>
          <Text c="dimmed">{CARE_TEXT.subtitle}</Text>
        </div>
        <Paper withBorder radius="lg" p="lg">
          <CareSearchForm
            busy={finder.busy}
            onSubmit={({ search, taxonomy, procedures, diagnoses }) => {
              void finder
                .find(rankingsQueryOf(search))
                .finally(() =>
                  navigate(`/care-connect-results?${searchToParams(search).toString()}`, { state: { taxonomy, procedures, diagnoses } }),
                )
            }}
          />
        </Paper>
      </Stack>
      <WelcomeModal
        opened={welcome}
        title={CARE_TEXT.welcomeTitle}
        message="Take a short tour of the search: the ZIP code, the specialty, the insurance carrier and the advanced filters."
        onStart={() => {
          setWelcome(false)
          tour.start()
        }}
        onSkip={() => {
          setWelcome(false)
          tour.end()
        }}
      />
      {tour.view}
    </Container>
  )
}
