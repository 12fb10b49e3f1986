import { AI_HUB_MESSAGES, type AiHubProduct } from '@citrus/contracts'
import { Box, Flex, Stack, Tabs } from '@mantine/core'
import { QueryStatus } from '../../../components/feedback/query-status'
import { useAiContext } from '../api/ai-hub'
import { AiAssistant } from './ai-assistant'
import { BudgetMeter } from './budget-meter'
import { DocumentLibrary } from './document-library'
import { PinnedInsights } from './pinned-insights'

/** Spec 2 §9: the generic Atlas AI panel is 320 px wide. */
export const AI_CONTEXT_PANEL_WIDTH = 320

/** The context side of the AI Hub: the budget meter and the Context (pinned insights) and Documents tabs. */
export function AiContextPanel() {
  const context = useAiContext()
  return (
    <Stack gap="sm" data-testid="ai-context-panel">
      <QueryStatus query={context} errorTitle="Error Loading AI Context" />
      {context.data && (
        <>
          <BudgetMeter totalTokens={context.data.totalTokens} maxTokens={context.data.maxTokens} />
          <Tabs defaultValue="context" keepMounted={false}>
            <Tabs.List grow>
              <Tabs.Tab value="context">Context ({context.data.pinnedInsights.length})</Tabs.Tab>
              <Tabs.Tab value="documents">Documents ({context.data.documents.length})</Tabs.Tab>
            </Tabs.List>
            <Tabs.Panel value="context" pt="sm">
              <PinnedInsights pins={context.data.pinnedInsights} />
            </Tabs.Panel>
            <Tabs.Panel value="documents" pt="sm">
              <DocumentLibrary documents={context.data.documents} />
            </Tabs.Panel>
          </Tabs>
        </>
      )}
    </Stack>
  )
}

/**
 * The whole AI Hub as one component: the 320 px context panel beside the assistant. `productGroup` is the app
 * it is shown in (ATLAS on the generic Atlas results' ai-hub tab, NOVA on Nova's Strategy Hub tab); its credits
 * pay for the answers.
 */
export function AiHubPanel({ productGroup }: { productGroup: AiHubProduct }) {
  const context = useAiContext()
  const hasContext = (context.data?.documents.length ?? 0) + (context.data?.pinnedInsights.length ?? 0) > 0
  return (
    <Flex
      direction={{ base: 'column', md: 'row' }}
      align={{ base: 'stretch', md: 'flex-start' }}
      gap="md"
      data-testid="ai-hub"
      aria-label={AI_HUB_MESSAGES.responseHeading}
    >
      <Box w={{ base: '100%', md: AI_CONTEXT_PANEL_WIDTH }} style={{ flexShrink: 0 }}>
        <AiContextPanel />
      </Box>
      <Box style={{ flex: 1, minWidth: 0 }}>
        <AiAssistant productGroup={productGroup} hasContext={hasContext} />
      </Box>
    </Flex>
  )
}
