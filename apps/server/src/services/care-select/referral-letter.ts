import {
  formatUsPhone,
  gradeOf,
  type HcoRanking,
  type HcpRanking,
  type ParsedRankingsQuery,
  type referralLetterRequestSchema,
} from '@citrus/contracts'
import type pg from 'pg'
import PDFDocument from 'pdfkit'
import type { z } from 'zod'
import type { UserPrincipal } from '../../auth/principal.js'
import type { Row } from '../../db/kysely.js'
import { badRequest } from '../../lib/errors.js'
import { rankProviders, resolveSearch, type ResolvedSearch } from './rankings.js'

export type ReferralLetterInput = z.output<typeof referralLetterRequestSchema>

/** The referral letter's selected clinicians and facilities (by NPI), with a clinician's facility name. */
const LETTER_SELECTION_SQL = `
SELECT
  (SELECT coalesce(json_agg(json_build_object(
      'npi', p.npi, 'full_name', p.full_name, 'cms_specialization', p.cms_specialization, 'address', p.address,
      'city', p.city, 'state', p.state, 'zip_code', p.zip_code, 'phone_number', p.phone_number, 'facility_name', f.name)), '[]')
   FROM providers p LEFT JOIN facilities f ON f.id = p.facility_id WHERE p.npi = ANY($1::bpchar[])) AS clinicians,
  (SELECT coalesce(json_agg(json_build_object(
      'npi', f.npi, 'name', f.name, 'hco_compile_level_1', f.hco_compile_level_1, 'address_line_1', f.address_line_1,
      'city', f.city, 'state', f.state, 'zip_code', f.zip_code, 'phone_number', f.phone_number)), '[]')
   FROM facilities f WHERE f.npi = ANY($1::bpchar[])) AS facilities`

type LetterClinician = Pick<
  Row<'providers'>,
  'npi' | 'full_name' | 'cms_specialization' | 'address' | 'city' | 'state' | 'zip_code' | 'phone_number'
> & { facility_name: Row<'facilities'>['name'] | null }
type LetterFacility = Pick<
  Row<'facilities'>,
  'name' | 'hco_compile_level_1' | 'address_line_1' | 'city' | 'state' | 'zip_code' | 'phone_number'
> & { npi: string }

/** The staff member writing the letter. */
export type LetterAuthor = Pick<UserPrincipal, 'email' | 'company_name' | 'role'>

/**
 * The referral letter (spec 3 §7) of the selected clinicians and facilities, with the scores of the search they came
 * from when it is given (its scoring from the result cache: the clinician's search was just scored, 0060). The
 * selection and the search's inputs are read together; an unknown NPI is reported (400) before an invalid search.
 * `charge` (the credit of the search, docs/decisions/0047) runs while the search is scored; both settle before an
 * error is thrown, and its value is given back with the letter.
 */
export async function referralLetter<C>(
  pool: pg.Pool,
  author: LetterAuthor,
  body: ReferralLetterInput,
  charge: () => Promise<C>,
): Promise<{ pdf: Buffer; charge: C }> {
  const npis = [...new Set(body.selected_npis)]
  // The search the selection came from (for the scores), parsed by the contract; the selection is its filter.
  const parsedSearch: ParsedRankingsQuery | null = body.search && npis.length > 0 ? { ...body.search, filter_npis: npis } : null
  const [selection, resolved] = await Promise.allSettled([
    pool.query<{ clinicians: LetterClinician[]; facilities: LetterFacility[] }>(LETTER_SELECTION_SQL, [npis]),
    parsedSearch ? resolveSearch(pool, parsedSearch) : Promise.resolve(null),
  ])
  if (selection.status === 'rejected') throw selection.reason
  const { clinicians, facilities } = selection.value.rows[0] as { clinicians: LetterClinician[]; facilities: LetterFacility[] }
  const unknown = npis.find((npi) => !clinicians.some((c) => c.npi === npi) && !facilities.some((f) => f.npi === npi))
  if (unknown)
    throw badRequest(`Unknown NPI ${unknown} in selected_npis`, [{ path: 'body.selected_npis', message: `Unknown NPI ${unknown}` }])
  if (resolved.status === 'rejected') throw resolved.reason
  const search: ResolvedSearch | null = resolved.value

  const [charged, ranked] = await Promise.allSettled([
    charge(),
    search ? rankProviders(pool, search, parsedSearch?._bypass_cache ?? false) : Promise.resolve(null),
  ])
  if (charged.status === 'rejected') throw charged.reason
  if (ranked.status === 'rejected') throw ranked.reason
  const rankings = ranked.value ? { hcp: ranked.value.hcp_rankings, hco: ranked.value.hco_rankings } : { hcp: [], hco: [] }

  const providers: LetterProvider[] = npis.map((npi) => {
    const clinician = clinicians.find((c) => c.npi === npi)
    if (clinician) {
      return {
        kind: 'HCP',
        npi,
        name: clinician.full_name,
        specialty: clinician.cms_specialization,
        address: `${clinician.address}, ${clinician.city}, ${clinician.state} ${clinician.zip_code}`,
        phone_number: clinician.phone_number,
        affiliation: clinician.facility_name,
        ranking: rankings.hcp.find((r) => r.hcp_entity.npi === npi) ?? null,
      }
    }
    const facility = facilities.find((f) => f.npi === npi)!
    return {
      kind: 'HCO',
      npi,
      name: facility.name,
      specialty: facility.hco_compile_level_1,
      address: `${facility.address_line_1}, ${facility.city}, ${facility.state} ${facility.zip_code}`,
      phone_number: facility.phone_number,
      affiliation: null,
      ranking: rankings.hco.find((r) => r.hco_npi === npi) ?? null,
    }
  })
  const pdf = await renderReferralLetter({
    patient_name: body.patient_name,
    dob: body.dob,
    condition: body.condition,
    destination_fax: body.destination_fax,
    referring: { email: author.email, company_name: author.company_name, role: author.role },
    search: search ? { city: search.city, state: search.state, zip: search.zip, specialty: search.specialty } : null,
    providers,
    generated_at: new Date(),
  })
  return { pdf, charge: charged.value }
}

/** What the letter lists about one selected clinician or facility. */
export interface LetterProvider {
  kind: 'HCP' | 'HCO'
  npi: string
  name: string
  specialty: string | null
  address: string
  phone_number: string | null
  affiliation: string | null
  ranking: HcpRanking | HcoRanking | null
}

export interface LetterContent {
  patient_name: string
  dob: string
  condition: string
  destination_fax: string
  referring: { email: string; company_name: string; role: string }
  search: { city: string; state: string; zip: string; specialty: string | null } | null
  providers: LetterProvider[]
  generated_at: Date
}

const percent = (score: number) => `${Math.round(score * 100)}`

function scoreLine(ranking: HcpRanking | HcoRanking): string {
  const t = ranking.task_scores
  return (
    `Overall score ${percent(ranking.final_score)} (grade ${ranking.final_grade}) · ` +
    `Quality of care ${t.quality_of_care_grade} · Cost of care ${t.cost_grade} · Distance ${t.distance_grade ?? gradeOf(t.distance)}`
  )
}

/** Renders the referral letter (pdfkit, standard fonts: no font files to ship) into a Buffer. */
export function renderReferralLetter(content: LetterContent): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({
      size: 'LETTER',
      margin: 56,
      info: {
        Title: `Referral letter for ${content.patient_name}`,
        Author: content.referring.company_name,
        Creator: 'Citrus Care Connect',
      },
    })
    const chunks: Buffer[] = []
    doc.on('data', (chunk: Buffer) => chunks.push(chunk))
    doc.on('end', () => resolve(Buffer.concat(chunks)))
    doc.on('error', reject)

    const date = content.generated_at.toISOString().slice(0, 10)
    doc.font('Helvetica-Bold').fontSize(18).text('Referral Letter')
    doc.moveDown(0.2).font('Helvetica').fontSize(10).fillColor('#555555').text(`${content.referring.company_name} · ${date}`)
    doc.fillColor('#000000').moveDown()

    const field = (label: string, value: string) => {
      doc
        .font('Helvetica-Bold')
        .fontSize(11)
        .text(`${label}: `, { continued: true })
        .font('Helvetica')
        .text(value || '—')
    }
    doc.font('Helvetica-Bold').fontSize(13).text('Patient')
    doc.moveDown(0.3)
    field('Patient name', content.patient_name)
    field('Date of birth', content.dob)
    field('Condition and notes', content.condition)
    if (content.destination_fax) field('Destination fax', content.destination_fax)
    doc.moveDown()

    doc.font('Helvetica-Bold').fontSize(13).text('Referred by')
    doc.moveDown(0.3)
    field('Referring user', content.referring.email)
    field('Organization', content.referring.company_name)
    if (content.search) {
      field(
        'Search',
        `${content.search.specialty ?? 'Providers'} near ${content.search.city}, ${content.search.state} ${content.search.zip}`,
      )
    }
    doc.moveDown()

    doc
      .font('Helvetica-Bold')
      .fontSize(13)
      .text(content.providers.length > 0 ? 'Recommended providers' : 'No providers were selected')
    content.providers.forEach((provider, index) => {
      doc.moveDown(0.6)
      doc
        .font('Helvetica-Bold')
        .fontSize(11)
        .text(`${index + 1}. ${provider.name}${provider.kind === 'HCO' ? ' (facility)' : ''}`)
      doc.font('Helvetica').fontSize(10)
      doc.text(`NPI ${provider.npi}${provider.specialty ? ` · ${provider.specialty}` : ''}`)
      doc.text(provider.address)
      if (provider.phone_number) doc.text(`Phone ${formatUsPhone(provider.phone_number)}`)
      if (provider.affiliation) doc.text(`Affiliation: ${provider.affiliation}`)
      if (provider.ranking) doc.text(scoreLine(provider.ranking))
    })

    doc.moveDown(2)
    doc
      .fontSize(8)
      .fillColor('#555555')
      .text(
        'Scores (0-100) and grades (A-D) are computed by Citrus Care Connect from claims volumes, prices and distance. ' +
          'Confirm availability and network status with the provider before the visit.',
      )
    doc.end()
  })
}
