import { createInflate } from 'node:zlib'

/**
 * What a PDF's Flate streams unpack to, counted before pdf.js sees the file (issue 32 §1): pdf.js inflates a
 * page's whole content stream into one buffer outside the V8 heap (a thread's heap limit does not stop it), so
 * a 700 KB PDF can make it allocate 200 MB and more. Each stream is inflated in chunks that are counted and
 * dropped, until a cap is passed. Images (which text extraction does not decode) have their own, larger cap,
 * since a labelled image is not decoded for text but could be referenced as a page's content.
 */
export interface PdfStreamCaps {
  /** what the streams other than images may unpack to, together */
  content: number
  /** what the image streams may unpack to, together */
  images: number
}

const STREAM = Buffer.from('stream')
const END = Buffer.from('endstream')
const OBJ = Buffer.from('obj')

/** Bytes a zlib stream inflates to, counted up to `limit` (then a number above it); a broken stream counts what it gave. */
function inflatedSize(data: Buffer, limit: number): Promise<number> {
  return new Promise((resolve) => {
    const inflate = createInflate({ chunkSize: 64 * 1024 })
    let total = 0
    let settled = false
    const settle = () => {
      if (settled) return
      settled = true
      inflate.destroy()
      resolve(total)
    }
    inflate.on('data', (chunk: Buffer) => {
      total += chunk.length
      if (total > limit) settle()
    })
    inflate.on('end', settle)
    inflate.on('error', settle)
    inflate.end(data)
  })
}

/** True when the PDF's Flate streams unpack to more than the caps allow. */
export async function pdfUnpacksTooLarge(bytes: Buffer, caps: PdfStreamCaps): Promise<boolean> {
  let content = 0
  let images = 0
  let at = 0
  for (;;) {
    const keyword = bytes.indexOf(STREAM, at)
    if (keyword < 0) return false
    at = keyword + STREAM.length
    // the keyword 'stream' then an end of line, not the end of 'endstream'
    if (keyword >= 3 && bytes.toString('latin1', keyword - 3, keyword) === 'end') continue
    let start = at
    if (bytes[start] === 0x0d) start++
    if (bytes[start] !== 0x0a) continue
    start++
    const objAt = bytes.lastIndexOf(OBJ, keyword)
    if (objAt < 0 || keyword - objAt > 16 * 1024) continue
    const dictionary = bytes.toString('latin1', objAt, keyword)
    const end = bytes.indexOf(END, start)
    const data = bytes.subarray(start, end < 0 ? bytes.length : end)
    at = end < 0 ? bytes.length : end + END.length
    const filter = /\/Filter\s*(?:\[\s*)?\/(\w+)/.exec(dictionary)?.[1]
    if (filter !== 'FlateDecode' && filter !== 'Fl') continue
    const image = /\/Subtype\s*\/Image\b/.test(dictionary)
    const left = image ? caps.images - images : caps.content - content
    const size = await inflatedSize(data, left)
    if (size > left) return true
    if (image) images += size
    else content += size
  }
}
