import {
  AI_COMPOSER_MAX_ROWS,
  AI_COMPOSER_MIN_ROWS,
  AI_HUB_MESSAGES,
  AI_MAX_PROMPT_CHARS,
  AI_TEMPLATE_CATEGORIES,
  type AiTemplate,
} from '@citrus/contracts'
import { ActionIcon, Badge, Group, Paper, ScrollArea, Stack, Text, Textarea, Tooltip, UnstyledButton } from '@mantine/core'
import { IconSend, IconTemplate, IconX } from '@tabler/icons-react'
import type { KeyboardEvent, ReactNode } from 'react'

export interface ComposerProps {
  value: string
  onChange: (value: string) => void
  template: AiTemplate | null
  onTemplate: (template: AiTemplate | null) => void
  templates: readonly AiTemplate[]
  templatesOpen: boolean
  onTemplatesOpen: (open: boolean) => void
  /** sends the prompt through the form's validation (a refused prompt shows `error` and is not sent) */
  onSend: () => void
  /** the prompt passes the form's validation (the generation request's prompt rule) */
  valid: boolean
  /** the prompt's validation message, shown under it */
  error?: ReactNode
  generating: boolean
  sticky?: boolean
}

const CATEGORY_LABEL: Record<AiTemplate['category'], string> = {
  analysis: 'Analysis',
  strategy: 'Strategy',
  communication: 'Communication',
  planning: 'Planning',
}

/**
 * The composer (spec 2 §2, §4, §5): Enter sends, Shift+Enter adds a newline, Escape closes the template list
 * and clears the text; a character count; 1 to 6 rows; disabled while generating; Send is enabled only for a prompt
 * the form's validation accepts, and Enter on another shows its message. Picking a template fills the prompt and
 * shows the removable 'Using template' chip.
 */
export function Composer(props: ComposerProps) {
  const { value, onChange, template, onTemplate, templates, templatesOpen, onTemplatesOpen, onSend, valid, error, generating } = props
  const canSend = valid && !generating

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault()
      if (!generating) onSend()
    } else if (event.key === 'Escape') {
      event.preventDefault()
      onTemplatesOpen(false)
      onChange('')
      onTemplate(null)
    }
  }

  return (
    <Paper
      withBorder
      radius="lg"
      p="sm"
      shadow="sm"
      // sticky above the room the layout keeps for the floating Feedback button
      style={
        props.sticky
          ? { position: 'sticky', bottom: 'var(--citrus-floating-clearance, 0px)', zIndex: 2, background: 'var(--mantine-color-body)' }
          : undefined
      }
    >
      {templatesOpen && (
        <ScrollArea.Autosize mah={260} mb="xs" data-testid="ai-templates">
          <Stack gap="xs">
            {AI_TEMPLATE_CATEGORIES.map((category) => (
              <div key={category}>
                <Text size="xs" fw={700} c="dimmed" tt="uppercase" mb={4}>
                  {CATEGORY_LABEL[category]}
                </Text>
                <Stack gap={4}>
                  {templates
                    .filter((item) => item.category === category)
                    .map((item) => (
                      <UnstyledButton
                        key={item.id}
                        onClick={() => {
                          onTemplate(item)
                          onChange(item.prompt)
                          onTemplatesOpen(false)
                        }}
                        p={6}
                        style={{ borderRadius: 'var(--mantine-radius-sm)' }}
                        data-testid={`ai-template-${item.id}`}
                      >
                        <Group justify="space-between" wrap="nowrap">
                          <div>
                            <Text size="sm" fw={600}>
                              {item.name}
                            </Text>
                            <Text size="xs" c="dimmed">
                              {item.description}
                            </Text>
                          </div>
                          {item.usageCount > 0 && (
                            <Badge size="xs" variant="light" color="gray">
                              used {item.usageCount}×
                            </Badge>
                          )}
                        </Group>
                      </UnstyledButton>
                    ))}
                </Stack>
              </div>
            ))}
          </Stack>
        </ScrollArea.Autosize>
      )}
      {template && (
        <Badge
          mb="xs"
          variant="light"
          rightSection={
            <ActionIcon size="xs" variant="transparent" aria-label="Remove template" onClick={() => onTemplate(null)}>
              <IconX size={12} />
            </ActionIcon>
          }
          data-testid="ai-using-template"
        >
          {AI_HUB_MESSAGES.usingTemplate}: {template.name}
        </Badge>
      )}
      <Textarea
        aria-label="Ask the AI assistant"
        placeholder={AI_HUB_MESSAGES.composerPlaceholder}
        // 1 to 6 rows by the lines typed (spec 2 §9)
        rows={Math.min(AI_COMPOSER_MAX_ROWS, Math.max(AI_COMPOSER_MIN_ROWS, value.split('\n').length))}
        maxLength={AI_MAX_PROMPT_CHARS}
        value={value}
        disabled={generating}
        onChange={(event) => onChange(event.currentTarget.value)}
        onKeyDown={onKeyDown}
        error={error}
        variant="unstyled"
      />
      <Group justify="space-between" mt={4}>
        <Tooltip label="Templates">
          <ActionIcon
            variant="subtle"
            aria-label="Templates"
            aria-expanded={templatesOpen}
            onClick={() => onTemplatesOpen(!templatesOpen)}
            disabled={generating}
          >
            <IconTemplate size={18} />
          </ActionIcon>
        </Tooltip>
        <Group gap="xs">
          <Text size="xs" c="dimmed" data-testid="ai-char-count">
            {value.length}/{AI_MAX_PROMPT_CHARS}
          </Text>
          <ActionIcon aria-label="Send" onClick={onSend} disabled={!canSend} variant="filled">
            <IconSend size={16} />
          </ActionIcon>
        </Group>
      </Group>
    </Paper>
  )
}
