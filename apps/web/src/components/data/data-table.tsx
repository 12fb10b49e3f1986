import { ScrollArea, Table, Text } from '@mantine/core'
import type { TableTdProps } from '@mantine/core'
import type { KeyboardEvent, ReactNode } from 'react'

export interface DataTableColumn<Row> {
  key: string
  header: ReactNode
  /** Header cell width in px. */
  width?: number
  /** Text alignment of the header and the body cells. */
  align?: 'left' | 'center' | 'right'
  /** Extra props for every body cell of the column (e.g. `fw`). */
  cellProps?: Omit<TableTdProps, 'children'>
  render: (row: Row, index: number) => ReactNode
}

export interface DataTableProps<Row> {
  columns: readonly DataTableColumn<Row>[]
  rows: readonly Row[]
  rowKey: (row: Row) => string | number
  /** Shown in one row spanning all columns when there are no rows. */
  empty: ReactNode
  /** Makes a row clickable and keyboard-operable (Enter / Space). */
  onRowClick?: (row: Row) => void
  rowLabel?: (row: Row) => string
  /** Horizontal scroll below this width (the default wrapper). */
  minWidth?: number
  /** Vertical scroll area of at most this height with a sticky header, instead of the horizontal scroll container. */
  maxHeight?: number
  highlightOnHover?: boolean
  'data-testid'?: string
}

/** A Mantine table with a header row, one row per item and an empty-state row spanning all columns. */
export function DataTable<Row>({
  columns,
  rows,
  rowKey,
  empty,
  onRowClick,
  rowLabel,
  minWidth,
  maxHeight,
  highlightOnHover = true,
  'data-testid': testId,
}: DataTableProps<Row>) {
  const onKey = (row: Row) => (event: KeyboardEvent) => {
    if (event.target !== event.currentTarget) return
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault()
      onRowClick?.(row)
    }
  }
  const table = (
    <Table verticalSpacing="sm" highlightOnHover={highlightOnHover} stickyHeader={maxHeight !== undefined}>
      <Table.Thead>
        <Table.Tr>
          {columns.map((column) => (
            <Table.Th key={column.key} w={column.width} ta={column.align}>
              {column.header}
            </Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.length === 0 ? (
          <Table.Tr>
            <Table.Td colSpan={columns.length}>
              <Text c="dimmed" ta="center" py="lg">
                {empty}
              </Text>
            </Table.Td>
          </Table.Tr>
        ) : (
          rows.map((row, index) => (
            <Table.Tr
              key={rowKey(row)}
              aria-label={rowLabel?.(row)}
              {...(onRowClick && { onClick: () => onRowClick(row), onKeyDown: onKey(row), tabIndex: 0, style: { cursor: 'pointer' } })}
            >
              {columns.map((column) => (
                <Table.Td key={column.key} ta={column.align} {...column.cellProps}>
                  {column.render(row, index)}
                </Table.Td>
              ))}
            </Table.Tr>
          ))
        )}
      </Table.Tbody>
    </Table>
  )
  if (maxHeight !== undefined) {
    return (
      <ScrollArea.Autosize mah={maxHeight} type="auto" data-testid={testId}>
        {table}
      </ScrollArea.Autosize>
    )
  }
  return (
    <Table.ScrollContainer minWidth={minWidth ?? 0} data-testid={testId}>
      {table}
    </Table.ScrollContainer>
  )
}
