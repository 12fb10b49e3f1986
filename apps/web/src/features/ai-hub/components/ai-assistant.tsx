import { AI_HUB_MESSAGES, aiGenerateSchema, type AiHubProduct, type AiResponse, type AiTemplate } from '@citrus/contracts'
import { Alert, Box, Button, Card, Group, LoadingOverlay, SimpleGrid, Stack, Text, Title } from '@mantine/core'
import { schemaResolver, useForm } from '@mantine/form'
import { IconChartBar, IconMap, IconSparkles } from '@tabler/icons-react'
import { useRef, useState } from 'react'
import { apiMessageOf } from '../../../lib/api-client'
import { useSession } from '../../../lib/session'
import { streamGenerate, useAiTemplates, useRecordTemplateUse } from '../api/ai-hub'
import { greetingName } from '../utils/format'
import { Composer } from './composer'
import { ResponseView } from './response-view'

/** The composer's rule: the generation request's prompt rule of the contract. */
const resolvePrompt = schemaResolver(aiGenerateSchema.pick({ prompt: true }), { sync: true })

const QUICK_STARTS = [
  { id: 'market-analysis', name: AI_HUB_MESSAGES.quickStartMarket, icon: IconChartBar },
  { id: 'territory-overview', name: AI_HUB_MESSAGES.quickStartTerritory, icon: IconMap },
] as const

/**
 * The assistant side of the AI Hub (spec 2 §2, §4): greeting and context banner, the two quick starts (only with
 * context), the composer with templates, and the response view, streamed; while nothing has arrived yet, the
 * 'Analyzing Your Data' overlay. Generation is metered against `productGroup`.
 */
export function AiAssistant({
  productGroup,
  hasContext,
  stickyComposer = true,
}: {
  productGroup: AiHubProduct
  hasContext: boolean
  stickyComposer?: boolean
}) {
  const session = useSession()
  const templates = useAiTemplates()
  const refreshTemplates = useRecordTemplateUse()
  // the composer: the question (checked with the generation request's prompt rule) and the template chosen for it
  const composer = useForm<{ prompt: string; template: AiTemplate | null }>({
    mode: 'controlled',
    initialValues: { prompt: '', template: null },
    validate: resolvePrompt,
  })
  const [templatesOpen, setTemplatesOpen] = useState(false)
  const [generating, setGenerating] = useState(false)
  const [streamed, setStreamed] = useState('')
  const [response, setResponse] = useState<AiResponse | null>(null)
  const [usedTemplate, setUsedTemplate] = useState<string | null>(null)
  const [error, setError] = useState<string | null>(null)
  const abort = useRef<AbortController | null>(null)

  /** Sends a prompt the rule accepts (the composer's, or a quick start's template); a refused one shows its message. */
  function submit(values: { prompt: string; template: AiTemplate | null }) {
    const errors = resolvePrompt(values)
    if (Object.keys(errors).length > 0) return composer.setErrors(errors)
    void generate(values.prompt, values.template)
  }

  async function generate(text: string, chosen: AiTemplate | null) {
    if (generating) return
    abort.current?.abort()
    const controller = new AbortController()
    abort.current = controller
    setGenerating(true)
    setError(null)
    setResponse(null)
    setStreamed('')
    setTemplatesOpen(false)
    setUsedTemplate(chosen?.name ?? null)
    try {
      const answer = await streamGenerate(
        { prompt: text.trim(), templateId: chosen?.id ?? null, productGroup },
        (delta) => setStreamed((current) => current + delta),
        controller.signal,
      )
      setResponse(answer)
      composer.reset()
      if (chosen) void refreshTemplates()
    } catch (caught) {
      if (caught instanceof DOMException && caught.name === 'AbortError') return
      setStreamed('')
      setError(apiMessageOf(caught, AI_HUB_MESSAGES.generateFailed))
    } finally {
      setGenerating(false)
    }
  }

  const templateList = templates.data?.templates ?? []
  const showResponse = generating || response !== null
  return (
    <Stack gap="md" pos="relative" style={{ minHeight: 320 }}>
      <LoadingOverlay
        visible={generating && streamed === ''}
        zIndex={3}
        overlayProps={{ blur: 1 }}
        loaderProps={{
          children: (
            <Stack align="center" gap="xs">
              <IconSparkles size={28} />
              <Text fw={700}>{AI_HUB_MESSAGES.overlay}</Text>
            </Stack>
          ),
        }}
      />
      {!showResponse && (
        <Stack gap="md">
          <div>
            <Title order={3}>{AI_HUB_MESSAGES.greeting(greetingName(session.user?.email))}</Title>
            <Text c="dimmed">{AI_HUB_MESSAGES.greetingPrompt}</Text>
          </div>
          <Alert color={hasContext ? 'citrus' : 'gray'} variant="light" data-testid="ai-context-banner">
            {hasContext ? AI_HUB_MESSAGES.contextLoaded : AI_HUB_MESSAGES.contextEmpty}
          </Alert>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            {QUICK_STARTS.map((quick) => {
              const definition = templateList.find((item) => item.id === quick.id) ?? null
              const enabled = hasContext && definition !== null && !generating
              return (
                <Card
                  key={quick.id}
                  withBorder
                  radius="md"
                  component="button"
                  type="button"
                  disabled={!enabled}
                  aria-disabled={!enabled}
                  onClick={() => enabled && submit({ prompt: definition.prompt, template: definition })}
                  style={{ cursor: enabled ? 'pointer' : 'not-allowed', opacity: enabled ? 1 : 0.55, textAlign: 'left' }}
                  data-testid={`ai-quick-${quick.id}`}
                >
                  <Group gap="sm" wrap="nowrap">
                    <quick.icon size={22} />
                    <div>
                      <Text fw={700}>{quick.name}</Text>
                      <Text size="xs" c="dimmed">
                        {definition?.description ?? ''}
                      </Text>
                    </div>
                  </Group>
                </Card>
              )
            })}
          </SimpleGrid>
        </Stack>
      )}
      {error && (
        <Alert
          color="red"
          variant="light"
          title={AI_HUB_MESSAGES.generateFailedTitle}
          data-testid="ai-error"
          withCloseButton
          onClose={() => setError(null)}
        >
          {error}
        </Alert>
      )}
      {showResponse && <ResponseView response={response} streamed={streamed} generating={generating} templateName={usedTemplate} />}
      {response && !generating && (
        <Group justify="flex-end">
          <Button
            size="xs"
            variant="subtle"
            onClick={() => {
              setResponse(null)
              setStreamed('')
            }}
          >
            {AI_HUB_MESSAGES.newAnalysis}
          </Button>
        </Group>
      )}
      <Box style={{ flex: 1 }} />
      <Composer
        value={composer.values.prompt}
        onChange={(prompt) => composer.setFieldValue('prompt', prompt)}
        template={composer.values.template}
        onTemplate={(template) => composer.setFieldValue('template', template)}
        templates={templateList}
        templatesOpen={templatesOpen}
        onTemplatesOpen={setTemplatesOpen}
        onSend={() => composer.onSubmit((values) => void generate(values.prompt, values.template))()}
        valid={composer.isValid()}
        error={composer.errors.prompt}
        generating={generating}
        sticky={stickyComposer}
      />
    </Stack>
  )
}
