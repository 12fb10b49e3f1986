import { AI_HUB_ERROR_CODES, AI_HUB_MESSAGES, AI_MAX_CONTEXT_TOKENS, AI_MAX_FILE_BYTES, aiDocumentTypeOf } from '@citrus/contracts'
import { Tiktoken } from 'js-tiktoken/lite'
import cl100k from 'js-tiktoken/ranks/cl100k_base'
import JSZip from 'jszip'
import { describe, expect, it } from 'vitest'
import { docxOf, encryptedOffice, pdfOf, pptxOf, xlsxOf } from '../../../../../test/ai-hub-fixtures.ts'
import { checkArchive, cleanText, extractPages } from './extract.ts'
import { numbersNotIn } from './numbers.ts'
import { keywordsOf, sentencesOf } from './retrieval.ts'
import { docxBomb, pdfBomb, pptxBomb, xlsxBomb } from './test-bombs.ts'
import { refusal } from './test/refusal.ts'
import { countTokens } from './tokens.ts'
import { CappedZip, ZipRefused } from './zip.ts'

const texts = (pages: { text: string }[]) => pages.map((page) => page.text)

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
    expect(['a.PDF', 'b.docx', 'c.pptx', 'd.xlsx', 'e.txt', 'f.doc', 'g', 'h.csv'].map(aiDocumentTypeOf)).toEqual([
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

  it('counts as tiktoken does, but a long run without spaces in slices (tiktoken is quadratic in it) and special tokens as text', () => {
    const tiktoken = new Tiktoken(cl100k)
    const prose = "The pharmacy director at Tucson Medical Center ordered 1,234 vials of CroFab; don't forget Dallas.\n\n\tNext: Arizona. "
    expect(countTokens(prose.repeat(400))).toBe(tiktoken.encode(prose.repeat(400)).length)
    expect(countTokens('a <|endoftext|> b')).toBe(tiktoken.encode('a <|endoftext|> b', [], []).length)
    // tiktoken alone: 12 s for 10,000 letters, 4 s for 2,000 euro signs
    for (const run of ['a'.repeat(50_000), '€'.repeat(20_000), '中'.repeat(20_000), '-'.repeat(50_000)]) {
      const started = performance.now()
      const count = countTokens(run)
      expect(performance.now() - started).toBeLessThan(3_000)
      expect(count).toBeGreaterThan(run.length / 20)
    }
    // with a limit, counting stops once past it
    const started = performance.now()
    const limited = countTokens('€'.repeat(1_000_000), 1_000)
    expect(limited).toBeGreaterThan(1_000)
    expect(limited).toBeLessThan(1_100)
    expect(performance.now() - started).toBeLessThan(1_000)
  }, 30_000)

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

describe('documents that unpack or read to more than they may (issue 32 §1)', () => {
  const MB = 1024 * 1024
  const timed = async (work: () => Promise<unknown>) => {
    const started = performance.now()
    const error = await refusal(work())
    return { error, ms: performance.now() - started }
  }

  it('reads a real Office file with the capped zip reader as JSZip does', async () => {
    const docx = await docxOf([['Capped but complete.']])
    const zip = new CappedZip(docx, { maxEntries: 100, maxUnpackedBytes: MB })
    const reference = await JSZip.loadAsync(docx)
    expect(zip.entries.map((entry) => entry.name).sort()).toEqual(Object.keys(reference.files).sort())
    const xml = zip.text('word/document.xml')
    expect(xml).toBe(await reference.file('word/document.xml')!.async('string'))
    expect(zip.unpacked).toBe(Buffer.byteLength(xml!))
  })

  it('refuses an archive by its directory before inflating: too many entries, declared sizes over the cap', () => {
    const bomb = docxBomb(200 * MB)
    expect(bomb.length).toBeLessThan(MB)
    const zip = new CappedZip(bomb, { maxEntries: 10, maxUnpackedBytes: 32 * MB })
    expect(() => zip.checkDeclared(zip.entries)).toThrow(ZipRefused)
    expect(() => zip.read('word/document.xml')).toThrow(expect.objectContaining({ reason: 'too-large' }))
    expect(zip.unpacked).toBe(0)
    expect(() => new CappedZip(bomb, { maxEntries: 1, maxUnpackedBytes: 32 * MB })).toThrow(
      expect.objectContaining({ reason: 'too-large' }),
    )
  })

  it('stops inflating an entry that unpacks to more than its directory declares (a lying bomb)', () => {
    const liar = docxBomb(200 * MB, { lie: true })
    const zip = new CappedZip(liar, { maxEntries: 10, maxUnpackedBytes: 32 * MB })
    expect(zip.entries.find((entry) => entry.name === 'word/document.xml')!.size).toBe(4_096)
    const started = performance.now()
    expect(() => zip.read('word/document.xml')).toThrow(expect.objectContaining({ reason: 'too-large' }))
    expect(performance.now() - started).toBeLessThan(1_000)
  })

  it('refuses what is not a zip, or a cut-short one, as invalid', () => {
    const docx = docxBomb(1_000)
    for (const bytes of [Buffer.from('PK\u0003\u0004 nothing else'), docx.subarray(0, docx.length - 30), Buffer.alloc(10)]) {
      expect(() => new CappedZip(bytes, { maxEntries: 10, maxUnpackedBytes: MB })).toThrow(expect.objectContaining({ reason: 'invalid' }))
    }
  })

  it('refuses a .docx, .pptx, .xlsx or .pdf bomb, honest or lying about its size, in well under a second', async () => {
    const bombs: [string, 'docx' | 'pptx' | 'xlsx' | 'pdf', Buffer][] = [
      ['text.docx', 'docx', docxBomb(200 * MB)],
      ['spaces.docx', 'docx', docxBomb(400 * MB, { fill: ' ' })],
      ['liar.docx', 'docx', docxBomb(200 * MB, { lie: true })],
      ['deck.pptx', 'pptx', pptxBomb(200 * MB)],
      ['liar.pptx', 'pptx', pptxBomb(200 * MB, { lie: true })],
      ['sheet.xlsx', 'xlsx', xlsxBomb(400 * MB)],
      ['liar.xlsx', 'xlsx', xlsxBomb(400 * MB, { lie: true })],
      // pdf.js would inflate a page's content stream whole, outside the heap
      ['drawn.pdf', 'pdf', pdfBomb(200 * MB)],
      ['paths.pdf', 'pdf', pdfBomb(200 * MB, { paths: true })],
    ] as const
    for (const [name, type, bytes] of bombs) {
      const { error, ms } = await timed(() => extractPages(name, type, bytes))
      expect([error.status, error.code, error.message]).toEqual([
        422,
        AI_HUB_ERROR_CODES.unpacksTooLarge,
        AI_HUB_MESSAGES.unpacksTooLarge(name),
      ])
      expect(ms).toBeLessThan(1_000)
    }
    // the honest ones without inflating a byte, on the event loop
    expect(() => checkArchive('text.docx', 'docx', docxBomb(200 * MB))).toThrow(AI_HUB_MESSAGES.unpacksTooLarge('text.docx'))
    expect(() => checkArchive('sheet.xlsx', 'xlsx', xlsxBomb(400 * MB))).toThrow(AI_HUB_MESSAGES.unpacksTooLarge('sheet.xlsx'))
    expect(() => checkArchive('ok.docx', 'docx', docxBomb(1_000))).not.toThrow()
  })

  it('stops reading text past the cap (within the unpacked cap: 30 MB of one word or of spaces), and a PDF that draws too much', async () => {
    for (const [name, type, bytes] of [
      ['word.docx', 'docx', docxBomb(30 * MB)],
      ['spaces.docx', 'docx', docxBomb(30 * MB, { fill: ' ' })],
      ['slide.pptx', 'pptx', pptxBomb(30 * MB)],
      ['drawn.pdf', 'pdf', pdfBomb(4 * MB)],
      ['long.txt', 'txt', Buffer.alloc(AI_MAX_FILE_BYTES, 'word ')],
    ] as const) {
      const { error, ms } = await timed(() => extractPages(name, type, bytes))
      expect([error.status, error.code, error.message]).toEqual([
        422,
        AI_HUB_ERROR_CODES.budgetExceeded,
        AI_HUB_MESSAGES.documentTooLarge(name),
      ])
      expect(ms).toBeLessThan(5_000)
    }
  })

  it('refuses a document over the token budget as soon as it passes it, and keeps one just under it', async () => {
    const under = await extractPages('under.txt', 'txt', Buffer.from('word'.concat(' word'.repeat(AI_MAX_CONTEXT_TOKENS - 1))))
    expect(under.map((page) => page.tokens)).toEqual([AI_MAX_CONTEXT_TOKENS])
    const pages = Array.from({ length: 3 }, () => 'word'.concat(' word'.repeat(AI_MAX_CONTEXT_TOKENS / 2)))
    const { error } = await timed(() => extractPages('over.txt', 'txt', Buffer.from(pages.join('\f'))))
    expect([error.status, error.message]).toEqual([422, AI_HUB_MESSAGES.documentTooLarge('over.txt')])
  })
})
