import { FEEDBACK_MESSAGES } from '@citrus/contracts'
import { Affix, Alert, Button, Modal, Stack } from '@mantine/core'
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
      <Affix position={{ bottom: 24, right: 24 }} zIndex={150}>
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
          <Button
            radius="xl"
            size="md"
            leftSection={<IconMessageCircle size={18} />}
            onClick={() => setOpened(true)}
            style={{ boxShadow: 'var(--mantine-shadow-md)' }}
          >
            Feedback
          </Button>
        </Stack>
      </Affix>
      <Modal opened={opened} onClose={() => setOpened(false)} title="Share your feedback" centered>
        <FeedbackForm onSubmit={send} submitting={submit.isPending} />
      </Modal>
    </>
  )
}
