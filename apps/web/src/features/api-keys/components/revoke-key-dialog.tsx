import { Button, Code, Group, Modal, Stack, Text } from '@mantine/core'
import { notify } from '../../../lib/notify'
import { useDeleteApiToken, type ApiTokenRow } from '../api/api-tokens'
import { secretKeyLabel, tokenName } from '../utils/format'
import { API_KEY_MESSAGES } from '../utils/messages'

/** Revoke confirmation (spec 1 §4): delete, then 'Token Deleted' and the list refreshes (the mutation invalidates it). */
export function RevokeKeyDialog({ token, onClose }: { token: ApiTokenRow | null; onClose: () => void }) {
  const remove = useDeleteApiToken()

  function revoke(target: ApiTokenRow) {
    remove.mutate(
      { body: { id: target.id } },
      {
        onSuccess: (response) => {
          // the response's message is required; without it the deletion is not confirmed
          if (response.message === '') {
            notify({ severity: 'error', message: API_KEY_MESSAGES.deleteFailed })
            return
          }
          notify({ severity: 'success', message: API_KEY_MESSAGES.deleted })
          onClose()
        },
        onError: () => notify({ severity: 'error', message: API_KEY_MESSAGES.deleteFailed }),
      },
    )
  }

  return (
    <Modal opened={token !== null} onClose={onClose} title="Revoke Secret Key" centered>
      {token && (
        <Stack gap="md">
          <Text size="sm">
            This API key will immediately be disabled. API requests made using this key will be rejected, which could cause any systems
            still depending on it to break. Once revoked, you&apos;ll no longer be able to view or modify this API key.
          </Text>
          <Group gap="xs">
            <Text size="sm" fw={600}>
              {tokenName(token)}
            </Text>
            <Code>{secretKeyLabel(token)}</Code>
          </Group>
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose} disabled={remove.isPending}>
              Cancel
            </Button>
            <Button color="red" loading={remove.isPending} onClick={() => void revoke(token)}>
              Revoke Key
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  )
}
