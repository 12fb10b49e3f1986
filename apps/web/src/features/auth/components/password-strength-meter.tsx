import { MESSAGES, passwordCriteria, passwordScore, passwordStrength } from '@citrus/contracts'
import { Group, List, Progress, Stack, Text, ThemeIcon } from '@mantine/core'
import { IconCheck, IconX } from '@tabler/icons-react'

const LABELS: Record<keyof ReturnType<typeof passwordCriteria>, string> = {
  length: 'At least 6 characters',
  upper: 'An uppercase letter',
  lower: 'A lowercase letter',
  digit: 'A number',
  symbol: 'A symbol (#?!@$ %^&*-)',
}

const COLORS = { Weak: 'red', Medium: 'yellow', Strong: 'citrus' } as const

/** Strength meter (spec 1 §4/§5): Weak 0-2 criteria, Medium 3-4, Strong 5. */
export function PasswordStrengthMeter({ password }: { password: string }) {
  const strength = passwordStrength(password)
  const criteria = passwordCriteria(password)
  return (
    <Stack gap={6} data-testid="password-strength">
      <Group justify="space-between">
        <Text size="xs" c="dimmed">
          {MESSAGES.passwordHint}
        </Text>
        <Text size="xs" fw={700} c={COLORS[strength]} aria-live="polite">
          {strength}
        </Text>
      </Group>
      <Progress
        value={(passwordScore(password) / 5) * 100}
        color={COLORS[strength]}
        size="sm"
        aria-label={`Password strength: ${strength}`}
      />
      <List spacing={2} size="xs" center>
        {(Object.keys(LABELS) as (keyof typeof LABELS)[]).map((key) => (
          <List.Item
            key={key}
            icon={
              <ThemeIcon size={14} radius="xl" color={criteria[key] ? 'citrus' : 'gray'} variant="light">
                {criteria[key] ? <IconCheck size={10} /> : <IconX size={10} />}
              </ThemeIcon>
            }
          >
            <Text size="xs" c={criteria[key] ? undefined : 'dimmed'}>
              {LABELS[key]}
            </Text>
          </List.Item>
        ))}
      </List>
    </Stack>
  )
}
