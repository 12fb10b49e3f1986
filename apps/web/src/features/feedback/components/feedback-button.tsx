import { FEEDBACK_MESSAGES } from '@citrus/contracts'
import { ActionIcon, Affix, Alert, Button, Modal } from '@mantine/core'
import { useMediaQuery } from '@mantine/hooks'
import { IconCheck, IconMessageCircle } from '@tabler/icons-react'
import { useEffect, useState } from 'react'
import { PHONE_QUERY } from '../../../components/layouts/app-layout'
import { track } from '../../../lib/analytics'
import { useSubmitFeedback, type FeedbackRequest } from '../api/submit-feedback'
import { FeedbackForm } from './feedback-form'

/** The success banner stays 5 s (spec 1 §9). */
export const FEEDBACK_BANNER_MS = 5000

/** Floating feedback button opening the form in a modal (spec 1 §2, §4); on a phone an icon in the top bar. */
export function FeedbackButton() {
  const [opened, setOpened] = useState(false)
  const submit = useSubmitFeedback()
  const [banner, setBanner] = useState(false)
  const phone = useMediaQuery(PHONE_QUERY, false, { getInitialValueInEffect: false })

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
      {phone ? (
        // on a phone: an icon in the top bar (the layout puts it there), covering nothing at the bottom
        <ActionIcon variant="subtle" size="lg" aria-label="Feedback" onClick={() => setOpened(true)} data-testid="feedback-button">
          <IconMessageCircle size={22} />
        </ActionIcon>
      ) : (
        // in the bottom-right corner, where the layout keeps room for it (FLOATING_CLEARANCE)
        <Affix position={{ bottom: 20, right: 20 }} zIndex={150}>
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
        </Affix>
      )}
      {banner && (
        <Affix position={{ bottom: phone ? 16 : 76, right: phone ? 16 : 20 }} zIndex={150}>
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
        </Affix>
      )}
      <Modal opened={opened} onClose={() => setOpened(false)} title="Share your feedback" centered>
        <FeedbackForm onSubmit={send} submitting={submit.isPending} />
      </Modal>
    </>
  )
}
