import { Badge, List, Stack, Text } from '@mantine/core'
import type { ReactNode } from 'react'

/**
 * The answer's Markdown, the small part of it the analysts write: paragraphs, '- ' lists, **bold**, *italic*
 * and _italic_, and [S1] markers shown as badges that point to the citation. Rendered as React nodes (no HTML
 * from the answer reaches the page).
 */
function inline(text: string, key: string): ReactNode[] {
  const parts = text.split(/(\*\*[^*]+\*\*|\*[^*]+\*|_[^_]+_|\[S\d+\])/g)
  return parts.map((part, index) => {
    const id = `${key}-${index}`
    if (/^\*\*[^*]+\*\*$/.test(part)) return <strong key={id}>{part.slice(2, -2)}</strong>
    if (/^(\*[^*]+\*|_[^_]+_)$/.test(part)) return <em key={id}>{part.slice(1, -1)}</em>
    if (/^\[S\d+\]$/.test(part))
      return (
        <Badge
          key={id}
          size="xs"
          variant="light"
          component="a"
          href={`#citation-${part.slice(1, -1)}`}
          style={{ cursor: 'pointer', verticalAlign: 'middle' }}
        >
          {part.slice(1, -1)}
        </Badge>
      )
    return part
  })
}

export function AnswerContent({ content }: { content: string }) {
  const blocks: ReactNode[] = []
  let list: string[] = []
  const flush = () => {
    if (list.length === 0) return
    const items = list
    blocks.push(
      <List key={`list-${blocks.length}`} size="sm" spacing={4}>
        {items.map((item, index) => (
          <List.Item key={index}>{inline(item, `li-${blocks.length}-${index}`)}</List.Item>
        ))}
      </List>,
    )
    list = []
  }
  content.split('\n').forEach((line, index) => {
    if (/^\s*[-*] /.test(line)) {
      list.push(line.replace(/^\s*[-*] /, ''))
      return
    }
    flush()
    if (line.trim() === '') return
    const heading = /^#{1,6} (.*)$/.exec(line)
    blocks.push(
      <Text key={`p-${index}`} size="sm" fw={heading ? 700 : undefined}>
        {inline(heading ? heading[1]! : line, `p-${index}`)}
      </Text>,
    )
  })
  flush()
  return (
    <Stack gap="xs" data-testid="ai-answer">
      {blocks}
    </Stack>
  )
}
