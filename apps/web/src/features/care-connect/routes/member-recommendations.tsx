import { SHARE_MESSAGES, endpoints } from '@citrus/contracts'
import { Alert, Button, Center, Container, Group, Loader, Modal, Paper, Stack, Text, ThemeIcon, Title } from '@mantine/core'
import { IconAlertTriangle, IconHelpCircle, IconLock, IconSearch, IconSearchOff, IconShieldLock } from '@tabler/icons-react'
import { useMemo, useState } from 'react'
import { useNavigate, useSearchParams } from 'react-router'
import { useApiQuery } from '../../../hooks/use-api'
import { isApiError } from '../../../lib/api-client'
import { useGuestSession } from '../../../lib/guest-session'
import { isShareableTokenAccepted, markShareableTokenAccepted } from '../../../lib/guest-token-store'
import { useSession } from '../../../lib/session'
import { useRankings } from '../api/care-api'
import { AccessModal } from '../components/access-modal'
import { ResultsView } from '../components/results-view'
import { CareSearchForm } from '../components/search-form'
import { useTour, type TourStep } from '../components/tour'
import { CARE_MESSAGES_UI, CARE_TEXT } from '../utils/messages'
import { rankingsQueryOf, searchFromParams, searchToParams } from '../utils/search-params'

function FullScreen({
  icon,
  color,
  title,
  message,
  action,
}: {
  icon: React.ReactNode
  color: string
  title: string
  message: string
  action?: React.ReactNode
}) {
  return (
    <Center mih="70vh" p="xl">
      <Paper withBorder radius="lg" p="xl" maw={560}>
        <Stack align="center" ta="center">
          <ThemeIcon size={56} radius="xl" variant="light" color={color}>
            {icon}
          </ThemeIcon>
          <Title order={2}>{title}</Title>
          <Text c="dimmed">{message}</Text>
          {action}
        </Stack>
      </Paper>
    </Center>
  )
}

function Loading({ text }: { text: string }) {
  return (
    <Center mih="50vh">
      <Stack align="center">
        <Loader />
        <Text>{text}</Text>
      </Stack>
    </Center>
  )
}

/** The recommendations' tour (spec 3 §2.3), started from its button. */
export const MEMBER_TOUR: readonly TourStep[] = [
  { target: 'member-search', title: CARE_TEXT.newSearch, body: 'Look for care near another ZIP code, or for another specialty.' },
  { target: 'sort', title: 'Sort', body: 'Order by overall score, affordability, quality or distance.' },
  { target: 'cards', title: 'Recommendations', body: 'Select cards to compare them. Details shows the experience.' },
  { target: 'map', title: 'Map', body: 'Where the recommended providers are, within the search radius.' },
]

function isForbidden(error: unknown): boolean {
  return isApiError(error) && error.status === 403 && error.message === SHARE_MESSAGES.userNotAuthorized
}

/** Link tokens whose access modal was completed in this tab (the page remounts when the verified token replaces the link's). */
const acceptedTokens = new Set<string>()

/** /member-recommendations (spec 3 §2.3, §4.2, §8): access gating first, then the recommendations. */
export function MemberRecommendationsRoute() {
  const [params, setParams] = useSearchParams()
  const navigate = useNavigate()
  const session = useSession()
  const guest = useGuestSession()
  // A verified guest's page load of another URL the link allows carries no token: the tab's guest session holds it.
  const token = params.get('token') ?? (!session.authenticated && guest.status === 'active' ? guest.token : null)
  const search = useMemo(() => searchFromParams(params), [params])
  const query = search.zip_code && search.omni_code ? rankingsQueryOf(search) : null
  const [, setAcceptedVersion] = useState(0)
  const accepted = token !== null && (acceptedTokens.has(token) || isShareableTokenAccepted(token))

  const validation = useApiQuery(
    endpoints.shareableUrl.validate,
    { query: { token: token ?? '' } },
    { enabled: token !== null, retry: false },
  )
  const link = validation.data ?? (guest.status === 'active' ? guest.payload : null)
  const authorizedIds = link?.authorized_user_ids ?? null
  const userId = session.user ? Number(session.user.id) : null

  let access: 'validating' | 'granted' | 'restricted' | 'required' | 'modal'
  if (session.authenticated) {
    if (token && validation.isLoading) access = 'validating'
    // the server refuses a signed-in user the link does not list (403), on validation as on the rankings
    else if (token && isForbidden(validation.error)) access = 'restricted'
    else if (authorizedIds && (userId === null || !authorizedIds.includes(userId))) access = 'restricted'
    else access = 'granted'
  } else if (!token) access = 'required'
  else if (validation.isLoading) access = 'validating'
  else if (validation.isError || !link || link.is_expired) access = 'required'
  else if (authorizedIds && authorizedIds.length > 0) access = 'modal'
  else if (accepted) access = 'granted'
  else access = 'modal'

  // A signed-in member's rankings carry the link they opened (when it is still valid), so the server holds the
  // request to it; an anonymous holder's token is added by the transport.
  const linkToken = session.authenticated && token && validation.data && !validation.data.is_expired ? token : null
  const rankings = useRankings(query, access === 'granted', linkToken)
  if (access === 'granted' && isForbidden(rankings.error)) access = 'restricted'
  const tour = useTour('care-select-member', MEMBER_TOUR)
  const [searching, setSearching] = useState(false)

  if (access === 'validating') return <Loading text={CARE_TEXT.validatingAccess} />
  if (access === 'restricted') {
    return (
      <FullScreen
        icon={<IconShieldLock />}
        color="red"
        title={CARE_MESSAGES_UI.restrictedTitle}
        message={CARE_MESSAGES_UI.restricted}
        action={session.authenticated ? <Button onClick={() => navigate('/apps')}>{CARE_TEXT.returnToDashboard}</Button> : undefined}
      />
    )
  }
  if (access === 'required')
    return <FullScreen icon={<IconLock />} color="orange" title={CARE_MESSAGES_UI.requiredTitle} message={CARE_MESSAGES_UI.required} />
  if (access === 'modal' && token && link) {
    return (
      <>
        <Loading text={CARE_TEXT.verifyingAccess} />
        <AccessModal
          token={token}
          link={link}
          onGranted={(replacement) => {
            acceptedTokens.add(replacement ?? token)
            markShareableTokenAccepted(replacement ?? token)
            if (replacement) {
              const next = new URLSearchParams(params)
              next.set('token', replacement)
              setParams(next, { replace: true })
            }
            setAcceptedVersion((v) => v + 1)
          }}
        />
      </>
    )
  }

  // The care-search modal and the tour (spec 3 §2.3): a new search stays on this screen, with the link the member
  // opened (its token goes on), so its access rules still apply.
  const specialty = query ? rankings.data?.common_ranking_metadata.taxonomy_code_descriptions[query.omni_code] : undefined
  const chrome = (body: React.ReactNode, withTour: boolean) => (
    <Container size="xl" py="lg">
      <Stack gap="md">
        <Group justify="flex-end" gap="xs">
          {withTour && (
            <Button variant="subtle" leftSection={<IconHelpCircle size={16} />} onClick={() => tour.start(true)}>
              {CARE_TEXT.takeTour}
            </Button>
          )}
          <Button variant="default" leftSection={<IconSearch size={16} />} onClick={() => setSearching(true)} data-tour="member-search">
            {CARE_TEXT.newSearch}
          </Button>
        </Group>
        {body}
      </Stack>
      <Modal opened={searching} onClose={() => setSearching(false)} title={CARE_TEXT.title} size="lg">
        <CareSearchForm
          initial={{
            ...search,
            taxonomy: query && specialty ? { code: query.omni_code, description: specialty, genre: 'SPECIALTY', score: 1 } : null,
          }}
          onSubmit={(next) => {
            setSearching(false)
            navigate(`/member-recommendations?${searchToParams(next.search, token ? { token } : {}).toString()}`)
          }}
        />
      </Modal>
      {tour.view}
    </Container>
  )

  const none = (
    <FullScreen
      icon={<IconSearchOff />}
      color="gray"
      title={CARE_MESSAGES_UI.noRecommendationsTitle}
      message={CARE_MESSAGES_UI.noRecommendations}
    />
  )
  if (query === null) return chrome(none, false)
  if (rankings.isLoading) return <Loading text={`${CARE_TEXT.fetching} · ${CARE_TEXT.analyzing}`} />
  if (rankings.isError) {
    return chrome(
      <>
        <Alert color="yellow" title={CARE_MESSAGES_UI.accessError} icon={<IconAlertTriangle />}>
          {rankings.error.message}
        </Alert>
        <FullScreen
          icon={<IconAlertTriangle />}
          color="red"
          title={CARE_MESSAGES_UI.somethingWrong}
          message={CARE_MESSAGES_UI.somethingWrongMessage}
        />
      </>,
      false,
    )
  }
  if (!rankings.data || rankings.data.hcp_rankings.length + rankings.data.hco_rankings.length === 0) return chrome(none, false)
  return chrome(<ResultsView key={JSON.stringify(query)} data={rankings.data} mode="member" search={query} />, true)
}
