import { ActionIcon, Badge, Box, Flex, Group, Paper, Stack, Text, Title, Tooltip } from '@mantine/core'
import { useHotkeys } from '@mantine/hooks'
import { IconLayoutSidebarLeftCollapse, IconLayoutSidebarLeftExpand } from '@tabler/icons-react'
import { useState, type ReactNode } from 'react'

/** The header card above a two-panel page: title, optional status chip and notice. */
export interface LayoutHeaderProps {
  title: ReactNode
  status?: string
  statusColor?: string
  notice?: ReactNode
}

export function LayoutHeader({ title, status, statusColor, notice }: LayoutHeaderProps) {
  return (
    <Paper withBorder radius="lg" p="md">
      <Group justify="space-between" wrap="nowrap">
        <Title order={2} fz="lg">
          {title}
        </Title>
        {status && (
          <Badge variant="light" color={statusColor}>
            {status}
          </Badge>
        )}
      </Group>
      {notice && (
        <Text size="sm" c="dimmed" mt={6}>
          {notice}
        </Text>
      )}
    </Paper>
  )
}

export interface TwoPanelLayoutProps {
  left: ReactNode
  right: ReactNode
  /** header card with a status chip and a notice */
  header?: LayoutHeaderProps
  leftWidth?: string | number
  defaultCollapsed?: boolean
  collapsed?: boolean
  onCollapsedChange?: (collapsed: boolean) => void
}

/** Two panels; the left one toggles with Ctrl or Cmd plus B (spec 1 §2). */
export function TwoPanelLayout({
  left,
  right,
  header,
  leftWidth = '33%',
  defaultCollapsed = false,
  collapsed,
  onCollapsedChange,
}: TwoPanelLayoutProps) {
  const [internal, setInternal] = useState(defaultCollapsed)
  const isCollapsed = collapsed ?? internal
  const toggle = () => {
    const next = !isCollapsed
    setInternal(next)
    onCollapsedChange?.(next)
  }
  useHotkeys([
    ['ctrl+B', toggle],
    ['meta+B', toggle],
  ])
  return (
    <Stack gap="md" h="100%">
      {header && <LayoutHeader {...header} />}
      <Flex gap="md" flex={1} mih={0}>
        <Box w={isCollapsed ? 44 : leftWidth} style={{ flexShrink: 0, transition: 'width 150ms ease' }} data-collapsed={isCollapsed}>
          <Stack gap="xs" h="100%">
            <Group justify="flex-end">
              <Tooltip label={`${isCollapsed ? 'Expand' : 'Collapse'} panel (Ctrl/Cmd+B)`}>
                <ActionIcon variant="subtle" color="gray" onClick={toggle} aria-label={isCollapsed ? 'Expand panel' : 'Collapse panel'}>
                  {isCollapsed ? <IconLayoutSidebarLeftExpand size={18} /> : <IconLayoutSidebarLeftCollapse size={18} />}
                </ActionIcon>
              </Tooltip>
            </Group>
            {!isCollapsed && <Box flex={1}>{left}</Box>}
          </Stack>
        </Box>
        <Box flex={1} miw={0}>
          {right}
        </Box>
      </Flex>
    </Stack>
  )
}
