import { formatUsPhone, gradeOf, type HcoRanking, type HcpRanking } from '@citrus/contracts'
import PDFDocument from 'pdfkit'

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
