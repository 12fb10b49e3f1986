import { AI_HUB_ERROR_CODES, AI_HUB_MESSAGES } from '@citrus/contracts'
import { describe, expect, it } from 'vitest'
import { docxOf, encryptedOffice, pdfOf, pptxOf, xlsxOf } from '../../../../../test/ai-hub-fixtures.ts'
import { AppError } from '../../lib/errors.ts'
import { cleanText, documentTypeOf, extractPages } from './extract.ts'
import { numbersNotIn } from './numbers.ts'
import { keywordsOf, sentencesOf } from './retrieval.ts'
import { countTokens } from './tokens.ts'

const texts = (pages: { text: string }[]) => pages.map((page) => page.text)

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(AppError)
  return error as AppError
}

describe('document text extraction', () => {
  it('reads a PDF page by page (pdfkit)', async () => {
    const pdf = await pdfOf([['CroFab use rose to 1,234 vials in Texas.'], ['Oklahoma bought 56 vials of Anavip.', 'Second line.']])
    const pages = await extractPages('report.pdf', 'pdf', pdf)
    expect(pages.map((page) => page.page)).toEqual([1, 2])
    expect(pages[0]!.text).toBe('CroFab use rose to 1,234 vials in Texas.')
    expect(pages[1]!.text).toContain('Oklahoma bought 56 vials of Anavip.')
    expect(pages[1]!.text).toContain('Second line.')
  })

  it('reads a Word document page by page at its page breaks (docx)', async () => {
    const docx = await docxOf([['Territory plan for Texas.', 'Visit Dallas General.'], ['Budget review in May.']])
    expect(texts(await extractPages('plan.docx', 'docx', docx))).toEqual([
      'Territory plan for Texas.\nVisit Dallas General.',
      'Budget review in May.',
    ])
  })

  it('reads a presentation slide by slide (pptxgenjs)', async () => {
    const pptx = await pptxOf([['Quarterly results', 'Sales grew in Arizona.'], ['Next steps: hire two reps.']])
    expect(texts(await extractPages('deck.pptx', 'pptx', pptx))).toEqual([
      'Quarterly results\nSales grew in Arizona.',
      'Next steps: hire two reps.',
    ])
  })

  it('reads a workbook sheet by sheet (ExcelJS)', async () => {
    const xlsx = await xlsxOf([
      {
        name: 'Accounts',
        rows: [
          ['Account', 'Cases'],
          ['Dallas General', 42],
        ],
      },
      { name: 'Notes', rows: [['Follow up in June']] },
    ])
    expect(texts(await extractPages('accounts.xlsx', 'xlsx', xlsx))).toEqual([
      'Accounts\nAccount\tCases\nDallas General\t42',
      'Notes\nFollow up in June',
    ])
  })

  it('reads plain text, pages at form feeds', async () => {
    const pages = await extractPages('notes.txt', 'txt', Buffer.from('\uFEFFFirst page.\fSecond page.\n'))
    expect(texts(pages)).toEqual(['First page.', 'Second page.'])
  })

  it('refuses a file whose content is not its extension', async () => {
    const pdf = await pdfOf([['A PDF.']])
    const docx = await docxOf([['A Word document.']])
    const cases: [string, 'pdf' | 'docx' | 'pptx' | 'xlsx' | 'txt', Buffer][] = [
      ['report.docx', 'docx', pdf],
      ['report.pdf', 'pdf', docx],
      ['report.xlsx', 'xlsx', docx],
      ['report.pptx', 'pptx', Buffer.from('just text')],
      ['image.txt', 'txt', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d])],
      ['latin1.txt', 'txt', Buffer.from([0x63, 0x61, 0x66, 0xe9])],
    ]
    for (const [name, type, bytes] of cases) {
      const error = await refusal(extractPages(name, type, bytes))
      expect(error.status).toBe(422)
      expect(error.code).toBe(AI_HUB_ERROR_CODES.mislabelled)
      expect(error.message).toBe(AI_HUB_MESSAGES.mislabelled(name, type))
    }
  })

  it('refuses a password-protected PDF and password-protected Word, Excel and PowerPoint files', async () => {
    const error = await refusal(extractPages('secret.pdf', 'pdf', await pdfOf([['Secret.']], { userPassword: 'pw' })))
    expect([error.status, error.code, error.message]).toEqual([422, AI_HUB_ERROR_CODES.encrypted, AI_HUB_MESSAGES.encrypted('secret.pdf')])
    // real files saved with a password (ECMA-376 agile encryption; test/fixtures/ai-hub/README.md names their source)
    for (const type of ['docx', 'xlsx', 'pptx'] as const) {
      const name = `secret.${type}`
      const office = await refusal(extractPages(name, type, encryptedOffice(type)))
      expect([office.status, office.code, office.message]).toEqual([422, AI_HUB_ERROR_CODES.encrypted, AI_HUB_MESSAGES.encrypted(name)])
    }
    // a PDF with an owner password only opens without one: it is read, not refused
    const ownerOnly = await pdfOf([['Printable but not editable.']], { ownerPassword: 'owner' })
    expect(texts(await extractPages('restricted.pdf', 'pdf', ownerOnly))).toEqual(['Printable but not editable.'])
  })

  it('refuses a legacy Office file (a Compound File that is not encrypted) as not what .docx says', async () => {
    const legacy = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(504)])
    const error = await refusal(extractPages('old.docx', 'docx', legacy))
    expect([error.status, error.code]).toEqual([422, AI_HUB_ERROR_CODES.mislabelled])
  })

  it('refuses an empty file and a file without text', async () => {
    for (const [name, type, bytes] of [
      ['empty.txt', 'txt', Buffer.alloc(0)],
      ['blank.txt', 'txt', Buffer.from(' \n\f \n')],
      ['blank.pdf', 'pdf', await pdfOf([[]])],
      ['blank.xlsx', 'xlsx', await xlsxOf([{ name: 'Sheet1', rows: [] }])],
    ] as const) {
      const error = await refusal(extractPages(name, type, bytes))
      expect([error.status, error.code, error.message]).toEqual([422, AI_HUB_ERROR_CODES.empty, AI_HUB_MESSAGES.emptyDocument(name)])
    }
  })

  it('knows the types by extension only', () => {
    expect(['a.PDF', 'b.docx', 'c.pptx', 'd.xlsx', 'e.txt', 'f.doc', 'g', 'h.csv'].map(documentTypeOf)).toEqual([
      'pdf',
      'docx',
      'pptx',
      'xlsx',
      'txt',
      null,
      null,
      null,
    ])
  })

  it('keeps text PostgreSQL can store', () => {
    expect(cleanText('a\u0000b\r\nc\t\td\uD800')).toBe('a b\nc\td')
  })
})

describe('tokens, sentences and numbers', () => {
  it('counts tokens with the cl100k_base encoding', () => {
    expect(countTokens('')).toBe(0)
    expect(countTokens('hello world')).toBe(2)
    expect(countTokens('CroFab antivenom')).toBeGreaterThan(2)
  })

  it('splits a page into exact slices', () => {
    const page = 'First sentence. Second one!\nA title\n\nLast?'
    for (const sentence of sentencesOf(page)) expect(page.slice(sentence.start, sentence.start + sentence.text.length)).toBe(sentence.text)
    expect(sentencesOf(page).map((s) => s.text)).toEqual(['First sentence.', 'Second one!', 'A title', 'Last?'])
  })

  it('takes the content words of a question', () => {
    expect(keywordsOf('What is the CroFab usage in Texas hospitals?')).toEqual(['crofab', 'usage', 'texas', 'hospitals'])
  })

  it('finds numbers that the context does not hold', () => {
    expect(numbersNotIn('Texas used 1234 vials [S1], up 12%.', 'Texas used 1,234 vials.')).toEqual(['12'])
    expect(numbersNotIn('0.50 and 3.0', 'values 0.5 and 3')).toEqual([])
  })
})
