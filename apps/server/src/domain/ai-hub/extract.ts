import { AI_DOCUMENT_TYPES, AI_HUB_ERROR_CODES, AI_HUB_MESSAGES, type AiDocumentType } from '@citrus/contracts'
import ExcelJS from 'exceljs'
import JSZip from 'jszip'
import { AppError } from '../../lib/errors.js'

/**
 * Text of an uploaded document, page by page (slides of a presentation, sheets of a workbook), from the bytes
 * alone: the extension says what the file must be, its content must agree (signature and structure), and a
 * password-protected or textless file is refused. Libraries: pdf.js (Mozilla) for PDF, JSZip for the Office
 * Open XML packages (WordprocessingML and PresentationML read directly), ExcelJS for workbooks.
 */

export interface ExtractedPage {
  /** 1-based */
  page: number
  text: string
}

export class DocumentRejected extends AppError {}

const mislabelled = (filename: string, type: AiDocumentType) =>
  new DocumentRejected(422, AI_HUB_ERROR_CODES.mislabelled, AI_HUB_MESSAGES.mislabelled(filename, type))
const encrypted = (filename: string) => new DocumentRejected(422, AI_HUB_ERROR_CODES.encrypted, AI_HUB_MESSAGES.encrypted(filename))
export const emptyDocument = (filename: string) =>
  new DocumentRejected(422, AI_HUB_ERROR_CODES.empty, AI_HUB_MESSAGES.emptyDocument(filename))

/** The document type of a file name, or null when the extension is not one the AI Hub reads. */
export function documentTypeOf(filename: string): AiDocumentType | null {
  const extension = /\.([A-Za-z0-9]+)$/.exec(filename)?.[1]?.toLowerCase()
  return (AI_DOCUMENT_TYPES as readonly string[]).includes(extension ?? '') ? (extension as AiDocumentType) : null
}

/** Text PostgreSQL can store and people can read: no NUL or other control characters, single spaces and tabs, trimmed lines. */
export function cleanText(text: string): string {
  return (
    text
      .replace(/\r\n?/g, '\n')
      // eslint-disable-next-line no-control-regex -- removing control characters is the point
      .replace(/[\u0000-\u0008\u000B-\u001F\u007F]/g, ' ')
      .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '')
      .replace(/[ \u00A0]+/g, ' ')
      .replace(/ *\t[\t ]*/g, '\t')
      .split('\n')
      .map((line) => line.trim())
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim()
  )
}

const startsWith = (bytes: Buffer, signature: number[]) => signature.every((byte, index) => bytes[index] === byte)
const ZIP = [0x50, 0x4b, 0x03, 0x04]
/** Compound File Binary (OLE2): legacy Office files, and the container of password-protected OOXML files. */
const CFB = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]

export async function extractPages(filename: string, type: AiDocumentType, bytes: Buffer): Promise<ExtractedPage[]> {
  if (bytes.length === 0) throw emptyDocument(filename)
  let pages: ExtractedPage[]
  switch (type) {
    case 'pdf':
      pages = await extractPdf(filename, bytes)
      break
    case 'txt':
      pages = extractText(filename, bytes)
      break
    default:
      pages = await extractOffice(filename, type, bytes)
  }
  const cleaned = pages.map((page) => ({ page: page.page, text: cleanText(page.text) }))
  if (cleaned.every((page) => page.text === '')) throw emptyDocument(filename)
  return cleaned
}

// ---- PDF ---------------------------------------------------------------------------------------

interface PdfTextItem {
  str?: string
  hasEOL?: boolean
}

async function extractPdf(filename: string, bytes: Buffer): Promise<ExtractedPage[]> {
  // The signature may follow a little junk (the PDF specification tolerates up to 1 KB before it).
  if (!bytes.subarray(0, 1024).includes('%PDF-')) throw mislabelled(filename, 'pdf')
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs')
  const task = getDocument({
    data: new Uint8Array(bytes),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    stopAtErrors: false,
    verbosity: 0,
  })
  let pdf: Awaited<typeof task.promise>
  try {
    pdf = await task.promise
  } catch (error) {
    await task.destroy().catch(() => undefined)
    if ((error as Error).name === 'PasswordException') throw encrypted(filename)
    throw mislabelled(filename, 'pdf')
  }
  try {
    const pages: ExtractedPage[] = []
    for (let number = 1; number <= pdf.numPages; number++) {
      const page = await pdf.getPage(number)
      const content = await page.getTextContent()
      let text = ''
      for (const item of content.items as PdfTextItem[]) {
        if (typeof item.str !== 'string') continue
        text += item.str
        text += item.hasEOL ? '\n' : item.str.endsWith(' ') || item.str === '' ? '' : ' '
      }
      pages.push({ page: number, text })
      page.cleanup()
    }
    return pages
  } finally {
    await pdf.destroy()
  }
}

// ---- plain text --------------------------------------------------------------------------------

function extractText(filename: string, bytes: Buffer): ExtractedPage[] {
  // Plain text is UTF-8 without NUL bytes; anything else (an image, a zip, UTF-16) is not what .txt promises.
  if (bytes.includes(0)) throw mislabelled(filename, 'txt')
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes)
  } catch {
    throw mislabelled(filename, 'txt')
  }
  // Form feeds separate pages in plain text (pr, enscript and pdftotext write them).
  return text.split('\f').map((part, index) => ({ page: index + 1, text: part }))
}

// ---- Office Open XML ---------------------------------------------------------------------------

const MAIN_PART: Record<'docx' | 'pptx' | 'xlsx', string> = {
  docx: 'word/document.xml',
  pptx: 'ppt/presentation.xml',
  xlsx: 'xl/workbook.xml',
}

/** A CFB file that holds an EncryptedPackage stream is an encrypted OOXML file (MS-OFFCRYPTO). */
const ENCRYPTED_PACKAGE = Buffer.from('EncryptedPackage', 'utf16le')

async function extractOffice(filename: string, type: 'docx' | 'pptx' | 'xlsx', bytes: Buffer): Promise<ExtractedPage[]> {
  if (startsWith(bytes, CFB)) throw bytes.includes(ENCRYPTED_PACKAGE) ? encrypted(filename) : mislabelled(filename, type)
  if (!startsWith(bytes, ZIP)) throw mislabelled(filename, type)
  let zip: JSZip
  try {
    zip = await JSZip.loadAsync(bytes)
  } catch {
    throw mislabelled(filename, type)
  }
  if (!zip.file(MAIN_PART[type])) throw mislabelled(filename, type)
  try {
    if (type === 'docx') return await extractDocx(zip)
    if (type === 'pptx') return await extractPptx(zip)
    return await extractXlsx(bytes)
  } catch (error) {
    if (error instanceof AppError) throw error
    throw mislabelled(filename, type)
  }
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }
export function decodeXml(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (entity, name: string) => {
    if (name.startsWith('#x')) return String.fromCodePoint(parseInt(name.slice(2), 16))
    if (name.startsWith('#')) return String.fromCodePoint(parseInt(name.slice(1), 10))
    return ENTITIES[name] ?? entity
  })
}

/**
 * A Word document's pages as Word laid them out when it last saved the file (w:lastRenderedPageBreak), plus
 * explicit page breaks (w:br w:type="page", w:pageBreakBefore) and page-starting section breaks. A document
 * that was never laid out (written by a program) and has no breaks is one page.
 */
async function extractDocx(zip: JSZip): Promise<ExtractedPage[]> {
  const xml = await zip.file('word/document.xml')!.async('string')
  const body = /<w:body\b[^>]*>([\s\S]*)<\/w:body>/.exec(xml)?.[1] ?? ''
  const pages: string[] = ['']
  const newPage = () => {
    if (pages[pages.length - 1]!.trim() !== '') pages.push('')
  }
  const append = (text: string) => (pages[pages.length - 1] += text)
  const token =
    /<w:p\b[^>]*\/>|<w:p\b[^>]*>|<\/w:p>|<w:pageBreakBefore\b[^>]*\/>|<w:br\b[^>]*\/>|<w:lastRenderedPageBreak\/>|<w:tab\/>|<w:t\b[^>]*>([^<]*)<\/w:t>|<w:sectPr\b[\s\S]*?<\/w:sectPr>|<w:tc>|<\/w:tr>/g
  for (const match of body.matchAll(token)) {
    const tag = match[0]
    if (match[1] !== undefined) append(decodeXml(match[1]))
    else if (tag.startsWith('<w:pageBreakBefore')) {
      if (!/w:val="(0|false)"/.test(tag)) newPage()
    } else if (tag.startsWith('<w:br')) {
      if (/w:type="page"/.test(tag)) newPage()
      else if (!/w:type="column"/.test(tag)) append('\n')
    } else if (tag === '<w:lastRenderedPageBreak/>') newPage()
    else if (tag === '<w:tab/>' || tag === '<w:tc>') append('\t')
    else if (tag === '</w:p>' || tag === '</w:tr>' || tag.endsWith('/>')) append('\n')
    else if (tag.startsWith('<w:sectPr')) {
      // a section break that starts a new page (the default type) ends this page, unless it is the last one
      if (!/<w:type w:val="continuous"\/>/.test(tag)) newPage()
    }
  }
  while (pages.length > 1 && pages[pages.length - 1]!.trim() === '') pages.pop()
  return pages.map((text, index) => ({ page: index + 1, text }))
}

/** Slides in presentation order (p:sldIdLst through the package relationships), text paragraph by paragraph. */
async function extractPptx(zip: JSZip): Promise<ExtractedPage[]> {
  const presentation = await zip.file('ppt/presentation.xml')!.async('string')
  const relsFile = zip.file('ppt/_rels/presentation.xml.rels')
  const rels = relsFile ? await relsFile.async('string') : ''
  const targets = new Map<string, string>()
  for (const rel of rels.matchAll(/<Relationship\b[^>]*>/g)) {
    const id = /\bId="([^"]+)"/.exec(rel[0])?.[1]
    const target = /\bTarget="([^"]+)"/.exec(rel[0])?.[1]
    if (id && target) targets.set(id, target.startsWith('/') ? target.slice(1) : `ppt/${target}`)
  }
  let slidePaths = [...presentation.matchAll(/<p:sldId\b[^>]*\br:id="([^"]+)"/g)]
    .map((match) => targets.get(match[1]!))
    .filter((target): target is string => target !== undefined && zip.file(target) !== null)
  if (slidePaths.length === 0) {
    const slideNumber = (name: string) => Number(/slide(\d+)\.xml$/.exec(name)?.[1] ?? 0)
    slidePaths = Object.keys(zip.files)
      .filter((name) => /^ppt\/slides\/slide\d+\.xml$/.test(name))
      .sort((a, b) => slideNumber(a) - slideNumber(b))
  }
  const pages: ExtractedPage[] = []
  for (const [index, slidePath] of slidePaths.entries()) {
    const xml = await zip.file(slidePath)!.async('string')
    const paragraphs = [...xml.matchAll(/<a:p>([\s\S]*?)<\/a:p>|<a:p\b[^>]*>([\s\S]*?)<\/a:p>/g)].map((paragraph) => {
      const inner = paragraph[1] ?? paragraph[2] ?? ''
      return [...inner.matchAll(/<a:t>([^<]*)<\/a:t>|<a:br\b[^>]*\/>/g)]
        .map((run) => (run[1] === undefined ? '\n' : decodeXml(run[1])))
        .join('')
    })
    pages.push({ page: index + 1, text: paragraphs.join('\n') })
  }
  return pages
}

/** One page per worksheet: its name, then each row's cells as shown (formatted values), tab-separated. */
async function extractXlsx(bytes: Buffer): Promise<ExtractedPage[]> {
  const workbook = new ExcelJS.Workbook()
  await workbook.xlsx.load(bytes as unknown as ArrayBuffer)
  const pages: ExtractedPage[] = []
  workbook.eachSheet((sheet) => {
    const lines = [sheet.name]
    sheet.eachRow({ includeEmpty: false }, (row) => {
      const cells: string[] = []
      row.eachCell({ includeEmpty: true }, (cell) => {
        cells.push(cellText(cell))
      })
      const line = cells.join('\t').trim()
      if (line !== '') lines.push(line)
    })
    pages.push({ page: pages.length + 1, text: lines.length > 1 ? lines.join('\n') : '' })
  })
  return pages
}

function cellText(cell: ExcelJS.Cell): string {
  try {
    return cell.text ?? ''
  } catch {
    return String(cell.value ?? '')
  }
}
