import { Alert, Button, Container, List, Paper, Stack, Text } from '@mantine/core'
import { IconInfoCircle, IconPlus } from '@tabler/icons-react'
import { useEffect, useRef, useState } from 'react'
import { useNavigate } from 'react-router'
import { QueryStatus } from '../../../components/feedback/query-status'
import { PageHeader } from '../../../components/layouts/page-header'
import { notify } from '../../../lib/notify'
import { logout, useSession } from '../../../lib/session'
import { useApiTokens, type ApiTokenRow } from '../api/api-tokens'
import { ApiKeysTable } from '../components/api-keys-table'
import { CreateKeyDialog } from '../components/create-key-dialog'
import { RevokeKeyDialog } from '../components/revoke-key-dialog'
import { API_KEY_MESSAGES } from '../utils/messages'

/** The page's explanation of keys (spec 1 §2). */
export const API_KEYS_TEXT = {
  intro:
    'Your secret API keys are listed below. Do not share your API key with others, or expose it in the browser or other client-side code.',
  owner: 'As the workspace owner, you can view and manage all API keys in this workspace.',
  tied: 'API keys are tied to the user and project that created them.',
  disabled: 'A key is disabled if its user leaves the organization or the project.',
  permissions: 'Permissions: read and write API resources.',
} as const

/** /api-keys (admin, citrus): the company's keys, create and revoke (spec 1 §2, §4, §8). */
export function ApiKeysRoute() {
  const session = useSession()
  const navigate = useNavigate()
  const companyId = session.user?.companyId ?? null
  const [creating, setCreating] = useState(false)
  const [revoking, setRevoking] = useState<ApiTokenRow | null>(null)

  const tokens = useApiTokens(companyId)
  const refresh = () => {
    if (companyId !== null) void tokens.refetch()
  }

  // a session without a company cannot list keys: the token is cleared and the user sent to / (spec 1 §8)
  const sentAway = useRef(false)
  useEffect(() => {
    if (companyId !== null || sentAway.current) return
    sentAway.current = true
    notify({ severity: 'error', message: API_KEY_MESSAGES.fetchNoCompany })
    logout()
    navigate('/', { replace: true })
  }, [companyId, navigate])

  return (
    <Container size="lg" py="lg">
      <Stack gap="lg">
        <PageHeader
          title="API Keys"
          description={API_KEYS_TEXT.intro}
          actions={
            <Button leftSection={<IconPlus size={18} />} onClick={() => setCreating(true)}>
              Create New Secret Key
            </Button>
          }
        />
        <Alert variant="light" color="blue" icon={<IconInfoCircle size={18} />}>
          <List size="sm" spacing={4}>
            <List.Item>{API_KEYS_TEXT.owner}</List.Item>
            <List.Item>{API_KEYS_TEXT.tied}</List.Item>
            <List.Item>{API_KEYS_TEXT.disabled}</List.Item>
            <List.Item>{API_KEYS_TEXT.permissions}</List.Item>
          </List>
        </Alert>
        <Paper withBorder radius="lg" p="md">
          <QueryStatus query={tokens} errorTitle={API_KEY_MESSAGES.fetchFailed} onRetry={refresh} />
          {tokens.isSuccess && <ApiKeysTable tokens={tokens.data} onRevoke={setRevoking} />}
        </Paper>
        {tokens.isSuccess && tokens.data.length > 0 && (
          <Text size="xs" c="dimmed">
            {tokens.data.length} active {tokens.data.length === 1 ? 'key' : 'keys'}
          </Text>
        )}
      </Stack>
      <CreateKeyDialog
        opened={creating}
        companyId={companyId}
        onClose={() => {
          setCreating(false)
          refresh()
        }}
      />
      <RevokeKeyDialog token={revoking} onClose={() => setRevoking(null)} />
    </Container>
  )
}
