import type { DataDictionaryResponse } from '@citrus/contracts'
import { fireEvent, screen } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { mockApi, reply } from '../../../test/mock-api'
import { renderApp } from '../../../test/render'

const tab = (key: string, label: string, rowCount: number | null = 1200) => ({
  key,
  label,
  table: key,
  row_count: rowCount,
  row_count_is_estimate: false,
  rows: [{ column: `${key}_id`, type: 'text', description: `Identifier of ${label}`, example: 'X1' }],
})

const DICTIONARY: DataDictionaryResponse = {
  tab_sets: [
    {
      key: 'claims',
      title: 'Claims and reference data',
      tabs: [
        tab('medx_claims', 'MEDX CLAIMS'),
        tab('hcp_data', 'HCP DATA'),
        tab('hco_data', 'HCO DATA'),
        tab('pharmx_claims', 'PHARMX CLAIMS'),
        tab('hcp_prescriber_data', 'HCP PRESCRIBER DATA'),
        tab('insurance_variables_data', 'INSURANCE VARIABLES DATA'),
      ],
    },
    {
      key: 'ehr',
      title: 'Electronic health records',
      tabs: [
        tab('encounter_header', 'ENCOUNTER HEADER'),
        tab('order', 'ORDER'),
        tab('result', 'RESULT'),
        tab('problem', 'PROBLEM'),
        tab('medication_data', 'MEDICATION DATA', null),
      ],
    },
  ],
}

describe('data dictionary page', () => {
  it('shows the subtitle, the two tab sets and Column / Type / Description tables', async () => {
    mockApi({ 'GET /data-dictionary': DICTIONARY })
    renderApp('/data-dictionary')
    expect(await screen.findByText('Explore our data dictionary and data access for your organization needs')).toBeTruthy()
    await screen.findByRole('tab', { name: 'MEDX CLAIMS' })
    for (const label of [
      'HCP DATA',
      'HCO DATA',
      'PHARMX CLAIMS',
      'HCP PRESCRIBER DATA',
      'INSURANCE VARIABLES DATA',
      'ENCOUNTER HEADER',
      'ORDER',
      'RESULT',
      'PROBLEM',
      'MEDICATION DATA',
    ]) {
      expect(screen.getByRole('tab', { name: label })).toBeTruthy()
    }
    expect(screen.getAllByRole('columnheader', { name: 'Column' })).toHaveLength(2)
    expect(screen.getAllByRole('columnheader', { name: 'Type' })).toHaveLength(2)
    expect(screen.getAllByRole('columnheader', { name: 'Description' })).toHaveLength(2)
    expect(screen.getByText('medx_claims_id')).toBeTruthy()
    expect(screen.getAllByText('1,200 rows').length).toBeGreaterThan(0)
  })

  it('records data_dictionary_tab_changed when a tab changes', async () => {
    const api = mockApi({ 'GET /data-dictionary': DICTIONARY })
    renderApp('/data-dictionary')
    fireEvent.click(await screen.findByRole('tab', { name: 'HCP DATA' }))
    expect(screen.getByText('hcp_data_id')).toBeTruthy()
    await vi.waitFor(() =>
      expect(api.callsTo('POST /analytics/events').map((call) => call.body)).toContainEqual({
        events: [{ name: 'data_dictionary_tab_changed', properties: { tab_set: 'claims', tab: 'hcp_data', label: 'HCP DATA' } }],
      }),
    )
  })

  it('shows an error state when the call fails', async () => {
    mockApi({ 'GET /data-dictionary': reply(503, { message: 'Database unavailable', code: 'SERVICE_UNAVAILABLE', status: 503 }) })
    renderApp('/data-dictionary')
    expect(await screen.findByText('Database unavailable')).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Try Again' })).toBeTruthy()
  })
})
