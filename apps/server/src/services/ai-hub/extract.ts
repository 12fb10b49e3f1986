import { AI_HUB_ERROR_CODES, AI_HUB_MESSAGES, AI_MAX_CONTEXT_TOKENS, AI_MAX_UNPACKED_BYTES, type AiDocumentType } from '@citrus/contracts'
import ExcelJS from 'exceljs'
import JSZip from 'jszip'
import { AppError } from '../../lib/errors.js'
import { pdfUnpacksTooLarge } from './pdf-streams.js'
import { countTokens } from './tokens.js'
import { CappedZip, ZipRefused, zipEntries, type ZipEntry } from './zip.js'

/**
 * Text of an uploaded document, page by page (slides of a presentation, sheets of a workbook), from the bytes
 * alone: the extension says what the file must be, its content must agree (signature and structure), and a
 * password-protected or textless file is refused. Libraries: pdf.js (Mozilla) for PDF, JSZip for the Office
 * Open XML packages (WordprocessingML and PresentationML read directly), ExcelJS for workbooks.
 *
 * A document may not cost more than it can hold (issue 32 §1): an Office file is unpacked by a capped zip
 * reader (zip.ts; ExcelJS gets a copy of what that reader unpacked), a PDF's compressed streams are measured
 * before pdf.js reads it (pdf-streams.ts), the raw text stops at `maxTextChars`, a PDF at `maxPdfPages`, and
 * the tokens are counted page by page until the budget is passed. The route runs this
 * on a worker thread with memory and time limits (extract-pool.ts).
 */

export interface ExtractedPage {
  /** 1-based */
  page: number
  text: string
  /** cl100k_base tokens of `text` */
  tokens: number
}

export interface ExtractLimits {
  /** what the parts read from an Office file may unpack to, together; and a PDF's streams other than images */
  maxUnpackedBytes: number
  /** entries an Office file's zip may list */
  maxEntries: number
  /** characters of text, before cleaning, read from one document */
  maxTextChars: number
  /** pages read from one PDF */
  maxPdfPages: number
  /** tokens one document may hold: the whole context's budget */
  maxTokens: number
}

export const EXTRACT_LIMITS: ExtractLimits = {
  maxUnpackedBytes: AI_MAX_UNPACKED_BYTES,
  maxEntries: 10_000,
  // 16 characters per token of the budget: four times prose (about 4 per token), and a PDF that draws more
  // text than that is stopped in about a second
  maxTextChars: AI_MAX_CONTEXT_TOKENS * 16,
  maxPdfPages: 2_000,
  maxTokens: AI_MAX_CONTEXT_TOKENS,
}

export class DocumentRejected extends AppError {}

export const mislabelled = (filename: string, type: AiDocumentType) =>
  new DocumentRejected(422, AI_HUB_ERROR_CODES.mislabelled, AI_HUB_MESSAGES.mislabelled(filename, type))
const encrypted = (filename: string) => new DocumentRejected(422, AI_HUB_ERROR_CODES.encrypted, AI_HUB_MESSAGES.encrypted(filename))
export const emptyDocument = (filename: string) =>
  new DocumentRejected(422, AI_HUB_ERROR_CODES.empty, AI_HUB_MESSAGES.emptyDocument(filename))
export const unpacksTooLarge = (filename: string) =>
  new DocumentRejected(422, AI_HUB_ERROR_CODES.unpacksTooLarge, AI_HUB_MESSAGES.unpacksTooLarge(filename))
export const documentTooLarge = (filename: string) =>
  new DocumentRejected(422, AI_HUB_ERROR_CODES.budgetExceeded, AI_HUB_MESSAGES.documentTooLarge(filename))
export const documentTooComplex = (filename: string) =>
  new DocumentRejected(422, AI_HUB_ERROR_CODES.tooComplex, AI_HUB_MESSAGES.documentTooComplex(filename))

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

/**
 * The text read from one document: raw text stops the moment it passes `maxTextChars`, and each page is cleaned
 * and counted as soon as it is complete, stopping once the document passes the token budget.
 */
class TextCap {
  private used = 0
  private tokensLeft: number
  readonly pages: ExtractedPage[] = []
  constructor(
    private readonly filename: string,
    private readonly limits: ExtractLimits,
  ) {
    this.tokensLeft = limits.maxTokens
  }
  add(text: string): string {
    this.used += text.length
    if (this.used > this.limits.maxTextChars) throw documentTooLarge(this.filename)
    return text
  }
  page(raw: string): void {
    const text = cleanText(raw)
    const tokens = countTokens(text, this.tokensLeft)
    // a document over the budget is refused whatever its full count
    if (tokens > this.tokensLeft) throw documentTooLarge(this.filename)
    this.tokensLeft -= tokens
    this.pages.push({ page: this.pages.length + 1, text, tokens })
  }
}

export async function extractPages(
  filename: string,
  type: AiDocumentType,
  bytes: Buffer,
  limits: ExtractLimits = EXTRACT_LIMITS,
): Promise<ExtractedPage[]> {
  if (bytes.length === 0) throw emptyDocument(filename)
  const cap = new TextCap(filename, limits)
  switch (type) {
    case 'pdf':
      await extractPdf(filename, bytes, cap, limits)
      break
    case 'txt':
      extractText(filename, bytes, cap)
      break
    default:
      await extractOffice(filename, type, bytes, cap, limits)
  }
  if (cap.pages.every((page) => page.text === '')) throw emptyDocument(filename)
  return cap.pages
}

/**
 * Checks an Office file's zip directory against the caps without inflating anything (cheap enough for the
 * event loop): a bomb that declares its size is refused before it reaches an extraction thread.
 */
export function checkArchive(filename: string, type: AiDocumentType, bytes: Buffer, limits: ExtractLimits = EXTRACT_LIMITS): void {
  if (type === 'pdf' || type === 'txt' || !startsWith(bytes, ZIP)) return
  let entries: ZipEntry[]
  try {
    entries = zipEntries(bytes, limits)
  } catch (error) {
    if (error instanceof ZipRefused && error.reason === 'too-large') throw unpacksTooLarge(filename)
    return // not a readable zip: the extraction says what it is
  }
  const read = entries.filter((entry) => PARTS_READ[type](entry.name))
  if (read.reduce((sum, entry) => sum + entry.size, 0) > limits.maxUnpackedBytes) throw unpacksTooLarge(filename)
}

// ---- PDF ---------------------------------------------------------------------------------------

interface PdfTextItem {
  str?: string
  hasEOL?: boolean
}

async function extractPdf(filename: string, bytes: Buffer, cap: TextCap, limits: ExtractLimits): Promise<void> {
  // The signature may follow a little junk (the PDF specification tolerates up to 1 KB before it).
  if (!bytes.subarray(0, 1024).includes('%PDF-')) throw mislabelled(filename, 'pdf')
  // images are not decoded for text; eight times the cap leaves room for pictures stored without loss
  if (await pdfUnpacksTooLarge(bytes, { content: limits.maxUnpackedBytes, images: 8 * limits.maxUnpackedBytes })) {
    throw unpacksTooLarge(filename)
  }
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
    if (pdf.numPages > limits.maxPdfPages) throw documentTooComplex(filename)
    for (let number = 1; number <= pdf.numPages; number++) {
      const page = await pdf.getPage(number)
      let text = ''
      // streamed, so a page whose content stream unpacks to far more text is stopped at the cap
      const reader = (page.streamTextContent() as ReadableStream<{ items: PdfTextItem[] }>).getReader()
      try {
        for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
          let part = ''
          for (const item of chunk.value.items) {
            if (typeof item.str !== 'string') continue
            part += item.str
            part += item.hasEOL ? '\n' : item.str.endsWith(' ') || item.str === '' ? '' : ' '
          }
          text += cap.add(part)
        }
      } finally {
        // not cancelled: pdf.js enqueues into a cancelled text stream and throws; destroying the document stops it
        reader.releaseLock()
      }
      page.cleanup()
      cap.page(text)
    }
  } finally {
    await Promise.race([pdf.destroy().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 100))])
  }
}

// ---- plain text --------------------------------------------------------------------------------

function extractText(filename: string, bytes: Buffer, cap: TextCap): void {
  // Plain text is UTF-8 without NUL bytes; anything else (an image, a zip, UTF-16) is not what .txt promises.
  if (bytes.includes(0)) throw mislabelled(filename, 'txt')
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes)
  } catch {
    throw mislabelled(filename, 'txt')
  }
  cap.add(text)
  // Form feeds separate pages in plain text (pr, enscript and pdftotext write them).
  for (const part of text.split('\f')) cap.page(part)
}

// ---- Office Open XML ---------------------------------------------------------------------------

const MAIN_PART: Record<'docx' | 'pptx' | 'xlsx', string> = {
  docx: 'word/document.xml',
  pptx: 'ppt/presentation.xml',
  xlsx: 'xl/workbook.xml',
}

/** The parts each type's extraction may unpack (the budget of unpacked bytes is over these). */
const PARTS_READ: Record<AiDocumentType, (name: string) => boolean> = {
  docx: (name) => name === 'word/document.xml',
  pptx: (name) => name === 'ppt/presentation.xml' || name === 'ppt/_rels/presentation.xml.rels' || /^ppt\/slides\/[^/]+\.xml$/.test(name),
  // ExcelJS reads every entry
  xlsx: (name) => !name.endsWith('/'),
  pdf: () => false,
  txt: () => false,
}

/** A CFB file that holds an EncryptedPackage stream is an encrypted OOXML file (MS-OFFCRYPTO). */
const ENCRYPTED_PACKAGE = Buffer.from('EncryptedPackage', 'utf16le')

async function extractOffice(
  filename: string,
  type: 'docx' | 'pptx' | 'xlsx',
  bytes: Buffer,
  cap: TextCap,
  limits: ExtractLimits,
): Promise<void> {
  if (startsWith(bytes, CFB)) throw bytes.includes(ENCRYPTED_PACKAGE) ? encrypted(filename) : mislabelled(filename, type)
  if (!startsWith(bytes, ZIP)) throw mislabelled(filename, type)
  try {
    const zip = new CappedZip(bytes, limits)
    if (!zip.has(MAIN_PART[type])) throw mislabelled(filename, type)
    if (type === 'docx') extractDocx(zip, cap)
    else if (type === 'pptx') extractPptx(zip, cap)
    else await extractXlsx(zip, cap)
  } catch (error) {
    if (error instanceof ZipRefused && error.reason === 'too-large') throw unpacksTooLarge(filename)
    if (error instanceof AppError) throw error
    throw mislabelled(filename, type)
  }
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }
export function decodeXml(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (entity, name: string) => {
    const code = name.startsWith('#x') ? parseInt(name.slice(2), 16) : name.startsWith('#') ? parseInt(name.slice(1), 10) : null
    if (code === null) return ENTITIES[name] ?? entity
    return code <= 0x10ffff ? String.fromCodePoint(code) : entity
  })
}

/**
 * A Word document's pages as Word laid them out when it last saved the file (w:lastRenderedPageBreak), plus
 * explicit page breaks (w:br w:type="page", w:pageBreakBefore) and page-starting section breaks. A document
 * that was never laid out (written by a program) and has no breaks is one page.
 */
function extractDocx(zip: CappedZip, cap: TextCap): void {
  const part = 'word/document.xml'
  zip.checkDeclared(zip.entries.filter((entry) => entry.name === part))
  const xml = zip.text(part) ?? ''
  // found with indexOf, not a backtracking pattern (linear on any input)
  const open = xml.indexOf('<w:body')
  const bodyStart = open < 0 ? -1 : xml.indexOf('>', open)
  const bodyEnd = xml.lastIndexOf('</w:body>')
  const body = bodyStart >= 0 && bodyEnd > bodyStart ? xml.slice(bodyStart + 1, bodyEnd) : ''
  const pages: string[] = ['']
  const newPage = () => {
    if (pages[pages.length - 1]!.trim() !== '') pages.push('')
  }
  const append = (text: string) => (pages[pages.length - 1] += cap.add(text))
  const token =
    /<w:p\b[^>]*\/>|<w:p\b[^>]*>|<\/w:p>|<w:pageBreakBefore\b[^>]*\/>|<w:br\b[^>]*\/>|<w:lastRenderedPageBreak\/>|<w:tab\/>|<w:t\b[^>]*>([^<]*)<\/w:t>|<w:sectPr\b[^>]*\/>|<w:sectPr\b[^>]*>|<\/w:sectPr>|<w:type w:val="continuous"\/>|<w:tc>|<\/w:tr>/g
  // a section break that starts a new page (the default type) ends this page, unless it is the last one
  let sectionDepth = 0
  let continuous = false
  for (const match of body.matchAll(token)) {
    const tag = match[0]
    if (match[1] !== undefined) append(decodeXml(match[1]))
    else if (tag.startsWith('<w:sectPr')) {
      if (tag.endsWith('/>')) {
        if (sectionDepth === 0) newPage()
      } else if (sectionDepth++ === 0) continuous = false
    } else if (tag === '</w:sectPr>') {
      if (sectionDepth > 0 && --sectionDepth === 0 && !continuous) newPage()
    } else if (tag.startsWith('<w:type')) {
      if (sectionDepth > 0) continuous = true
    } else if (sectionDepth > 0) continue
    else if (tag.startsWith('<w:pageBreakBefore')) {
      if (!/w:val="(0|false)"/.test(tag)) newPage()
    } else if (tag.startsWith('<w:br')) {
      if (/w:type="page"/.test(tag)) newPage()
      else if (!/w:type="column"/.test(tag)) append('\n')
    } else if (tag === '<w:lastRenderedPageBreak/>') newPage()
    else if (tag === '<w:tab/>' || tag === '<w:tc>') append('\t')
    else if (tag === '</w:p>' || tag === '</w:tr>' || tag.endsWith('/>')) append('\n')
  }
  while (pages.length > 1 && pages[pages.length - 1]!.trim() === '') pages.pop()
  for (const text of pages) cap.page(text)
}

/** The text of each a:p paragraph of a slide (found with indexOf: linear on any input). */
function* paragraphsOf(xml: string): Generator<string> {
  const opening = /<a:p(?:\s[^>]*)?>/g
  let match: RegExpExecArray | null
  while ((match = opening.exec(xml)) !== null) {
    const start = match.index + match[0].length
    const end = xml.indexOf('</a:p>', start)
    if (end < 0) return
    yield xml.slice(start, end)
    opening.lastIndex = end + 6
  }
}

/** Slides in presentation order (p:sldIdLst through the package relationships), text paragraph by paragraph. */
function extractPptx(zip: CappedZip, cap: TextCap): void {
  zip.checkDeclared(
    zip.entries.filter((entry) => entry.name === 'ppt/presentation.xml' || entry.name === 'ppt/_rels/presentation.xml.rels'),
  )
  const presentation = zip.text('ppt/presentation.xml') ?? ''
  const rels = zip.text('ppt/_rels/presentation.xml.rels') ?? ''
  const targets = new Map<string, string>()
  for (const rel of rels.matchAll(/<Relationship\b[^>]*>/g)) {
    const id = /\bId="([^"]+)"/.exec(rel[0])?.[1]
    const target = /\bTarget="([^"]+)"/.exec(rel[0])?.[1]
    if (id && target) targets.set(id, target.startsWith('/') ? target.slice(1) : `ppt/${target}`)
  }
  let slidePaths = [...presentation.matchAll(/<p:sldId\b[^>]*?\br:id="([^"]+)"/g)]
    .map((match) => targets.get(match[1]!))
    .filter((target): target is string => target !== undefined && zip.has(target))
  if (slidePaths.length === 0) {
    const slideNumber = (name: string) => Number(/slide(\d+)\.xml$/.exec(name)?.[1] ?? 0)
    slidePaths = zip.entries
      .map((entry) => entry.name)
      .filter((name) => /^ppt\/slides\/slide\d+\.xml$/.test(name))
      .sort((a, b) => slideNumber(a) - slideNumber(b))
  }
  // every slide's declared size within the budget before the first is unpacked (a slide listed twice counts twice)
  zip.checkDeclared(slidePaths.map((path) => zip.entries.find((entry) => entry.name === path)!))
  for (const slidePath of slidePaths) {
    const xml = zip.text(slidePath) ?? ''
    const paragraphs: string[] = []
    for (const inner of paragraphsOf(xml)) {
      const text = [...inner.matchAll(/<a:t>([^<]*)<\/a:t>|<a:br\b[^>]*\/>/g)]
        .map((run) => (run[1] === undefined ? '\n' : decodeXml(run[1])))
        .join('')
      paragraphs.push(cap.add(text))
    }
    cap.page(paragraphs.join('\n'))
  }
}

/**
 * One page per worksheet: its name, then each row's cells as shown (formatted values), tab-separated. ExcelJS
 * unpacks the zip it is given itself, so it is given a stored (uncompressed) copy of what the capped reader
 * unpacked: it never inflates a byte the caps did not allow.
 */
async function extractXlsx(zip: CappedZip, cap: TextCap): Promise<void> {
  const files = zip.entries.filter((entry) => PARTS_READ.xlsx(entry.name))
  zip.checkDeclared(files)
  const copy = new JSZip()
  for (const entry of files) copy.file(entry.name, zip.readEntry(entry), { binary: true, compression: 'STORE' })
  const stored = await copy.generateAsync({ type: 'nodebuffer', compression: 'STORE' })
  const workbook = new ExcelJS.Workbook()
  await workbook.xlsx.load(stored as unknown as ArrayBuffer)
  workbook.eachSheet((sheet) => {
    const lines = [cap.add(sheet.name)]
    sheet.eachRow({ includeEmpty: false }, (row) => {
      const cells: string[] = []
      row.eachCell({ includeEmpty: true }, (cell) => {
        cells.push(cellText(cell))
      })
      const line = cells.join('\t').trim()
      if (line !== '') lines.push(cap.add(line))
    })
    cap.page(lines.length > 1 ? lines.join('\n') : '')
  })
}

function cellText(cell: ExcelJS.Cell): string {
  try {
    return cell.text ?? ''
  } catch {
    return String(cell.value ?? '')
  }
}
