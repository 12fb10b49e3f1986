import { inflateRawSync } from 'node:zlib'

/**
 * A zip reader that cannot be made to unpack more than it is allowed to (issue 32 §1, zip bombs). The central
 * directory is read first and its entry count and declared sizes checked against the caps before anything is
 * inflated; declared sizes can lie, so every entry is then inflated with a hard limit on its output (its declared
 * size, within what is left of the archive's budget) and refused the moment it passes it.
 */

export interface ZipLimits {
  /** most entries the central directory may list */
  maxEntries: number
  /** most bytes the entries read may unpack to, together */
  maxUnpackedBytes: number
}

export interface ZipEntry {
  name: string
  method: number
  flags: number
  compressedSize: number
  size: number
  localOffset: number
}

/** Why an archive was refused: not a zip we can read, or more than the caps allow. */
export class ZipRefused extends Error {
  constructor(readonly reason: 'invalid' | 'too-large') {
    super(reason === 'invalid' ? 'not a readable zip archive' : 'the archive unpacks to more than allowed')
  }
}

const invalid = () => new ZipRefused('invalid')
const tooLarge = () => new ZipRefused('too-large')

const EOCD = 0x06054b50
const ZIP64_LOCATOR = 0x07064b50
const ZIP64_EOCD = 0x06064b50
const CENTRAL = 0x02014b50
const LOCAL = 0x04034b50
const MAX16 = 0xffff
const MAX32 = 0xffffffff

function u64(bytes: Buffer, at: number): number {
  const value = bytes.readBigUInt64LE(at)
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw invalid()
  return Number(value)
}

/** The central directory's entries, checked against `limits.maxEntries`; nothing is inflated. */
export function zipEntries(bytes: Buffer, limits: Pick<ZipLimits, 'maxEntries'>): ZipEntry[] {
  // the end-of-central-directory record: the last 22 bytes, or earlier by a comment of up to 64 KB
  let end = -1
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - MAX16); at--) {
    if (bytes.readUInt32LE(at) === EOCD) {
      end = at
      break
    }
  }
  if (end < 0) throw invalid()
  let count = bytes.readUInt16LE(end + 10)
  let directorySize = bytes.readUInt32LE(end + 12)
  let directoryOffset = bytes.readUInt32LE(end + 16)
  if (count === MAX16 || directorySize === MAX32 || directoryOffset === MAX32) {
    const locator = end - 20
    if (locator < 0 || bytes.readUInt32LE(locator) !== ZIP64_LOCATOR) throw invalid()
    const record = u64(bytes, locator + 8)
    if (record + 56 > bytes.length || bytes.readUInt32LE(record) !== ZIP64_EOCD) throw invalid()
    count = u64(bytes, record + 32)
    directorySize = u64(bytes, record + 40)
    directoryOffset = u64(bytes, record + 48)
  }
  if (count > limits.maxEntries) throw tooLarge()
  if (directoryOffset + directorySize > bytes.length) throw invalid()
  const entries: ZipEntry[] = []
  let at = directoryOffset
  for (let index = 0; index < count; index++) {
    if (at + 46 > bytes.length || bytes.readUInt32LE(at) !== CENTRAL) throw invalid()
    const nameLength = bytes.readUInt16LE(at + 28)
    const extraLength = bytes.readUInt16LE(at + 30)
    const commentLength = bytes.readUInt16LE(at + 32)
    if (at + 46 + nameLength + extraLength + commentLength > bytes.length) throw invalid()
    const entry: ZipEntry = {
      name: bytes.toString('utf8', at + 46, at + 46 + nameLength),
      flags: bytes.readUInt16LE(at + 8),
      method: bytes.readUInt16LE(at + 10),
      compressedSize: bytes.readUInt32LE(at + 20),
      size: bytes.readUInt32LE(at + 24),
      localOffset: bytes.readUInt32LE(at + 42),
    }
    if (entry.size === MAX32 || entry.compressedSize === MAX32 || entry.localOffset === MAX32) {
      // the ZIP64 extended information extra field holds the values saturated above, in this order
      let extra = at + 46 + nameLength
      const extraEnd = extra + extraLength
      let found = false
      while (extra + 4 <= extraEnd) {
        const id = bytes.readUInt16LE(extra)
        const length = bytes.readUInt16LE(extra + 2)
        if (id === 0x0001) {
          let field = extra + 4
          const take = () => {
            if (field + 8 > extra + 4 + length) throw invalid()
            const value = u64(bytes, field)
            field += 8
            return value
          }
          if (entry.size === MAX32) entry.size = take()
          if (entry.compressedSize === MAX32) entry.compressedSize = take()
          if (entry.localOffset === MAX32) entry.localOffset = take()
          found = true
          break
        }
        extra += 4 + length
      }
      if (!found) throw invalid()
    }
    entries.push(entry)
    at += 46 + nameLength + extraLength + commentLength
  }
  return entries
}

/** An archive whose entries are read under one budget of unpacked bytes. */
export class CappedZip {
  readonly entries: ZipEntry[]
  private readonly byName = new Map<string, ZipEntry>()
  /** unpacked bytes read so far */
  unpacked = 0

  constructor(
    private readonly bytes: Buffer,
    private readonly limits: ZipLimits,
  ) {
    this.entries = zipEntries(bytes, limits)
    for (const entry of this.entries) if (!this.byName.has(entry.name)) this.byName.set(entry.name, entry)
  }

  has(name: string): boolean {
    return this.byName.has(name)
  }

  /** Refuses, before inflating anything, entries whose declared sizes together pass what is left of the budget. */
  checkDeclared(entries: ZipEntry[]): void {
    const declared = entries.reduce((sum, entry) => sum + entry.size, 0)
    if (this.unpacked + declared > this.limits.maxUnpackedBytes) throw tooLarge()
  }

  /** The entry's bytes, or null when there is no such entry. */
  read(name: string): Buffer | null {
    const entry = this.byName.get(name)
    return entry ? this.readEntry(entry) : null
  }

  text(name: string): string | null {
    return this.read(name)?.toString('utf8') ?? null
  }

  readEntry(entry: ZipEntry): Buffer {
    const { bytes } = this
    if (entry.flags & 0x0001) throw invalid() // encrypted (zip encryption; Office encrypts otherwise)
    if (this.unpacked + entry.size > this.limits.maxUnpackedBytes) throw tooLarge()
    const local = entry.localOffset
    if (local + 30 > bytes.length || bytes.readUInt32LE(local) !== LOCAL) throw invalid()
    const start = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28)
    const end = start + entry.compressedSize
    if (end > bytes.length) throw invalid()
    const data = bytes.subarray(start, end)
    let output: Buffer
    if (entry.method === 0) output = data
    else if (entry.method === 8) {
      try {
        // at most the declared size: an entry that inflates to more is stopped one chunk past it
        output = inflateRawSync(data, { maxOutputLength: Math.max(1, entry.size), chunkSize: 64 * 1024 })
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge()
        throw invalid()
      }
    } else throw invalid()
    if (output.length !== entry.size) throw invalid()
    this.unpacked += output.length
    return output
  }
}
