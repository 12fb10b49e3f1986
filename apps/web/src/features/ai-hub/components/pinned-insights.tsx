import { AI_HUB_MESSAGES, AI_TOKENS_PER_PIN, PRODUCT_NAMES, type AiPin } from '@citrus/contracts'
import { ActionIcon, Badge, Button, Group, Paper, Stack, Text, Tooltip } from '@mantine/core'
import { IconGripVertical, IconPinned, IconX } from '@tabler/icons-react'
import { useState, type KeyboardEvent } from 'react'
import { apiMessageOf } from '../../../lib/api-client'
import { notify } from '../../../lib/notify'
import { useClearPins, useReorderPins, useUnpinInsight } from '../api/ai-hub'
import { move } from '../utils/format'

function metricSummary(pin: AiPin): string {
  return Object.entries(pin.data.metrics)
    .filter(([, value]) => value !== null && value !== '')
    .slice(0, 3)
    .map(([name, value]) => `${name}: ${typeof value === 'number' ? value.toLocaleString('en-US') : String(value)}`)
    .join(' • ')
}

/**
 * Pinned Insights (spec 2 §2): reorder by dragging or from the keyboard (focus the handle, then Arrow Up / Arrow
 * Down), unpin, 'Clear All Pinned'; the empty texts of the spec.
 */
export function PinnedInsights({ pins }: { pins: readonly AiPin[] }) {
  // the order being saved, shown until the server's list (refetched by the mutation) replaces it
  const [pending, setPending] = useState<AiPin[] | null>(null)
  const order = pending ?? pins
  const [dragged, setDragged] = useState<number | null>(null)
  const reorder = useReorderPins()
  const unpin = useUnpinInsight()
  const clear = useClearPins()

  function commit(next: AiPin[]) {
    setPending(next)
    reorder.mutate(
      { body: { ids: next.map((pin) => pin.id) } },
      {
        onSettled: () => setPending(null),
        onError: (error) => {
          notify({ severity: 'error', message: apiMessageOf(error, AI_HUB_MESSAGES.reorderFailed) })
        },
      },
    )
  }

  function onHandleKey(event: KeyboardEvent<HTMLButtonElement>, index: number) {
    const to = event.key === 'ArrowUp' ? index - 1 : event.key === 'ArrowDown' ? index + 1 : null
    if (to === null || to < 0 || to >= order.length) return
    event.preventDefault()
    commit(move(order, index, to))
    // keep the focus on the moved item's handle
    requestAnimationFrame(() => document.querySelector<HTMLButtonElement>(`[data-pin-handle="${to}"]`)?.focus())
  }

  if (order.length === 0) {
    return (
      <Stack gap={4} align="center" py="md" data-testid="ai-pins-empty">
        <IconPinned size={22} />
        <Text size="sm" fw={600}>
          {AI_HUB_MESSAGES.pinsEmpty}
        </Text>
        <Text size="xs" c="dimmed" ta="center">
          {AI_HUB_MESSAGES.pinsEmptyHint}
        </Text>
      </Stack>
    )
  }

  return (
    <Stack gap={6}>
      <Stack gap={6} data-testid="ai-pins" role="list">
        {order.map((pin, index) => (
          <Paper
            key={pin.id}
            withBorder
            p="xs"
            radius="md"
            role="listitem"
            data-testid="ai-pin"
            draggable
            onDragStart={() => setDragged(index)}
            onDragOver={(event) => event.preventDefault()}
            onDrop={(event) => {
              event.preventDefault()
              if (dragged !== null && dragged !== index) commit(move(order, dragged, index))
              setDragged(null)
            }}
            onDragEnd={() => setDragged(null)}
            style={{ opacity: dragged === index ? 0.5 : 1 }}
          >
            <Group gap="xs" wrap="nowrap" justify="space-between">
              <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
                <ActionIcon
                  variant="subtle"
                  color="gray"
                  aria-label={`Reorder ${pin.data.display_name} (Arrow Up / Arrow Down)`}
                  data-pin-handle={index}
                  onKeyDown={(event) => onHandleKey(event, index)}
                  style={{ cursor: 'grab' }}
                >
                  <IconGripVertical size={16} />
                </ActionIcon>
                <div style={{ minWidth: 0 }}>
                  <Group gap={6} wrap="nowrap">
                    <Text size="sm" fw={600} truncate>
                      {pin.data.display_name}
                    </Text>
                    <Badge size="xs" variant="light">
                      {pin.type}
                    </Badge>
                  </Group>
                  <Text size="xs" c="dimmed" truncate>
                    {PRODUCT_NAMES[pin.source]}
                    {metricSummary(pin) ? ` • ${metricSummary(pin)}` : ''}
                  </Text>
                </div>
              </Group>
              <Tooltip label={`Unpin (${AI_TOKENS_PER_PIN} tokens)`}>
                <ActionIcon
                  variant="subtle"
                  color="gray"
                  aria-label={`Unpin ${pin.data.display_name}`}
                  onClick={() =>
                    unpin.mutate(
                      { params: { pin_id: pin.id } },
                      {
                        onSuccess: () => notify({ severity: 'info', message: AI_HUB_MESSAGES.pinRemoved(pin.data.display_name) }),
                        onError: (error) => notify({ severity: 'error', message: apiMessageOf(error, AI_HUB_MESSAGES.pinFailed) }),
                      },
                    )
                  }
                >
                  <IconX size={16} />
                </ActionIcon>
              </Tooltip>
            </Group>
          </Paper>
        ))}
      </Stack>
      <Button
        variant="subtle"
        color="red"
        size="xs"
        loading={clear.isPending}
        onClick={() =>
          clear.mutate({}, { onError: (error) => notify({ severity: 'error', message: apiMessageOf(error, AI_HUB_MESSAGES.clearFailed) }) })
        }
      >
        {AI_HUB_MESSAGES.clearPinned}
      </Button>
    </Stack>
  )
}
