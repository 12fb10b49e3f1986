import { AI_HUB_MESSAGES, type AiHubProduct, type AiPinData, type AiPinType } from '@citrus/contracts'
import { Button, type ButtonProps } from '@mantine/core'
import { IconPin, IconPinned } from '@tabler/icons-react'
import { apiMessageOf } from '../../../lib/api-client'
import { notify } from '../../../lib/notify'
import { useAiPins, usePinInsight, useUnpinInsight } from '../api/ai-hub'

export interface SaveToHubButtonProps extends Omit<ButtonProps, 'children' | 'onClick'> {
  /** the app the insight is pinned from */
  source: AiHubProduct
  type: AiPinType
  /** the entity's id in its app: an NPI, a state code, a health-system id */
  entityKey: string
  displayName: string
  /** entity.name and entity.full_name (spec 2 §3) */
  entity?: { name: string; full_name?: string | null }
  /** metric name → value as the panel shows it (a snapshot: kept as pinned) */
  metrics: AiPinData['metrics']
  /** the button's texts: 'Save to Hub' / 'Saved to Hub' unless an app names them (Nova: 'Save to AI Hub') */
  labels?: { save: string; saved: string }
}

/**
 * 'Save to Hub' on Atlas and Nova insight panels (spec 2 §2, §4 Pinning): toggles the pin. Not saved → saved
 * ('{name} saved to AI Hub!', success); saved → not saved ('{name} removed from AI Hub', info).
 */
export function SaveToHubButton({ source, type, entityKey, displayName, entity, metrics, labels, ...buttonProps }: SaveToHubButtonProps) {
  const pins = useAiPins()
  const pin = usePinInsight()
  const unpin = useUnpinInsight()
  const existing = pins.data?.pinnedInsights.find((item) => item.type === type && item.entityKey === entityKey) ?? null
  const busy = pin.isPending || unpin.isPending || pins.isPending

  function toggle() {
    const onError = (error: Error) => notify({ severity: 'error', message: apiMessageOf(error, AI_HUB_MESSAGES.pinFailed) })
    if (existing) {
      unpin.mutate(
        { params: { pin_id: existing.id } },
        { onSuccess: () => notify({ severity: 'info', message: AI_HUB_MESSAGES.pinRemoved(displayName) }), onError },
      )
    } else {
      pin.mutate(
        { body: { type, entityKey, source, data: { entity: entity ?? { name: displayName }, display_name: displayName, metrics } } },
        { onSuccess: () => notify({ severity: 'success', message: AI_HUB_MESSAGES.pinSaved(displayName) }), onError },
      )
    }
  }

  return (
    <Button
      size="xs"
      variant={existing ? 'filled' : 'light'}
      leftSection={existing ? <IconPinned size={14} /> : <IconPin size={14} />}
      loading={busy}
      onClick={toggle}
      aria-pressed={existing !== null}
      {...buttonProps}
    >
      {existing ? (labels?.saved ?? AI_HUB_MESSAGES.savedToHub) : (labels?.save ?? AI_HUB_MESSAGES.saveToHub)}
    </Button>
  )
}
