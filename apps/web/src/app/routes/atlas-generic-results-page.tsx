import { AiHubPanel, SaveToHubButton } from '../../features/ai-hub'
import { AtlasGenericResultsRoute } from '../../features/atlas/routes/atlas-generic-results'
import type { AtlasHubPin, AtlasHubSlots } from '../../features/atlas/components/hub-slots'

/** 'Save to Hub' / 'Saved to Hub' (the AI Hub's own texts and toasts, spec 2 §2). */
function AtlasSaveToHub({ pin }: { pin: AtlasHubPin }) {
  return <SaveToHubButton source="ATLAS" {...pin} />
}

function AtlasAiHub() {
  return <AiHubPanel productGroup="ATLAS" />
}

/** The AI Hub inside Atlas (spec 2 §2): server-side pins from the drill-down and detail cards, the ai-hub tab. */
const ATLAS_HUB: AtlasHubSlots = {
  SaveButton: AtlasSaveToHub,
  AiHub: AtlasAiHub,
}

/** /atlas/generic/results composed by the app: Atlas's screen with the AI Hub's parts (a feature does not import another). */
export function AtlasGenericResultsPage() {
  return <AtlasGenericResultsRoute hub={ATLAS_HUB} />
}
