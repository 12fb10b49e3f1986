import { FEEDBACK_MESSAGES } from '@citrus/contracts'
import { ActionIcon, Affix, Alert, Button, Modal, Stack } from '@mantine/core'
import { useMediaQuery } from '@mantine/hooks'
import { IconCheck, IconMessageCircle } from '@tabler/icons-react'
import { useEffect, useState } from 'react'
import { track } from '../../../lib/analytics'
import { useSubmitFeedback, type FeedbackRequest } from '../api/submit-feedback'
import { FeedbackForm } from './feedback-form'

/** The success banner stays 5 s (spec 1 §9). */
export const FEEDBACK_BANNER_MS = 5000

/** Floating feedback button opening the form in a modal (spec 1 §2, §4). */
export function FeedbackButton() {
  const [opened, setOpened] = useState(false)
  const submit = useSubmitFeedback()
  const [banner, setBanner] = useState(false)
  const phone = useMediaQuery('(max-width: 47.99em)', false, { getInitialValueInEffect: false })

  useEffect(() => {
    if (!banner) return
    const timer = setTimeout(() => setBanner(false), FEEDBACK_BANNER_MS)
    return () => clearTimeout(timer)
  }, [banner])

  function send(value: FeedbackRequest) {
    submit.mutate(
      { body: value },
      {
        // the banner is still shown when sending failed (spec 1 §4); the failure is recorded
        onError: () => track('error_occurred', { key: FEEDBACK_MESSAGES.failedKey }),
        onSettled: () => {
          setOpened(false)
          setBanner(true)
        },
      },
    )
  }

  return (
    <>
      {/* in the bottom-right corner, where the layout keeps room for it (FLOATING_CLEARANCE); a round icon on phones */}
      <Affix position={{ bottom: 20, right: 20 }} zIndex={150}>
        <Stack align="flex-end" gap="sm">
          {banner && (
            <Alert
              color="citrus"
              variant="filled"
              icon={<IconCheck size={18} />}
              role="status"
              withCloseButton
              onClose={() => setBanner(false)}
            >
              {FEEDBACK_MESSAGES.success}
            </Alert>
          )}
          {phone ? (
            <ActionIcon
              radius="xl"
              size={44}
              aria-label="Feedback"
              onClick={() => setOpened(true)}
              style={{ boxShadow: 'var(--mantine-shadow-md)' }}
              data-testid="feedback-button"
            >
              <IconMessageCircle size={20} />
            </ActionIcon>
          ) : (
            <Button
              radius="xl"
              h={44}
              leftSection={<IconMessageCircle size={18} />}
              onClick={() => setOpened(true)}
              style={{ boxShadow: 'var(--mantine-shadow-md)' }}
              data-testid="feedback-button"
            >
              Feedback
            </Button>
          )}
        </Stack>
      </Affix>
      <Modal opened={opened} onClose={() => setOpened(false)} title="Share your feedback" centered>
        <FeedbackForm onSubmit={send} submitting={submit.isPending} />
      </Modal>
    </>
  )
}
