import type { AtlasMetric } from '@citrus/contracts'
import { describe, expect, it } from 'vitest'
import { regionDetailRows } from './region-detail-card'

const metric = (code: string, name: string, unit: AtlasMetric['unit'], v: number | null, kind: 'INT' | 'FLOAT'): AtlasMetric => ({
  code,
  name,
  description: name,
  unit,
  value: { v, value_kind: kind },
})

describe('region detail card', () => {
  it('shows counts grouped, shares ×100 to one decimal, ratios to two, and leaves out metrics without a value', () => {
    const rows = regionDetailRows({
      label: 'Kansas',
      metrics: [
        metric('patient_count', 'Patients', 'PATIENT_COUNT', 12345, 'INT'),
        metric('commercial_percent', 'Commercial', 'PERCENT', 0.4567, 'FLOAT'),
        metric('population', 'Population', 'STAT', null, 'INT'),
        metric('prevalence_per_100k', 'Prevalence per 100,000', 'RATIO', 423.5, 'FLOAT'),
        metric('hotspot_score', 'Hotspot (Gi*)', 'STAT', -1.2345, 'FLOAT'),
      ],
    })
    expect(rows).toEqual([
      { code: 'patient_count', label: 'Patients', text: '12,345' },
      { code: 'commercial_percent', label: 'Commercial', text: '45.7%' },
      { code: 'prevalence_per_100k', label: 'Prevalence per 100,000', text: '423.50' },
      { code: 'hotspot_score', label: 'Hotspot (Gi*)', text: '-1.23' },
    ])
    expect(regionDetailRows({ label: 'Kansas', metrics: [] })).toEqual([])
  })
})
