import { describe, expect, it } from 'vitest'
import { toHubPin } from './hub-pin'

const insight = { citrus_id: 'H1', display_name: 'Mercy Hospital', entity: { name: 'Mercy Hospital' } }

describe('AI Hub pins (issue 33 item 11)', () => {
  it('keeps a ratio shown as a percentage ×100 to one decimal, as the panel shows it (spec 2 §9)', () => {
    const pin = toHubPin(insight, 'facility', [
      [
        // Nova: the value format decides
        {
          code: 'crofab_patient_share_5y',
          name: 'CroFab Patient Share (5 yr)',
          unit: 'PERCENT',
          value_format: 'PERCENTAGE',
          value: { v: 0.3636 },
        },
        { code: 'crofab_units_used_5y', name: 'CroFab Units Used (5 yr)', unit: 'UNITS', value_format: 'INTEGER', value: { v: 42 } },
        { code: 'score', name: 'Score', unit: 'RATIO', value_format: 'DECIMAL', value: { v: 0.5 } },
      ],
      // Atlas: a PERCENT unit
      [
        { code: 'medicare_percent', name: 'Medicare', unit: 'PERCENT', value: { v: 0.25 } },
        { code: 'patient_count', name: 'Total Patients', unit: 'PATIENT_COUNT', value: { v: 1200 } },
        { code: 'missing', name: 'Missing', unit: 'PERCENT', value: { v: null } },
      ],
    ])
    expect(pin.metrics).toEqual({
      'CroFab Patient Share (5 yr)': '36.4%',
      'CroFab Units Used (5 yr)': 42,
      Score: 0.5,
      Medicare: '25.0%',
      'Total Patients': 1200,
      Missing: null,
    })
  })
})
