import { Affix, Badge, Button, Container, Group, Modal, Paper, Stack, Text, Title } from '@mantine/core'
import { useMediaQuery } from '@mantine/hooks'
import { IconSearch } from '@tabler/icons-react'
import { useState } from 'react'
import { useNavigate, useSearchParams } from 'react-router'
import { PriceCheckForm, type PriceCheckSearch } from '../components/price-check-form'
import { PRICE_CHECK_MESSAGES, formFromQuery, formQuery, resultsUrl } from '../utils/price-check'

/** Compact layouts show the form in a dialog opened by a floating search button (spec 3 §2.6). */
export const COMPACT_QUERY = '(max-width: 48em)'

/**
 * /price-check (member, admin, citrus, user): compare what a procedure costs near a ZIP (spec 3 §2.6).
 * The form mirrors itself in the address bar (zip, insurance, codes, procedure) and searches by opening
 * /price-check/results with the chosen procedure in the navigation state.
 */
export function PriceCheckRoute() {
  const [params, setParams] = useSearchParams()
  const navigate = useNavigate()
  const compact = useMediaQuery(COMPACT_QUERY) ?? false
  const [dialogOpen, setDialogOpen] = useState(false)
  const [search, setSearch] = useState<PriceCheckSearch>(() => formFromQuery(params))

  const change = (next: PriceCheckSearch) => {
    setSearch(next)
    setParams(formQuery(next), { replace: true })
  }
  const form = (onCancel?: () => void) => (
    <PriceCheckForm
      value={search}
      onChange={change}
      onCancel={onCancel}
      onSearch={(chosen) => {
        setDialogOpen(false)
        void navigate(resultsUrl(chosen), { state: { procedure: chosen.procedure } })
      }}
    />
  )

  return (
    <Container size="sm" py="xl">
      <Stack gap="lg">
        <div>
          <Group gap="xs">
            <Title order={2}>Price Check</Title>
            <Badge variant="light">{PRICE_CHECK_MESSAGES.beta}</Badge>
          </Group>
          <Text c="dimmed">Compare what a procedure costs at facilities near you, with your insurance or in cash.</Text>
        </div>
        {compact ? (
          <>
            <Text size="sm" c="dimmed">
              Tap the search button to start.
            </Text>
            <Modal opened={dialogOpen} onClose={() => setDialogOpen(false)} title="Price Check" fullScreen>
              {form(() => setDialogOpen(false))}
            </Modal>
            <Affix position={{ bottom: 24, right: 24 }}>
              <Button
                radius="xl"
                size="lg"
                leftSection={<IconSearch size={18} />}
                onClick={() => setDialogOpen(true)}
                aria-label="Open search"
              >
                Search
              </Button>
            </Affix>
          </>
        ) : (
          <Paper withBorder radius="lg" p="lg">
            {form()}
          </Paper>
        )}
      </Stack>
    </Container>
  )
}
