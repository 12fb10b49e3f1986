import { API_TOKEN_NAME_MAX, createApiTokenRequestSchema } from '@citrus/contracts'
import { Button, Code, Group, Modal, Stack, Text, TextInput } from '@mantine/core'
import { schemaResolver, useForm } from '@mantine/form'
import { IconCopy } from '@tabler/icons-react'
import { useState } from 'react'
import { useNavigate } from 'react-router'
import { FormErrorDetailAlert, type FormError } from '../../../components/feedback/form-error-alert'
import { apiDetailOf, isApiError, isInvalidResponse } from '../../../lib/api-client'
import { copyText } from '../../../lib/clipboard'
import { notify } from '../../../lib/notify'
import { logout } from '../../../lib/session'
import { useCreateApiToken } from '../api/api-tokens'
import { API_KEY_MESSAGES } from '../utils/messages'

interface CreateKeyDialogProps {
  opened: boolean
  /** called on every close; the page refreshes its list then (spec 1 §4) */
  onClose: () => void
  companyId: number | null
}

const nameSchema = createApiTokenRequestSchema.pick({ name: true })

function KeyForm({
  companyId,
  onCreated,
  onCancel,
}: {
  companyId: number | null
  onCreated: (token: string) => void
  onCancel: () => void
}) {
  const navigate = useNavigate()
  const form = useForm({ mode: 'controlled', initialValues: { name: '' }, validate: schemaResolver(nameSchema, { sync: true }) })
  const create = useCreateApiToken()
  const [error, setError] = useState<FormError | null>(null)

  const onSubmit = form.onSubmit(
    ({ name }) => {
      setError(null)
      if (companyId === null) {
        // a session without a company cannot own keys: sign in again (spec 1 §8)
        notify({ severity: 'error', message: API_KEY_MESSAGES.companyIdNotSet })
        logout()
        navigate('/sign-in', { replace: true })
        return
      }
      create.mutate(
        { body: { name: name.trim(), company_id: companyId } },
        {
          onSuccess: (created) => (created.token === '' ? setError({ message: API_KEY_MESSAGES.maxTokens }) : onCreated(created.token)),
          onError: (caught) => {
            // a key without its token is the max-tokens error (spec 1 §7), as is the server's 409
            if (isInvalidResponse(caught) || (isApiError(caught) && caught.message === API_KEY_MESSAGES.maxTokens))
              setError({ message: API_KEY_MESSAGES.maxTokens })
            else setError({ message: API_KEY_MESSAGES.createFailed, detail: apiDetailOf(caught) })
          },
        },
      )
    },
    () => setError(null),
  )

  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="md">
        {error && <FormErrorDetailAlert error={error} />}
        <TextInput
          label="Name"
          placeholder="My Test Key"
          required
          maxLength={API_TOKEN_NAME_MAX}
          {...form.getInputProps('name')}
          data-autofocus
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel} disabled={create.isPending}>
            Cancel
          </Button>
          <Button type="submit" loading={create.isPending}>
            Create Secret Key
          </Button>
        </Group>
      </Stack>
    </form>
  )
}

/** The one-time view of a new key: copy it, then "I've Saved It" (spec 1 §4). */
function KeyCreated({ token, onDone }: { token: string; onDone: () => void }) {
  return (
    <Stack gap="md">
      <Text size="sm">
        Please save this secret key somewhere safe and accessible. For security reasons, <b>you won&apos;t be able to view it again</b>{' '}
        through your account. If you lose this secret key, you&apos;ll need to generate a new one.
      </Text>
      <Group gap="xs" wrap="nowrap" align="stretch">
        <Code block flex={1} data-testid="new-api-key" style={{ wordBreak: 'break-all' }}>
          {token}
        </Code>
        <Button variant="light" leftSection={<IconCopy size={16} />} onClick={() => void copyText(token, API_KEY_MESSAGES.copied)}>
          Copy
        </Button>
      </Group>
      <Group justify="flex-end">
        <Button onClick={onDone}>I&apos;ve Saved It</Button>
      </Group>
    </Stack>
  )
}

/** 'Create New Secret Key' dialog: name, then the key shown once. */
export function CreateKeyDialog({ opened, onClose, companyId }: CreateKeyDialogProps) {
  const [token, setToken] = useState<string | null>(null)
  const close = () => {
    setToken(null)
    onClose()
  }
  return (
    <Modal
      opened={opened}
      onClose={close}
      title={token ? 'Save Your Key' : 'Create New Secret Key'}
      centered
      size="lg"
      closeOnClickOutside={!token}
    >
      {opened &&
        (token ? <KeyCreated token={token} onDone={close} /> : <KeyForm companyId={companyId} onCreated={setToken} onCancel={close} />)}
    </Modal>
  )
}
