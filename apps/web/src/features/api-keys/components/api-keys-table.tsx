import { ActionIcon, Code, Table, Text, Tooltip, VisuallyHidden } from '@mantine/core'
import { IconTrash } from '@tabler/icons-react'
import type { ApiTokenRow } from '../api/api-tokens'
import { createdLabel, lastUsedLabel, secretKeyLabel, tokenName } from '../utils/format'
import { API_KEY_MESSAGES } from '../utils/messages'

/** Name, Secret Key, Created, Last Used and a revoke action per key (spec 1 §2). */
export function ApiKeysTable({ tokens, onRevoke }: { tokens: readonly ApiTokenRow[]; onRevoke: (token: ApiTokenRow) => void }) {
  return (
    <Table.ScrollContainer minWidth={640}>
      <Table verticalSpacing="sm" highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Secret Key</Table.Th>
            <Table.Th>Created</Table.Th>
            <Table.Th>Last Used</Table.Th>
            <Table.Th w={60}>
              <VisuallyHidden>Actions</VisuallyHidden>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {tokens.length === 0 ? (
            <Table.Tr>
              <Table.Td colSpan={5}>
                <Text c="dimmed" ta="center" py="lg">
                  {API_KEY_MESSAGES.empty}
                </Text>
              </Table.Td>
            </Table.Tr>
          ) : (
            tokens.map((token) => (
              <Table.Tr key={token.id}>
                <Table.Td>{tokenName(token)}</Table.Td>
                <Table.Td>
                  <Code>{secretKeyLabel(token)}</Code>
                </Table.Td>
                <Table.Td>{createdLabel(token)}</Table.Td>
                <Table.Td>{lastUsedLabel(token)}</Table.Td>
                <Table.Td>
                  <Tooltip label="Revoke key" withArrow>
                    <ActionIcon variant="subtle" color="red" aria-label={`Revoke ${tokenName(token)}`} onClick={() => onRevoke(token)}>
                      <IconTrash size={18} />
                    </ActionIcon>
                  </Tooltip>
                </Table.Td>
              </Table.Tr>
            ))
          )}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  )
}
