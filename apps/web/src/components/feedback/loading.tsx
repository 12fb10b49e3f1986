import { Center, Group, Loader, Stack, Text } from '@mantine/core'

export const DEFAULT_LOADING_TEXT = 'Loading...'

/** Full-screen loading animation (spec 1 §2). */
export function FullScreenLoader({ text = DEFAULT_LOADING_TEXT }: { text?: string }) {
  return (
    <Center mih="100vh" role="status" aria-live="polite">
      <Stack align="center" gap="sm">
        <Loader type="dots" size="lg" />
        <Text c="dimmed">{text}</Text>
      </Stack>
    </Center>
  )
}

/** Inline loading animation. */
export function InlineLoader({ text = DEFAULT_LOADING_TEXT }: { text?: string }) {
  return (
    <Group gap="xs" role="status" aria-live="polite">
      <Loader size="sm" />
      <Text size="sm" c="dimmed">
        {text}
      </Text>
    </Group>
  )
}
