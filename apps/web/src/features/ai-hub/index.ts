/**
 * The AI Hub feature (spec 2 §2-§9): composed into the generic Atlas results' ai-hub tab and Nova's Strategy Hub
 * tab by the app, with `productGroup` naming the app; `SaveToHubButton` goes on their insight panels.
 */
export { AiHubPanel, AiContextPanel, AI_CONTEXT_PANEL_WIDTH } from './components/ai-hub-panel'
export { AiAssistant } from './components/ai-assistant'
export { SaveToHubButton, type SaveToHubButtonProps } from './components/save-to-hub-button'
