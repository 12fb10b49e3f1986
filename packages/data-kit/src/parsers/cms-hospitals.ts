import type { TextSource } from '../io/text-source.ts'
import { parseCsvTable } from './csv-table.ts'
import type { ParseResult } from './result.ts'
import { nullIfEmpty, phoneDigits, splitZip } from './values.ts'

export interface CmsHospital {
  /** CMS Certification Number (CCN), 6 characters, leading zeros kept. */
  ccn: string
  name: string
  address: string
  city: string
  state: string
  zip_code: string
  county_name: string | null
  phone_number: string | null
  hospital_type: string
  ownership: string | null
  emergency_services: boolean | null
  birthing_friendly: boolean
  /** 1-5 stars; null when "Not Available". */
  overall_rating: number | null
}

const COLUMNS = [
  'Facility ID',
  'Facility Name',
  'Address',
  'City/Town',
  'State',
  'ZIP Code',
  'County/Parish',
  'Telephone Number',
  'Hospital Type',
  'Hospital Ownership',
  'Emergency Services',
] as const

/** CMS Provider Data Catalog "Hospital General Information" CSV (dataset xubh-q36u). */
export function parseCmsHospitals(source: TextSource): AsyncGenerator<ParseResult<CmsHospital>> {
  return parseCsvTable(source, {
    file: 'a CMS Hospital General Information file',
    required: COLUMNS,
    row: ({ get }) => {
      const ccn = get('Facility ID').toUpperCase()
      const zip = splitZip(get('ZIP Code'))
      const rating = get('Hospital overall rating')
      const emergency = get('Emergency Services').toLowerCase()
      let reason: string | undefined
      if (!/^[0-9A-Z]{6}$/.test(ccn)) reason = `Facility ID must be a 6-character CCN, got '${ccn}'`
      else if (get('Facility Name') === '') reason = 'missing Facility Name'
      else if (!/^[A-Z]{2}$/.test(get('State'))) reason = `State must be a 2-letter code, got '${get('State')}'`
      else if (!zip) reason = `ZIP Code is not a US ZIP: '${get('ZIP Code')}'`
      else if (rating !== '' && rating !== 'Not Available' && !/^[1-5]$/.test(rating))
        reason = `Hospital overall rating must be 1-5 or Not Available, got '${rating}'`
      if (reason || !zip) return reason ?? 'invalid row'
      return {
        ccn,
        name: get('Facility Name'),
        address: get('Address'),
        city: get('City/Town'),
        state: get('State'),
        zip_code: zip.zip,
        county_name: nullIfEmpty(get('County/Parish')),
        phone_number: phoneDigits(get('Telephone Number')) ?? null,
        hospital_type: get('Hospital Type'),
        ownership: nullIfEmpty(get('Hospital Ownership')),
        emergency_services: emergency === 'yes' ? true : emergency === 'no' ? false : null,
        birthing_friendly: get('Meets criteria for birthing friendly designation').toUpperCase() === 'Y',
        overall_rating: /^[1-5]$/.test(rating) ? Number(rating) : null,
      }
    },
  })
}
