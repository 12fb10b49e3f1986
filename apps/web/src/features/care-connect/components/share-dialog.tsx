import { endpoints, type RankingsQuery } from '@citrus/contracts'
import { Button, Group, Modal, Stack, Tabs, TextInput } from '@mantine/core'
import { useForm } from '@mantine/form'
import { endpointName } from '../../../lib/api-client'
import { notify } from '../../../lib/notify'
import { useCreateShareableUrl, useSendMemberLink } from '../api/care-api'
import { CARE_MESSAGES_UI, CARE_TEXT } from '../utils/messages'
import { memberContactOf, shareContactError, type ShareValues } from '../utils/share-form'

/** What the member's link may open and call: the recommendations screen and its two endpoints. */
const MEMBER_LINK_ENDPOINTS = [endpointName(endpoints.careSelect.rankings), endpointName(endpoints.shareableUrl.validate)]

/**
 * Share Hospitals & Providers (spec 3 §4.9, §5; spec 1 §6): a link is created first (member role, private, never
 * expires, phone or e-mail verification, rankings + validate endpoints), then sent to the member. The contact is
 * checked with the contract's memberContactSchema (the send-member-link request's own rule); its error stays until the
 * next send or a change of tab.
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
  const form = useForm<ShareValues>({
    mode: 'controlled',
    initialValues: { tab: 'phone', phone: '', email: '' },
    validate: (values) => {
      const error = shareContactError(values)
      return error ? { [values.tab]: error } : {}
    },
    clearInputErrorOnChange: false,
  })
  const create = useCreateShareableUrl()
  const send = useSendMemberLink()
  const { tab } = form.values
  const value = form.values[tab]

  const clearContacts = () => form.setValues({ phone: '', email: '' })

  async function share(values: ShareValues) {
    const contactType = values.tab
    const member = memberContactOf(values)
    const initial: Record<string, string | number> = { ...search } as Record<string, string | number>
    if (npis.length > 0) initial.filter_npis = npis.join(',')
    try {
      const link = await create.mutateAsync({
        body: {
          url: window.location.href,
          url_type: 'private',
          expiration_days: null,
          client_routes: ['/member-recommendations'],
          api_endpoints: MEMBER_LINK_ENDPOINTS,
          incoming_url: '/member-recommendations',
          initial_query_params: initial,
          authorized_user_ids: null,
          invite_email: contactType === 'email' ? member : null,
          invite_phone: contactType === 'phone' ? member : null,
          requires_email_verification: contactType === 'email',
          requires_phone_verification: contactType === 'phone',
          role: 'member',
          requires_account_creation: false,
        },
      })
      if (!link?.url) throw new Error(CARE_MESSAGES_UI.createFailed)
      const sent = await send.mutateAsync({
        body: { member_contact: member, contact_type: contactType, share_id: link.id, shareable_url: link.url },
      })
      if (!sent.message_id) throw new Error(CARE_MESSAGES_UI.sendFailed)
      notify({ severity: 'success', message: CARE_MESSAGES_UI.sent })
      clearContacts()
    } catch {
      notify({ severity: 'error', message: CARE_MESSAGES_UI.sendFailed })
      clearContacts()
      form.setFieldError(contactType, CARE_MESSAGES_UI.sendFailedField)
    }
  }

  return (
    <Modal opened={opened} onClose={onClose} title={CARE_TEXT.shareTitle}>
      <form onSubmit={form.onSubmit((values) => void share(values))} noValidate>
        <Tabs
          value={tab}
          onChange={(next) => {
            form.setFieldValue('tab', next === 'email' ? 'email' : 'phone')
            form.clearErrors()
          }}
        >
          <Tabs.List>
            <Tabs.Tab value="phone">{CARE_TEXT.phoneTab}</Tabs.Tab>
            <Tabs.Tab value="email">{CARE_TEXT.emailTab}</Tabs.Tab>
          </Tabs.List>
          <Stack gap="sm" pt="md">
            {tab === 'phone' ? (
              <TextInput label={CARE_TEXT.phoneTab} placeholder="(206) 555-0100" {...form.getInputProps('phone')} />
            ) : (
              <TextInput label={CARE_TEXT.emailTab} placeholder="member@example.com" {...form.getInputProps('email')} />
            )}
            <Group justify="flex-end">
              <Button type="submit" disabled={value.trim() === ''} loading={create.isPending || send.isPending}>
                {CARE_TEXT.send}
              </Button>
            </Group>
          </Stack>
        </Tabs>
      </form>
    </Modal>
  )
}
