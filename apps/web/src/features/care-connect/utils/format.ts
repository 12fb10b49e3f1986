import { METERS_PER_MILE, formatUsPhone, type CareGrade } from '@citrus/contracts'

/** 5 digits of what was typed (spec 3 §5): digits only, the first 5 when there are at least 5. */
export function cleanZip(value: string): string {
  const digits = value.replace(/\D/g, '')
  return digits.length >= 5 ? digits.slice(0, 5) : digits
}

export const scoreOf = (finalScore: number) => Math.round(finalScore * 100)

/** Under 0.1 mile in feet (5280 per mile), else miles with 1 decimal (spec 3 §9). */
export function formatDistance(miles: number): string {
  if (miles < 0.1) return `${Math.round(miles * 5280)} ft`
  return `${miles.toFixed(1)} mi`
}
export const formatMiles2 = (miles: number) => `${miles.toFixed(2)} mi`
export const formatPrice = (value: number) => `$${value.toFixed(2)}`

/** A success, B info, C warning, other neutral (spec 3 §9). */
export function gradeColor(grade: CareGrade | string): string {
  if (grade === 'A') return 'green'
  if (grade === 'B') return 'blue'
  if (grade === 'C') return 'yellow'
  return 'gray'
}

/** ≥ 90 blue, ≥ 70 green, else grey; floored to whole percent (spec 3 §5). */
export function percentileChip(percentile: number): { label: string; color: string } {
  const value = Math.floor(percentile)
  return { label: `${value}%`, color: value >= 90 ? 'blue' : value >= 70 ? 'green' : 'gray' }
}

/** (xxx) xxx-xxxx of 10 digits (spec 3 §5): the one formatter of the client and the referral letter. */
export const formatPhone = formatUsPhone

export const milesToMeters = (miles: number) => Math.round(miles * METERS_PER_MILE)
export const metersToMiles = (meters: number) => meters / METERS_PER_MILE

/** Map coordinates are valid within ±180 longitude and ±90 latitude (spec 3 §5). */
export function validCoordinates(lat: unknown, lng: unknown): boolean {
  return (
    typeof lat === 'number' &&
    typeof lng === 'number' &&
    Number.isFinite(lat) &&
    Number.isFinite(lng) &&
    Math.abs(lat) <= 90 &&
    Math.abs(lng) <= 180
  )
}
