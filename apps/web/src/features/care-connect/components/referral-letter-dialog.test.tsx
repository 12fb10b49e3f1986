import { REFERRAL_MESSAGES, TOKEN_STORAGE_KEY, referralLetterRequestSchema } from '@citrus/contracts'
import { fireEvent, screen, waitFor } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { mockApi } from '../../../test/mock-api'
import { renderWithRouter } from '../../../test/render'
import { loginToken } from '../../../test/tokens'
import { ReferralLetterDialog } from './referral-letter-dialog'

const SEARCH = { zip_code: '98101', omni_code: '207Q00000X', omni_genre: 'SPECIALTY', radius_in_m: 48280 }

describe('Referral Letter Generator: checked with the contract referral letter request schema (spec 3 §5)', () => {
  it("shows the request schema's messages under the fields and sends nothing until they are valid", async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'user' }))
    const api = mockApi({ 'POST /care-select/referral-letter': {} })
    const createObjectURL = vi.fn(() => 'blob:letter')
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() }))
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {})
    // the Notes field's autosize listens for font loading, which jsdom does not have
    if (!('fonts' in document))
      Object.defineProperty(document, 'fonts', { configurable: true, value: { addEventListener: vi.fn(), removeEventListener: vi.fn() } })
    renderWithRouter(<ReferralLetterDialog opened onClose={() => {}} selectedNpis={['1234567890']} search={SEARCH} />)

    fireEvent.click(await screen.findByRole('button', { name: 'Generate' }, { timeout: 8000 }))
    const issues = referralLetterRequestSchema.safeParse({ patient_name: ' ', dob: '' }).error?.issues.map((issue) => issue.message)
    expect(issues).toEqual([REFERRAL_MESSAGES.patientNameRequired, REFERRAL_MESSAGES.dobRequired])
    expect(await screen.findByText('Patient name is required')).toBeTruthy()
    expect(screen.getByText('Date of birth is required')).toBeTruthy()
    expect(screen.getByText('Please correct the errors below and try again.')).toBeTruthy()

    // a date in the future is refused by the same rule
    fireEvent.change(screen.getByLabelText(/Patient name/), { target: { value: '  Ann Lee ' } })
    fireEvent.change(screen.getByLabelText(/Date of birth/), { target: { value: '2999-01-01' } })
    fireEvent.click(screen.getByRole('button', { name: 'Generate' }))
    await waitFor(() => expect(screen.queryByText('Patient name is required')).toBeNull())
    expect(screen.getByText('Date of birth is required')).toBeTruthy()
    expect(api.callsTo('POST /care-select/referral-letter')).toHaveLength(0)

    fireEvent.change(screen.getByLabelText(/Date of birth/), { target: { value: '1980-01-02' } })
    fireEvent.click(screen.getByRole('button', { name: 'Generate' }))
    await waitFor(() => expect(api.callsTo('POST /care-select/referral-letter')).toHaveLength(1))
    expect(api.callsTo('POST /care-select/referral-letter')[0]!.body).toMatchObject({
      patient_name: 'Ann Lee',
      dob: '1980-01-02',
      selected_npis: ['1234567890'],
    })
    expect(screen.queryByText('Please correct the errors below and try again.')).toBeNull()
    await waitFor(() => expect(createObjectURL).toHaveBeenCalledTimes(1))
  }, 30_000)
})
