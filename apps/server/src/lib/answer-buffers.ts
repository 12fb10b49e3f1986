/**
 * Buffers that large answers are written into as UTF-8, kept and written again by the next answers once sent.
 *
 * A FHIR page of 1,000 resources is about 3 MB. Joined as one string it was flattened twice (the join, then the text
 * around it) and encoded a third time on its way to compression; encoded once into a fresh buffer instead, each
 * page's 3 MB of memory outside the JavaScript heap started a full garbage collection every 20 pages or so, which
 * set the tail. Reused buffers cost neither (docs/performance.md, FHIR provider directory).
 */
export class AnswerBuffers {
  private readonly free: Buffer[] = []

  /** @param keep buffers kept for reuse; @param largest a buffer larger than this (bytes) is not kept */
  constructor(
    private readonly keep = 4,
    private readonly largest = 32 * 1024 * 1024,
  ) {}

  /**
   * `head`, the parts between `separator`s, then `tail`, as UTF-8 in one buffer: `bytes` is valid until `release`,
   * to be called once the answer has been sent or abandoned (a second call does nothing). The buffer is sized by the
   * text's length (the JSON written here is mostly ASCII) and grows when a part's multi-byte characters need it.
   */
  join(head: string, parts: readonly string[], separator: string, tail: string): { bytes: Buffer; release: () => void } {
    let length = head.length + tail.length + separator.length * Math.max(0, parts.length - 1)
    for (const part of parts) length += part.length
    let buffer = this.take(length + 1024)
    let offset = 0
    const put = (text: string) => {
      // a UTF-16 unit is at most 3 bytes of UTF-8: only when that might not fit is the exact size asked
      if (buffer.length - offset < text.length * 3) {
        const needed = offset + Buffer.byteLength(text)
        if (needed > buffer.length) {
          const grown = this.take(Math.ceil(needed * 1.25))
          buffer.copy(grown, 0, 0, offset)
          this.give(buffer)
          buffer = grown
        }
      }
      offset += buffer.write(text, offset)
    }
    put(head)
    parts.forEach((part, i) => {
      if (i > 0) put(separator)
      put(part)
    })
    put(tail)
    let released = false
    const written = buffer
    return {
      bytes: written.subarray(0, offset),
      release: () => {
        if (released) return
        released = true
        this.give(written)
      },
    }
  }

  /** buffers held for reuse and their bytes (tests) */
  held(): { count: number; bytes: number } {
    return { count: this.free.length, bytes: this.free.reduce((sum, buffer) => sum + buffer.length, 0) }
  }

  private take(size: number): Buffer {
    const index = this.free.findIndex((buffer) => buffer.length >= size)
    if (index >= 0) return this.free.splice(index, 1)[0]!
    return Buffer.allocUnsafeSlow(size)
  }

  private give(buffer: Buffer) {
    if (buffer.length > this.largest) return
    if (this.free.length < this.keep) this.free.push(buffer)
    else {
      // keep the larger ones: they fit every answer the smaller ones do
      const smallest = this.free.reduce((min, candidate, i) => (candidate.length < this.free[min]!.length ? i : min), 0)
      if (this.free[smallest]!.length < buffer.length) this.free[smallest] = buffer
    }
  }
}
