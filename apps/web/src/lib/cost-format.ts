import { PRICE_CHECK_MESSAGES, affordabilityColor } from '@citrus/contracts'

/**
 * How costs read on Price Check's facility cards and on a facility's cost page (spec 3 §9): one module, so the
 * cost page shows a Price Check figure exactly as Price Check does (docs/decisions/0075).
 */

const usd2 = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 })

/** Dollars with two decimals (spec 3 §9). */
export const formatCurrency = (value: number) => usd2.format(value)
/** A patient rate of 0 shows FREE (spec 3 §9). */
export const formatPatientRate = (value: number) => (value === 0 ? PRICE_CHECK_MESSAGES.free : formatCurrency(value))

/** Mantine colours of the affordability bar (spec 3 §9: above 80 green, above 60 amber, otherwise red). */
export const AFFORDABILITY_COLORS = { green: 'green', amber: 'yellow', red: 'red' } as const
export const affordabilityBarColor = (score: number) => AFFORDABILITY_COLORS[affordabilityColor(score)]
