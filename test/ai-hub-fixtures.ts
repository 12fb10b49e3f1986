import { readFileSync } from 'node:fs'
import ExcelJS from 'exceljs'
import { Document, Packer, PageBreak, Paragraph, TextRun } from 'docx'
import PDFDocument from 'pdfkit'
import PptxGenJS from 'pptxgenjs'

/**
 * AI Hub test documents, written by each format's own writer library (pdfkit, docx, pptxgenjs, ExcelJS):
 * `pages` is the text of each page (slide, sheet), one entry per line.
 */
export type Pages = string[][]

/** A PDF; with `userPassword` it opens only with that password, with `ownerPassword` alone it opens without one. */
export async function pdfOf(pages: Pages, options: { userPassword?: string; ownerPassword?: string } = {}): Promise<Buffer> {
  const doc = new PDFDocument({
    autoFirstPage: false,
    ...(options.userPassword ? { userPassword: options.userPassword, ownerPassword: options.ownerPassword ?? 'owner' } : {}),
    ...(!options.userPassword && options.ownerPassword
      ? { ownerPassword: options.ownerPassword, permissions: { printing: 'highResolution' } }
      : {}),
  })
  const chunks: Buffer[] = []
  doc.on('data', (chunk: Buffer) => chunks.push(chunk))
  const ended = new Promise<void>((resolve) => doc.on('end', () => resolve()))
  for (const lines of pages) {
    doc.addPage()
    for (const line of lines) doc.text(line)
  }
  doc.end()
  await ended
  return Buffer.concat(chunks)
}

export async function docxOf(pages: Pages): Promise<Buffer> {
  const children: Paragraph[] = []
  pages.forEach((lines, index) => {
    lines.forEach((line, lineIndex) => {
      const runs = [new TextRun(line)]
      children.push(new Paragraph({ children: index > 0 && lineIndex === 0 ? [new PageBreak(), ...runs] : runs }))
    })
  })
  return Packer.toBuffer(new Document({ sections: [{ children }] }))
}

export async function pptxOf(slides: Pages): Promise<Buffer> {
  const pptx = new PptxGenJS()
  for (const lines of slides) {
    const slide = pptx.addSlide()
    slide.addText(lines.join('\n'), { x: 0.5, y: 0.5, w: 9, h: 4 })
  }
  return (await pptx.write({ outputType: 'nodebuffer' })) as Buffer
}

/** One sheet per entry: [name, ...rows], each row tab-separated cells. */
export async function xlsxOf(sheets: { name: string; rows: (string | number)[][] }[]): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook()
  for (const sheet of sheets) {
    const worksheet = workbook.addWorksheet(sheet.name)
    for (const row of sheet.rows) worksheet.addRow(row)
  }
  return Buffer.from(await workbook.xlsx.writeBuffer())
}

/**
 * A Word, Excel or PowerPoint file saved with the password 'citrus' (ECMA-376 agile encryption): committed files,
 * their source in test/fixtures/ai-hub/README.md.
 */
export function encryptedOffice(type: 'docx' | 'xlsx' | 'pptx'): Buffer {
  return readFileSync(new URL(`./fixtures/ai-hub/encrypted.${type}`, import.meta.url))
}
