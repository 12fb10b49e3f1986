import { ActionIcon, Code, Tooltip, VisuallyHidden } from '@mantine/core'
import { IconTrash } from '@tabler/icons-react'
import { DataTable } from '../../../components/data/data-table'
import type { ApiTokenRow } from '../api/api-tokens'
import { createdLabel, lastUsedLabel, secretKeyLabel, tokenName } from '../utils/format'
import { API_KEY_MESSAGES } from '../utils/messages'

/** Name, Secret Key, Created, Last Used and a revoke action per key (spec 1 §2). */
export function ApiKeysTable({ tokens, onRevoke }: { tokens: readonly ApiTokenRow[]; onRevoke: (token: ApiTokenRow) => void }) {
  return (
    <DataTable
      minWidth={640}
      rows={tokens}
      rowKey={(token) => token.id}
      empty={API_KEY_MESSAGES.empty}
      columns={[
        { key: 'name', header: 'Name', render: (token) => tokenName(token) },
        { key: 'secret', header: 'Secret Key', render: (token) => <Code>{secretKeyLabel(token)}</Code> },
        { key: 'created', header: 'Created', render: (token) => createdLabel(token) },
        { key: 'last-used', header: 'Last Used', render: (token) => lastUsedLabel(token) },
        {
          key: 'actions',
          header: <VisuallyHidden>Actions</VisuallyHidden>,
          width: 60,
          render: (token) => (
            <Tooltip label="Revoke key" withArrow>
              <ActionIcon variant="subtle" color="red" aria-label={`Revoke ${tokenName(token)}`} onClick={() => onRevoke(token)}>
                <IconTrash size={18} />
              </ActionIcon>
            </Tooltip>
          ),
        },
      ]}
    />
  )
}
