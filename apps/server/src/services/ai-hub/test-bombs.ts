import { constants, crc32, deflateRawSync } from 'node:zlib'

/**
 * Decompression bombs for the AI Hub's tests (issue 32 §1), built in milliseconds without holding what they
 * unpack to: a deflate stream of `size` repeated bytes is one compressed megabyte, sync-flushed (byte-aligned,
 * referring to nothing before it), written as many times as needed, then an empty final block.
 */

const MB = 1024 * 1024

/** Raw deflate data of `before`, then `size` bytes of `fill`, then `after`; and its CRC-32. */
export function deflateBomb(before: string, fill: string, size: number, after: string): { data: Buffer; crc: number; length: number } {
  const flush = { finishFlush: constants.Z_SYNC_FLUSH, level: 9 }
  // whole copies of `fill` per chunk, so the chunks join seamlessly
  const fillLength = Buffer.byteLength(fill)
  const chunk = Buffer.alloc(Math.max(fillLength, Math.floor(Math.min(MB, Math.max(size, 1)) / fillLength) * fillLength), fill)
  const compressedChunk = deflateRawSync(chunk, flush)
  const parts = [deflateRawSync(Buffer.from(before), flush)]
  let crc = crc32(before)
  let left = size
  while (left >= chunk.length) {
    parts.push(compressedChunk)
    crc = crc32(chunk, crc)
    left -= chunk.length
  }
  if (left > 0) {
    parts.push(deflateRawSync(chunk.subarray(0, left), flush))
    crc = crc32(chunk.subarray(0, left), crc)
  }
  parts.push(deflateRawSync(Buffer.from(after), flush), Buffer.from([0x03, 0x00])) // an empty final fixed-Huffman block
  crc = crc32(after, crc)
  return { data: Buffer.concat(parts), crc, length: Buffer.byteLength(before) + size + Buffer.byteLength(after) }
}

export interface ZipPart {
  name: string
  /** the entry's deflated data and what it inflates to, or plain content stored as it is */
  data: Buffer | { data: Buffer; crc: number; length: number }
  /** the uncompressed size the archive claims (a lying archive says less than the truth) */
  declaredSize?: number
}

/** A zip archive written by hand, so that its directory can lie. */
export function zipOf(parts: ZipPart[]): Buffer {
  const locals: Buffer[] = []
  const centrals: Buffer[] = []
  let offset = 0
  for (const part of parts) {
    const name = Buffer.from(part.name)
    const stored = Buffer.isBuffer(part.data)
    const body = Buffer.isBuffer(part.data) ? part.data : part.data.data
    const length = Buffer.isBuffer(part.data) ? part.data.length : part.data.length
    const crc = Buffer.isBuffer(part.data) ? crc32(part.data) : part.data.crc
    const size = part.declaredSize ?? length
    // the fields both headers carry, in the same order: method, CRC-32, sizes, name length
    const shared = (header: Buffer, at: number) => {
      header.writeUInt16LE(stored ? 0 : 8, at)
      header.writeUInt32LE(crc >>> 0, at + 6)
      header.writeUInt32LE(body.length, at + 10)
      header.writeUInt32LE(Math.min(size, 0xfffffffe), at + 14)
      header.writeUInt16LE(name.length, at + 18)
    }
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(20, 4)
    shared(local, 8)
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0)
    central.writeUInt16LE(20, 4)
    central.writeUInt16LE(20, 6)
    shared(central, 10)
    central.writeUInt32LE(offset, 42)
    locals.push(local, name, body)
    centrals.push(central, name)
    offset += 30 + name.length + body.length
  }
  const directory = Buffer.concat(centrals)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(parts.length, 8)
  end.writeUInt16LE(parts.length, 10)
  end.writeUInt32LE(directory.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...locals, directory, end])
}

const CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"></Types>'

/** A .docx whose document.xml is one run of `size` × `fill` (200 MB of 'a' is a few hundred KB). */
export function docxBomb(size: number, options: { fill?: string; lie?: boolean } = {}): Buffer {
  const xml = deflateBomb(
    '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t xml:space="preserve">',
    options.fill ?? 'a',
    size,
    '</w:t></w:r></w:p></w:body></w:document>',
  )
  return zipOf([
    { name: '[Content_Types].xml', data: Buffer.from(CONTENT_TYPES) },
    { name: 'word/document.xml', data: xml, ...(options.lie ? { declaredSize: 4_096 } : {}) },
  ])
}

/** A .pptx whose one slide holds one paragraph of `size` × 'a'. */
export function pptxBomb(size: number, options: { lie?: boolean } = {}): Buffer {
  const slide = deflateBomb(
    '<p:sld><p:cSld><p:spTree><p:sp><p:txBody><a:p><a:r><a:t>',
    'a',
    size,
    '</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>',
  )
  return zipOf([
    { name: '[Content_Types].xml', data: Buffer.from(CONTENT_TYPES) },
    {
      name: 'ppt/presentation.xml',
      data: Buffer.from('<p:presentation><p:sldIdLst><p:sldId id="256" r:id="rId1"/></p:sldIdLst></p:presentation>'),
    },
    {
      name: 'ppt/_rels/presentation.xml.rels',
      data: Buffer.from('<Relationships><Relationship Id="rId1" Target="slides/slide1.xml"/></Relationships>'),
    },
    { name: 'ppt/slides/slide1.xml', data: slide, ...(options.lie ? { declaredSize: 4_096 } : {}) },
  ])
}

/**
 * A .xlsx whose one sheet's XML is padded with `size` spaces (ExcelJS would unpack it all), or with `cells`
 * holds `size` bytes of numeric cells (ExcelJS builds an object for each).
 */
export function xlsxBomb(size: number, options: { lie?: boolean; cells?: boolean } = {}): Buffer {
  const sheet = options.cells
    ? deflateBomb('<worksheet><sheetData><row r="1">', '<c><v>1</v></c>', size, '</row></sheetData></worksheet>')
    : deflateBomb('<worksheet><sheetData>', ' ', size, '</sheetData></worksheet>')
  return zipOf([
    { name: '[Content_Types].xml', data: Buffer.from(CONTENT_TYPES) },
    { name: 'xl/workbook.xml', data: Buffer.from('<workbook><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>') },
    { name: 'xl/worksheets/sheet1.xml', data: sheet, ...(options.lie ? { declaredSize: 4_096 } : {}) },
  ])
}

/**
 * A one-page PDF whose content stream (FlateDecode) is `size` bytes of text operators ('(aaa…) Tj'), or with
 * `paths` of path operators (no text: only time stops reading it).
 */
export function pdfBomb(size: number, options: { paths?: boolean } = {}): Buffer {
  // each line placed on the page again (pdf.js drops text outside it), in a 1-point font
  const line = options.paths ? '10 10 m 20 20 l S\n' : `1 0 0 1 72 400 Tm (${'a'.repeat(100)}) Tj\n`
  const raw = deflateBomb('BT /F1 1 Tf\n', line, Math.floor(size / line.length) * line.length, 'ET\n')
  // zlib wrapping (FlateDecode): header, the raw stream, Adler-32 (pdf.js does not check it)
  const stream = Buffer.concat([Buffer.from([0x78, 0x9c]), raw.data, Buffer.alloc(4)])
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    null,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ]
  const chunks: Buffer[] = [Buffer.from('%PDF-1.4\n')]
  let length = chunks[0]!.length
  const offsets: number[] = []
  objects.forEach((object, index) => {
    offsets.push(length)
    const body =
      object === null
        ? Buffer.concat([
            Buffer.from(`${index + 1} 0 obj\n<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`),
            stream,
            Buffer.from('\nendstream\nendobj\n'),
          ])
        : Buffer.from(`${index + 1} 0 obj\n${object}\nendobj\n`)
    chunks.push(body)
    length += body.length
  })
  const xref =
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n` +
    offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('') +
    `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`
  chunks.push(Buffer.from(xref))
  return Buffer.concat(chunks)
}
