import { Button, Group, Modal, Paper, Portal, Stack, Text } from '@mantine/core'
import { useCallback, useState } from 'react'

/** The onboarding cookie (spec 3 §4.6, §9): completed flows, 10 years. */
export const ONBOARDING_COOKIE = 'onboardingFlows'
const TEN_YEARS_S = 10 * 365 * 24 * 60 * 60
export const TOUR_START_DELAY_MS = 100
/** How often, and how long apart, a tour whose targets are not all on the page yet looks again before it starts. */
export const TOUR_START_RETRIES = 10
export const TOUR_RETRY_DELAY_MS = 500

export function completedFlows(): string[] {
  const match = document.cookie.split('; ').find((part) => part.startsWith(`${ONBOARDING_COOKIE}=`))
  if (!match) return []
  try {
    const value = JSON.parse(decodeURIComponent(match.slice(ONBOARDING_COOKIE.length + 1))) as unknown
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []
  } catch {
    return []
  }
}
export function markFlowCompleted(flow: string) {
  const flows = [...new Set([...completedFlows(), flow])]
  document.cookie = `${ONBOARDING_COOKIE}=${encodeURIComponent(JSON.stringify(flows))}; max-age=${TEN_YEARS_S}; path=/; SameSite=Lax`
}

export interface TourStep {
  target: string
  title: string
  body: string
}

/** A guided tour over `[data-tour=...]` targets: Next stops at the last step, Back floors at 0; ending or skipping completes it. */
export function useTour(flow: string, steps: readonly TourStep[]) {
  const [step, setStep] = useState<number | null>(null)
  const completed = completedFlows().includes(flow)
  /** `again`: a tour the user asks for by name (a button) runs even when its flow was completed */
  const start = useCallback(
    (again = false) => {
      if (!again && completedFlows().includes(flow)) return
      const ready = () => steps.every((s) => document.querySelector(`[data-tour="${s.target}"]`))
      // spec 3 §4.6: the tour starts once every target is on the page; until then its start is delayed (with a
      // warning), and after TOUR_START_RETRIES delays it starts anyway, a step without its target placed near the top
      const attempt = (retriesLeft: number) => {
        if (ready() || retriesLeft === 0) setStep(0)
        else {
          if (retriesLeft === TOUR_START_RETRIES) console.warn(`Tour ${flow}: not every target is on the page yet; starting later`)
          setTimeout(() => attempt(retriesLeft - 1), TOUR_RETRY_DELAY_MS)
        }
      }
      setTimeout(() => attempt(TOUR_START_RETRIES), TOUR_START_DELAY_MS)
    },
    [flow, steps],
  )
  const end = useCallback(() => {
    markFlowCompleted(flow)
    setStep(null)
  }, [flow])
  const current = step === null ? null : steps[step]
  const rect = current ? document.querySelector(`[data-tour="${current.target}"]`)?.getBoundingClientRect() : undefined
  const view =
    current && step !== null ? (
      <Portal>
        <Paper
          shadow="xl"
          withBorder
          radius="md"
          p="md"
          maw={320}
          data-testid="tour-step"
          style={{
            position: 'fixed',
            zIndex: 400,
            top: Math.min((rect?.bottom ?? 80) + 8, window.innerHeight - 180),
            left: Math.max(8, Math.min(rect?.left ?? 80, window.innerWidth - 340)),
          }}
        >
          <Stack gap="xs">
            <Text fw={700}>{current.title}</Text>
            <Text size="sm">{current.body}</Text>
            <Group justify="space-between">
              <Text size="xs" c="dimmed">
                {step + 1} / {steps.length}
              </Text>
              <Group gap={4}>
                <Button size="xs" variant="subtle" onClick={end}>
                  Skip
                </Button>
                <Button size="xs" variant="default" disabled={step === 0} onClick={() => setStep((s) => Math.max(0, (s ?? 0) - 1))}>
                  Back
                </Button>
                {step < steps.length - 1 ? (
                  <Button size="xs" onClick={() => setStep((s) => Math.min(steps.length - 1, (s ?? 0) + 1))}>
                    Next
                  </Button>
                ) : (
                  <Button size="xs" onClick={end}>
                    Done
                  </Button>
                )}
              </Group>
            </Group>
          </Stack>
        </Paper>
      </Portal>
    ) : null
  return { start, end, completed, active: step !== null, view }
}

export function WelcomeModal({
  opened,
  title,
  message,
  onStart,
  onSkip,
}: {
  opened: boolean
  title: string
  message: string
  onStart: () => void
  onSkip: () => void
}) {
  return (
    <Modal opened={opened} onClose={onSkip} title={title} centered>
      <Stack>
        <Text>{message}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={onSkip}>
            Skip
          </Button>
          <Button onClick={onStart}>Start Tour</Button>
        </Group>
      </Stack>
    </Modal>
  )
}
