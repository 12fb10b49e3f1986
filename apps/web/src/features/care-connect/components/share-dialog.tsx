import { EMAIL_PATTERN, normalizeUsPhone, type RankingsQuery } from '@citrus/contracts'
import { Button, Group, Modal, Stack, Tabs, TextInput } from '@mantine/core'
import { useState } from 'react'
import { notify } from '../../../lib/notify'
import { useCreateShareableUrl, useSendMemberLink } from '../api/care-api'
import { CARE_MESSAGES_UI, CARE_TEXT } from '../utils/messages'

/**
 * Share Hospitals & Providers (spec 3 §4.9, §5; spec 1 §6): a link is created first (member role, private, never
 * expires, phone or e-mail verification, rankings + validate endpoints), then sent to the member.
 */
export function ShareDialog({
  opened,
  onClose,
  search,
  npis,
}: {
  opened: boolean
  onClose: () => void
  search: RankingsQuery
  npis: string[]
}) {
  const [tab, setTab] = useState<'phone' | 'email'>('phone')
  const [phone, setPhone] = useState('')
  const [email, setEmail] = useState('')
  const [error, setError] = useState<string | null>(null)
  const create = useCreateShareableUrl()
  const send = useSendMemberLink()
  const value = tab === 'phone' ? phone : email

  async function submit() {
    let contact = value.trim()
    if (tab === 'phone') {
      const result = normalizeUsPhone(contact)
      if (!result.ok)
        return setError(result.message === CARE_MESSAGES_UI.phoneRequired ? CARE_MESSAGES_UI.phoneRequiredField : result.message)
      contact = result.e164
    } else if (!EMAIL_PATTERN.test(contact)) {
      return setError(CARE_MESSAGES_UI.emailInvalidDot)
    }
    setError(null)
    const initial: Record<string, string | number> = { ...search } as Record<string, string | number>
    if (npis.length > 0) initial.filter_npis = npis.join(',')
    try {
      const link = await create.mutateAsync({
        body: {
          url: window.location.href,
          url_type: 'private',
          expiration_days: null,
          client_routes: ['/member-recommendations'],
          api_endpoints: ['GET /care-select/rankings', 'GET /shareable-url/validate-shareable-link'],
          incoming_url: '/member-recommendations',
          initial_query_params: initial,
          authorized_user_ids: null,
          invite_email: tab === 'email' ? contact : null,
          invite_phone: tab === 'phone' ? contact : null,
          requires_email_verification: tab === 'email',
          requires_phone_verification: tab === 'phone',
          role: 'member',
          requires_account_creation: false,
        },
      })
      if (!link?.url) throw new Error(CARE_MESSAGES_UI.createFailed)
      const sent = await send.mutateAsync({
        body: { member_contact: contact, contact_type: tab, share_id: link.id, shareable_url: link.url },
      })
      if (!sent.message_id) throw new Error(CARE_MESSAGES_UI.sendFailed)
      notify({ severity: 'success', message: CARE_MESSAGES_UI.sent })
      setPhone('')
      setEmail('')
    } catch {
      notify({ severity: 'error', message: CARE_MESSAGES_UI.sendFailed })
      setError(CARE_MESSAGES_UI.sendFailedField)
      setPhone('')
      setEmail('')
    }
  }

  return (
    <Modal opened={opened} onClose={onClose} title={CARE_TEXT.shareTitle}>
      <Tabs
        value={tab}
        onChange={(next) => {
          setTab(next === 'email' ? 'email' : 'phone')
          setError(null)
        }}
      >
        <Tabs.List>
          <Tabs.Tab value="phone">{CARE_TEXT.phoneTab}</Tabs.Tab>
          <Tabs.Tab value="email">{CARE_TEXT.emailTab}</Tabs.Tab>
        </Tabs.List>
        <Stack gap="sm" pt="md">
          {tab === 'phone' ? (
            <TextInput
              label={CARE_TEXT.phoneTab}
              placeholder="(206) 555-0100"
              value={phone}
              onChange={(e) => setPhone(e.currentTarget.value)}
              error={error}
            />
          ) : (
            <TextInput
              label={CARE_TEXT.emailTab}
              placeholder="member@example.com"
              value={email}
              onChange={(e) => setEmail(e.currentTarget.value)}
              error={error}
            />
          )}
          <Group justify="flex-end">
            <Button onClick={() => void submit()} disabled={value.trim() === ''} loading={create.isPending || send.isPending}>
              {CARE_TEXT.send}
            </Button>
          </Group>
        </Stack>
      </Tabs>
    </Modal>
  )
}
