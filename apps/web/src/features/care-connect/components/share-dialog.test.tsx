import { MESSAGES, TOKEN_STORAGE_KEY, memberContactSchema } from '@citrus/contracts'
import { fireEvent, screen, waitFor } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { mockApi, type MockCall } from '../../../test/mock-api'
import { renderWithRouter } from '../../../test/render'
import { loginToken } from '../../../test/tokens'
import { ShareDialog } from './share-dialog'

const SEARCH = { zip_code: '98101', omni_code: '207Q00000X', omni_genre: 'SPECIALTY', radius_in_m: 48280 }
const contractMessage = (member_contact: string, contact_type: 'phone' | 'email') =>
  memberContactSchema.safeParse({ member_contact, contact_type }).error?.issues[0]?.message

function open() {
  localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'user' }))
  const created: MockCall[] = []
  const api = mockApi({
    'POST /shareable-url': (call: MockCall) => {
      created.push(call)
      return { id: '7a1f1d1e-0b7e-4a55-9d8c-3d1c1f0e2a11', url: 'http://localhost/member-recommendations?token=t' }
    },
    'POST /care-select/send-member-link': { message_id: 'outbox-1' },
  })
  renderWithRouter(<ShareDialog opened onClose={() => {}} search={SEARCH} npis={['1234567890']} />)
  return { api, created }
}

describe('Share Hospitals & Providers: the contact is checked with the contract memberContactSchema (spec 3 §5)', () => {
  it("shows the contract's phone and e-mail messages and sends nothing while the contact is invalid", async () => {
    const { api } = open()
    const phone = await screen.findByRole('textbox', { name: 'Phone number' }, { timeout: 8000 })
    fireEvent.change(phone, { target: { value: '555-01' } })
    fireEvent.click(screen.getByRole('button', { name: 'Send' }))
    expect(contractMessage('555-01', 'phone')).toBe(MESSAGES.phoneInvalid)
    expect(await screen.findByText(MESSAGES.phoneInvalid)).toBeTruthy()

    // another tab clears the error; the e-mail rule is the contract's too
    fireEvent.click(screen.getByRole('tab', { name: 'Email' }))
    expect(screen.queryByText(MESSAGES.phoneInvalid)).toBeNull()
    fireEvent.change(screen.getByRole('textbox', { name: 'Email' }), { target: { value: 'member@example' } })
    fireEvent.click(screen.getByRole('button', { name: 'Send' }))
    expect(contractMessage('member@example', 'email')).toBe('Please enter a valid email address.')
    expect(await screen.findByText('Please enter a valid email address.')).toBeTruthy()
    expect(api.callsTo('POST /shareable-url')).toHaveLength(0)
    expect(api.callsTo('POST /care-select/send-member-link')).toHaveLength(0)
  }, 30_000)

  it('sends a valid phone as E.164: a link limited to the recommendations and its two endpoints, then the message', async () => {
    const { api, created } = open()
    const phone = await screen.findByRole('textbox', { name: 'Phone number' }, { timeout: 8000 })
    fireEvent.change(phone, { target: { value: '(206) 555-0100' } })
    fireEvent.click(screen.getByRole('button', { name: 'Send' }))
    expect(await screen.findByText('Successfully sent provider link!', {}, { timeout: 4000 })).toBeTruthy()
    expect(created[0]!.body).toMatchObject({
      invite_phone: '+12065550100',
      invite_email: null,
      requires_phone_verification: true,
      api_endpoints: ['GET /care-select/rankings', 'GET /shareable-url/validate-shareable-link'],
      initial_query_params: { ...SEARCH, filter_npis: '1234567890' },
    })
    expect(api.callsTo('POST /care-select/send-member-link')[0]!.body).toMatchObject({
      member_contact: '+12065550100',
      contact_type: 'phone',
      share_id: '7a1f1d1e-0b7e-4a55-9d8c-3d1c1f0e2a11',
    })
    await waitFor(() => expect((phone as HTMLInputElement).value).toBe(''))
  }, 30_000)
})
