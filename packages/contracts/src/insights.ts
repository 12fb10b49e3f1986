import { z } from 'zod'

// The vocabulary that Atlas and Nova share for insight metrics and choropleth legends (spec 2 §3).

export const METRIC_GROUPS = [
  'PRIMARY',
  'INCIDENCE',
  'DRUG_USAGE',
  'COMPETITION',
  'MARKET_SHARE',
  'SALES',
  'INSURANCE',
  'PATIENT_INSIGHTS',
  'NETWORK',
] as const
export type MetricGroup = (typeof METRIC_GROUPS)[number]
export const METRIC_UNITS = ['PERCENT', 'RATIO', 'UNITS', 'PATIENT_CASES', 'PATIENT_COUNT', 'STAT'] as const
export const VALUE_FORMATS = ['PERCENTAGE', 'SCORE', 'INTEGER', 'DECIMAL'] as const

/** One class of a choropleth legend. */
export const legendItemSchema = z.object({
  color: z.string(),
  opacity: z.number(),
  label: z.string(),
  min_value: z.number(),
  max_value: z.number(),
})
