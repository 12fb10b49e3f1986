import { Button, Code, Group, Modal, Stack, Text, TextInput } from '@mantine/core'
import { IconCopy } from '@tabler/icons-react'
import { useState, type FormEvent } from 'react'
import { useNavigate } from 'react-router'
import { FormErrorDetailAlert, type FormError } from '../../../components/feedback/form-error-alert'
import { apiDetailOf, isApiError } from '../../../lib/api-client'
import { copyText } from '../../../lib/clipboard'
import { notify } from '../../../lib/notify'
import { logout } from '../../../lib/session'
import { createApiToken } from '../api/api-tokens'
import { API_KEY_MESSAGES } from '../utils/messages'

interface CreateKeyDialogProps {
  opened: boolean
  /** called on every close; the page refreshes its list then (spec 1 §4) */
  onClose: () => void
  companyId: number | null
}

function KeyForm({ companyId, onCreated, onCancel }: { companyId: number | null; onCreated: (token: string) => void; onCancel: () => void }) {
  const navigate = useNavigate()
  const [name, setName] = useState('')
  const [nameError, setNameError] = useState<string | null>(null)
  const [error, setError] = useState<FormError | null>(null)
  const [creating, setCreating] = useState(false)

  async function onSubmit(event: FormEvent) {
    event.preventDefault()
    setError(null)
    if (name.trim() === '') {
      setNameError(API_KEY_MESSAGES.nameRequired)
      return
    }
    setNameError(null)
    if (companyId === null) {
      // a session without a company cannot own keys: sign in again (spec 1 §8)
      notify({ severity: 'error', message: API_KEY_MESSAGES.companyIdNotSet })
      logout()
      navigate('/sign-in', { replace: true })
      return
    }
    setCreating(true)
    try {
      const response = await createApiToken(name.trim(), companyId)
      if (typeof response?.token !== 'string' || response.token === '') {
        setError({ message: API_KEY_MESSAGES.maxTokens })
        return
      }
      onCreated(response.token)
    } catch (caught) {
      if (isApiError(caught) && caught.message === API_KEY_MESSAGES.maxTokens) setError({ message: API_KEY_MESSAGES.maxTokens })
      else setError({ message: API_KEY_MESSAGES.createFailed, detail: apiDetailOf(caught) })
    } finally {
      setCreating(false)
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="md">
        {error && <FormErrorDetailAlert error={error} />}
        <TextInput
          label="Name"
          placeholder="My Test Key"
          required
          maxLength={100}
          value={name}
          onChange={(event) => {
            setName(event.currentTarget.value)
            if (nameError) setNameError(null)
          }}
          error={nameError}
          data-autofocus
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel} disabled={creating}>
            Cancel
          </Button>
          <Button type="submit" loading={creating}>
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
        Please save this secret key somewhere safe and accessible. For security reasons, <b>you won&apos;t be able to view it again</b> through your
        account. If you lose this secret key, you&apos;ll need to generate a new one.
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
    <Modal opened={opened} onClose={close} title={token ? 'Save Your Key' : 'Create New Secret Key'} centered size="lg" closeOnClickOutside={!token}>
      {opened && (token ? <KeyCreated token={token} onDone={close} /> : <KeyForm companyId={companyId} onCreated={setToken} onCancel={close} />)}
    </Modal>
  )
}
