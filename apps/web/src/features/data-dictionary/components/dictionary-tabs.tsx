import type { DataDictionaryTab } from '@citrus/contracts'
import { Badge, Group, Paper, ScrollArea, Table, Tabs, Text, Title } from '@mantine/core'
import { useState } from 'react'

const numberFormat = new Intl.NumberFormat('en-US')

function rowCountLabel(tab: DataDictionaryTab): string | null {
  if (tab.row_count === null) return null
  return `${tab.row_count_is_estimate ? '~' : ''}${numberFormat.format(tab.row_count)} rows`
}

/** One tabbed set of tables with columns Column, Type and Description (plus Example where given). */
export function DictionaryTabs({
  title,
  tabs,
  onTabChange,
}: {
  title: string
  tabs: DataDictionaryTab[]
  onTabChange: (tab: DataDictionaryTab) => void
}) {
  const [active, setActive] = useState<string | null>(tabs[0]?.key ?? null)
  if (tabs.length === 0) return null
  return (
    <Paper withBorder radius="lg" p="lg">
      <Title order={2} fz="lg" mb="md">
        {title}
      </Title>
      <Tabs
        value={active}
        onChange={(value) => {
          setActive(value)
          const tab = tabs.find((candidate) => candidate.key === value)
          if (tab) onTabChange(tab)
        }}
        keepMounted={false}
      >
        <ScrollArea type="auto" offsetScrollbars>
          <Tabs.List style={{ flexWrap: 'nowrap' }}>
            {tabs.map((tab) => (
              <Tabs.Tab key={tab.key} value={tab.key}>
                {tab.label}
              </Tabs.Tab>
            ))}
          </Tabs.List>
        </ScrollArea>
        {tabs.map((tab) => {
          const hasExample = tab.rows.some((row) => row.example !== undefined)
          const count = rowCountLabel(tab)
          return (
            <Tabs.Panel key={tab.key} value={tab.key} pt="md">
              <Group justify="space-between" mb="sm">
                <Text size="sm" c="dimmed">
                  Table <code>{tab.table}</code>
                </Text>
                {count && <Badge variant="light">{count}</Badge>}
              </Group>
              <Table.ScrollContainer minWidth={600}>
                <Table striped highlightOnHover verticalSpacing="xs">
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>Column</Table.Th>
                      <Table.Th>Type</Table.Th>
                      <Table.Th>Description</Table.Th>
                      {hasExample && <Table.Th>Example</Table.Th>}
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {tab.rows.map((row) => (
                      <Table.Tr key={row.column}>
                        <Table.Td fw={600}>{row.column}</Table.Td>
                        <Table.Td>
                          <code>{row.type}</code>
                        </Table.Td>
                        <Table.Td>{row.description}</Table.Td>
                        {hasExample && <Table.Td>{row.example ?? ''}</Table.Td>}
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
            </Tabs.Panel>
          )
        })}
      </Tabs>
    </Paper>
  )
}
