import { AI_COPIED_MS, AI_HUB_MESSAGES, type AiResponse } from '@citrus/contracts'
import { Badge, Blockquote, Button, Collapse, Group, Paper, Stack, Text, Title, UnstyledButton } from '@mantine/core'
import { IconCopy, IconDownload } from '@tabler/icons-react'
import { useEffect, useState } from 'react'
import { notify } from '../../../lib/notify'
import { AnswerContent } from './answer-content'

function download(name: string, type: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type }))
  const link = document.createElement('a')
  link.href = url
  link.download = name
  link.click()
  setTimeout(() => URL.revokeObjectURL(url), 1000)
}

function asMarkdown(response: AiResponse): string {
  const sources = response.citations.map((c) => `- ${c.marker} ${c.documentTitle}, ${c.pageUnit} ${c.page}: "${c.text}"`).join('\n')
  return `# ${AI_HUB_MESSAGES.responseHeading}\n\n**Prompt:** ${response.prompt}\n\n${response.content}\n\n## ${AI_HUB_MESSAGES.sources}\n\n${sources}\n\n_Model: ${response.model}; ${response.tokensUsed} tokens; ${response.generatedAt}_\n`
}

/**
 * The response view (spec 2 §2): heading, status line, metadata chips, the content (streamed as it arrives),
 * copy ('Copied!' for 2 s), export, and the collapsible 'Sources & Citations'.
 */
export function ResponseView({
  response,
  streamed,
  generating,
  templateName,
}: {
  response: AiResponse | null
  streamed: string
  generating: boolean
  templateName?: string | null
}) {
  const [copied, setCopied] = useState(false)
  const [sourcesOpen, setSourcesOpen] = useState(true)
  useEffect(() => {
    if (!copied) return
    const timer = setTimeout(() => setCopied(false), AI_COPIED_MS)
    return () => clearTimeout(timer)
  }, [copied])

  const content = response?.content ?? streamed
  async function copy() {
    try {
      await navigator.clipboard.writeText(content)
      setCopied(true)
    } catch {
      notify({ severity: 'error', message: AI_HUB_MESSAGES.copyFailed })
    }
  }

  return (
    <Paper withBorder radius="lg" p="md" data-testid="ai-response">
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start">
          <div>
            <Title order={4}>{AI_HUB_MESSAGES.responseHeading}</Title>
            <Text size="xs" c="dimmed" data-testid="ai-status">
              {generating ? AI_HUB_MESSAGES.statusGenerating : AI_HUB_MESSAGES.statusComplete}
            </Text>
          </div>
          {response && (
            <Group gap="xs">
              <Button size="xs" variant="light" leftSection={<IconCopy size={14} />} onClick={() => void copy()}>
                {copied ? AI_HUB_MESSAGES.copied : AI_HUB_MESSAGES.copy}
              </Button>
              <Button
                size="xs"
                variant="subtle"
                leftSection={<IconDownload size={14} />}
                onClick={() => download('ai-response.md', 'text/markdown', asMarkdown(response))}
              >
                Markdown
              </Button>
              <Button
                size="xs"
                variant="subtle"
                leftSection={<IconDownload size={14} />}
                onClick={() => download('ai-response.txt', 'text/plain', asMarkdown(response))}
              >
                Text
              </Button>
            </Group>
          )}
        </Group>
        {response && (
          <Group gap={6} data-testid="ai-chips">
            <Badge variant="light">{response.model}</Badge>
            <Badge variant="light" color="gray">
              {response.tokensUsed.toLocaleString('en-US')} tokens
            </Badge>
            <Badge variant="light" color="gray">
              {response.citations.length} {response.citations.length === 1 ? 'citation' : 'citations'}
            </Badge>
            {templateName && (
              <Badge variant="light" color="grape">
                {templateName}
              </Badge>
            )}
            {response.unverifiedNumbers.length > 0 && (
              <Badge variant="light" color="red">
                {response.unverifiedNumbers.length} unverified {response.unverifiedNumbers.length === 1 ? 'number' : 'numbers'} removed
              </Badge>
            )}
          </Group>
        )}
        {content && <AnswerContent content={content} />}
        {response && response.citations.length > 0 && (
          <div>
            <UnstyledButton onClick={() => setSourcesOpen((open) => !open)} aria-expanded={sourcesOpen}>
              <Text size="sm" fw={700}>
                {AI_HUB_MESSAGES.sources} ({response.citations.length}) {sourcesOpen ? '▾' : '▸'}
              </Text>
            </UnstyledButton>
            <Collapse expanded={sourcesOpen}>
              <Stack gap="xs" mt="xs" data-testid="ai-citations">
                {response.citations.map((citation) => (
                  <div key={citation.marker} id={`citation-${citation.marker.slice(1, -1)}`} data-testid="ai-citation">
                    <Text size="xs" fw={600}>
                      {citation.marker} {citation.documentTitle}, {citation.pageUnit} {citation.page}
                    </Text>
                    <Blockquote p="xs" mt={2} fz="sm">
                      {citation.text}
                    </Blockquote>
                  </div>
                ))}
              </Stack>
            </Collapse>
          </div>
        )}
      </Stack>
    </Paper>
  )
}
