import { ActionIcon, Box, Flex, Group, Stack, Tooltip } from '@mantine/core'
import { useElementSize, useHotkeys, useLocalStorage, useMediaQuery, useMergedRef } from '@mantine/hooks'
import { IconGripVertical, IconLayoutSidebarLeftCollapse, IconLayoutSidebarLeftExpand } from '@tabler/icons-react'
import { useId, useRef, useState, type KeyboardEvent, type PointerEvent, type ReactNode } from 'react'
import { LayoutHeader, type LayoutHeaderProps } from '../../../components/layouts/two-panel-layout'
import { clampPercent, percentAfterKey, percentAtPointer, percentBounds, QUERY_BUILDER_PANEL } from '../utils/panel-width'

/** Below Mantine's md breakpoint (992 px) the panels stack: a 280 px panel beside results does not fit a phone. */
export const STACKED_PANELS_QUERY = '(max-width: 61.99em)'

export interface ResizablePanelLayoutProps {
  left: ReactNode
  right: ReactNode
  /** what the left panel holds, for the controls' labels ('query builder') */
  panelLabel: string
  /** localStorage keys of the width (a percentage) and of the collapsed state */
  widthKey: string
  collapsedKey: string
  header?: LayoutHeaderProps
}

/**
 * Two panels whose left one is resizable and collapsible (spec 2 §2, §9), both kept in localStorage across
 * reloads. The separator between them follows the ARIA window-splitter pattern: it takes focus, arrows
 * resize (Shift: larger steps), Home and End go to the limits, Enter collapses; a double click gives the
 * default width back. Ctrl or Cmd plus B toggles the panel as in the shared two-panel layout (spec 1 §2).
 * On a narrow screen the panel sits above the results at full width, collapsible but not resizable.
 */
export function ResizablePanelLayout({ left, right, panelLabel, widthKey, collapsedKey, header }: ResizablePanelLayoutProps) {
  const panelId = useId()
  const container = useElementSize<HTMLDivElement>()
  const box = useRef<HTMLDivElement>(null)
  const containerRef = useMergedRef(container.ref, box)
  const bounds = percentBounds(container.width)
  const [collapsed, setCollapsed] = useLocalStorage<boolean>({ key: collapsedKey, defaultValue: false, getInitialValueInEffect: false })
  const [stored, setStored] = useLocalStorage<number>({
    key: widthKey,
    defaultValue: QUERY_BUILDER_PANEL.defaultPercent,
    getInitialValueInEffect: false,
    serialize: String,
    deserialize: (value) => clampPercent(value),
  })
  // the width while the separator is dragged; stored once the pointer is released
  const [draft, setDraft] = useState<number | null>(null)
  const [focused, setFocused] = useState(false)
  const stacked = useMediaQuery(STACKED_PANELS_QUERY, false, { getInitialValueInEffect: false })
  const active = draft !== null || focused
  const percent = clampPercent(draft ?? stored, bounds)
  const toggle = () => setCollapsed((c) => !c)
  useHotkeys([
    ['ctrl+B', toggle],
    ['meta+B', toggle],
  ])

  const containerBox = () => {
    const rect = box.current?.getBoundingClientRect()
    return { left: rect?.left ?? 0, width: rect?.width ?? 0 }
  }
  const onPointerDown = (event: PointerEvent<HTMLDivElement>) => {
    if (event.button !== 0) return
    event.preventDefault()
    event.currentTarget.setPointerCapture?.(event.pointerId)
    event.currentTarget.focus()
    setDraft(percent)
  }
  const onPointerMove = (event: PointerEvent<HTMLDivElement>) => {
    if (draft === null) return
    setDraft(percentAtPointer(event.clientX, containerBox()))
  }
  const endDrag = (event: PointerEvent<HTMLDivElement>) => {
    if (draft === null) return
    if (event.currentTarget.hasPointerCapture?.(event.pointerId)) event.currentTarget.releasePointerCapture(event.pointerId)
    setStored(draft)
    setDraft(null)
  }
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key === 'Enter') {
      event.preventDefault()
      setCollapsed(true)
      return
    }
    const next = percentAfterKey(event.key, percent, event.shiftKey, bounds)
    if (next === null) return
    event.preventDefault()
    setStored(next)
  }

  const { minPx, maxPercent, collapsedPx } = QUERY_BUILDER_PANEL
  return (
    <Stack gap="md" h="100%">
      {header && <LayoutHeader {...header} />}
      <Flex
        ref={containerRef}
        flex={1}
        mih={0}
        direction={stacked ? 'column' : 'row'}
        gap={stacked ? 'md' : 0}
        data-stacked={stacked}
        style={draft !== null ? { userSelect: 'none', cursor: 'col-resize' } : undefined}
      >
        <Box
          id={panelId}
          data-testid="resizable-panel"
          data-collapsed={collapsed}
          data-width-percent={collapsed || stacked ? undefined : percent}
          style={
            stacked
              ? { width: '100%' }
              : {
                  flexShrink: 0,
                  width: collapsed ? collapsedPx : `clamp(${minPx}px, ${percent}%, ${maxPercent}%)`,
                  transition: draft === null ? 'width 150ms ease' : undefined,
                }
          }
        >
          <Stack gap="xs" h="100%">
            <Group justify={collapsed && !stacked ? 'center' : 'flex-end'}>
              <Tooltip label={`${collapsed ? 'Expand' : 'Collapse'} ${panelLabel} (Ctrl/Cmd+B)`}>
                <ActionIcon
                  variant="subtle"
                  color="gray"
                  onClick={toggle}
                  aria-label={`${collapsed ? 'Expand' : 'Collapse'} ${panelLabel}`}
                  aria-expanded={!collapsed}
                  aria-controls={panelId}
                >
                  {collapsed ? <IconLayoutSidebarLeftExpand size={18} /> : <IconLayoutSidebarLeftCollapse size={18} />}
                </ActionIcon>
              </Tooltip>
            </Group>
            {/* kept mounted while collapsed, so what was typed in the form survives */}
            <Box flex={1} mih={0} hidden={collapsed}>
              {left}
            </Box>
          </Stack>
        </Box>
        {stacked ? null : collapsed ? (
          <Box w={16} style={{ flexShrink: 0 }} />
        ) : (
          <Box
            role="separator"
            tabIndex={0}
            aria-orientation="vertical"
            aria-label={`Resize ${panelLabel}`}
            aria-controls={panelId}
            aria-valuenow={percent}
            aria-valuemin={bounds.min}
            aria-valuemax={bounds.max}
            aria-valuetext={`${panelLabel} ${Math.round(percent)}% wide`}
            data-testid="panel-separator"
            onPointerDown={onPointerDown}
            onPointerMove={onPointerMove}
            onPointerUp={endDrag}
            onPointerCancel={endDrag}
            onKeyDown={onKeyDown}
            onDoubleClick={() => setStored(QUERY_BUILDER_PANEL.defaultPercent)}
            onFocus={() => setFocused(true)}
            onBlur={() => setFocused(false)}
            data-active={active}
            w={16}
            style={{
              flexShrink: 0,
              cursor: 'col-resize',
              touchAction: 'none',
              display: 'flex',
              alignItems: 'center',
              justifyContent: 'center',
              position: 'relative',
              // the focus indicator is the coloured line (and the grip) below, not the browser's outline box
              outline: 'none',
            }}
          >
            <Box
              aria-hidden
              pos="absolute"
              top={0}
              bottom={0}
              left={7}
              w={2}
              style={{
                borderRadius: 1,
                background: active ? 'var(--mantine-primary-color-filled)' : 'var(--mantine-color-default-border)',
              }}
            />
            <IconGripVertical
              size={14}
              aria-hidden
              style={{ position: 'relative', background: 'var(--mantine-color-body)', borderRadius: 2 }}
              color={active ? 'var(--mantine-primary-color-filled)' : 'var(--mantine-color-dimmed)'}
            />
          </Box>
        )}
        <Box flex={1} miw={0}>
          {right}
        </Box>
      </Flex>
    </Stack>
  )
}
