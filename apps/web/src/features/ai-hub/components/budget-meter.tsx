import { AI_MAX_CONTEXT_TOKENS } from '@citrus/contracts'
import { Group, Progress, Text } from '@mantine/core'
import { formatTokens } from '../utils/format'

/** The token budget meter: context tokens of the 32,000 (spec 2 §9). */
export function BudgetMeter({ totalTokens, maxTokens = AI_MAX_CONTEXT_TOKENS }: { totalTokens: number; maxTokens?: number }) {
  const share = Math.min(100, (totalTokens / maxTokens) * 100)
  const color = share >= 90 ? 'red' : share >= 70 ? 'yellow' : 'citrus'
  return (
    <div data-testid="ai-budget">
      <Group justify="space-between" mb={4}>
        <Text size="xs" c="dimmed">
          Context
        </Text>
        <Text size="xs" fw={600} data-testid="ai-budget-text">
          {formatTokens(totalTokens)} / {formatTokens(maxTokens)} tokens
        </Text>
      </Group>
      <Progress
        value={share}
        color={color}
        size="sm"
        aria-label={`${formatTokens(totalTokens)} of ${formatTokens(maxTokens)} tokens used`}
      />
    </div>
  )
}
