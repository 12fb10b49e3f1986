import { AiContextPanel, AiHubPanel, SaveToHubButton } from '../../features/ai-hub'
import { NovaResultsRoute } from '../../features/nova/routes/nova-results'
import type { NovaHubPin, NovaHubSlots } from '../../features/nova/components/hub-slots'
import { NOVA_CLIENT_MESSAGES } from '../../features/nova/utils/messages'

const SAVE_LABELS = { save: NOVA_CLIENT_MESSAGES.saveToHub, saved: NOVA_CLIENT_MESSAGES.savedToHub }

/** Nova's 'Save to AI Hub' toggle on a detail panel: the AI Hub's button with Nova's labels, pinning with source NOVA. */
export function NovaSaveToHub({ pin }: { pin: NovaHubPin }) {
  return <SaveToHubButton source="NOVA" labels={SAVE_LABELS} {...pin} />
}

function NovaStrategyHub() {
  return <AiHubPanel productGroup="NOVA" />
}

/** The AI Hub inside Nova (spec 2 §2): server-side pins from the detail panels, the context panel, the Strategy Hub. */
const NOVA_HUB: NovaHubSlots = {
  SaveButton: NovaSaveToHub,
  StrategyHub: NovaStrategyHub,
  PinnedInsights: AiContextPanel,
}

/** /nova-results composed by the app: Nova's screen with the AI Hub's parts (a feature does not import another). */
export function NovaResultsPage() {
  return <NovaResultsRoute hub={NOVA_HUB} />
}
