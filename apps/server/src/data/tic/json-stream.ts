/**
 * A streaming JSON reader for payers' machine-readable files (issue 37): text goes in by chunks, values come out
 * by JSON path, and no more of the file than one captured value is ever held. The caller decides, at the start
 * of every value outside a captured one, whether to capture it whole (`capture(path)`, e.g. one provider group,
 * one negotiated_rates element); scalars outside captured values are handed over one by one, containers outside
 * are only walked. Every syntax error and every limit names its line, column and JSON path.
 *
 * stream-json (a dependency of @citrus/data-kit) reports neither a line nor an offset when the input is malformed,
 * which the importer must name, hence this small tokenizer of its own; it also caps depth, string length and the
 * size of a captured value.
 */

export type PathItem = string | number

export interface Position {
  /** 1-based line and column (UTF-16 units) */
  line: number
  column: number
  /** characters read before this point */
  offset: number
}

export interface JsonStreamLimits {
  /** deepest nesting accepted */
  maxDepth: number
  /** longest string (characters) */
  maxStringChars: number
  /** largest captured value (characters of text) */
  maxCapturedChars: number
}

export const DEFAULT_JSON_LIMITS: JsonStreamLimits = { maxDepth: 64, maxStringChars: 1 << 20, maxCapturedChars: 64 << 20 }

/** JSON path text: $.in_network[3].negotiated_rates[0] */
export function pathText(path: readonly PathItem[]): string {
  let text = '$'
  for (const item of path) text += typeof item === 'number' ? `[${item}]` : /^[A-Za-z_][A-Za-z0-9_]*$/.test(item) ? `.${item}` : `[${JSON.stringify(item)}]`
  return text
}

export class JsonPositionError extends Error {
  constructor(
    readonly reason: string,
    readonly position: Position,
    readonly path: readonly PathItem[],
  ) {
    super(`line ${position.line}, column ${position.column} (character ${position.offset}), at ${pathText(path)}: ${reason}`)
    this.name = 'JsonPositionError'
  }
}

export type JsonEvent =
  | { kind: 'value'; path: PathItem[]; value: unknown; start: Position }
  | { kind: 'open'; path: PathItem[]; container: 'object' | 'array'; start: Position }
  | { kind: 'close'; path: PathItem[]; container: 'object' | 'array' }

interface Frame {
  array: boolean
  /** object: the current key; array: the current index (-1 before the first element) */
  key: string | null
  index: number
  /** the value being built when captured, else null */
  built: Record<string, unknown> | unknown[] | null
  /** this frame is the root of a captured value */
  root: boolean
  start: Position
}

const enum S {
  Value, // a value is expected
  ValueOrEnd, // after '['
  KeyOrEnd, // after '{'
  Key, // after ',' in an object
  Colon,
  CommaOrEnd,
  Done,
  InString,
  InNumber,
  InLiteral,
}

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/
const isNumberChar = (c: number) => (c >= 48 && c <= 57) || c === 45 || c === 43 || c === 46 || c === 101 || c === 69

export class JsonStream {
  private state: S = S.Value
  private readonly frames: Frame[] = []
  private events: JsonEvent[] = []
  /** the token being read across chunks */
  private token = ''
  private tokenIsKey = false
  private tokenStart: Position = { line: 1, column: 1, offset: 0 }
  private escapes = false
  /** position bookkeeping */
  private offset = 0
  private line = 1
  private lineStart = 0
  /** the offset where the current captured value began (-1: not capturing) */
  private capturedFrom = -1
  private readonly limits: JsonStreamLimits

  constructor(
    private readonly capture: (path: readonly PathItem[]) => boolean,
    limits: Partial<JsonStreamLimits> = {},
  ) {
    this.limits = { ...DEFAULT_JSON_LIMITS, ...limits }
  }

  /** Where the reader is now. */
  position(at = this.offset): Position {
    return { line: this.line, column: at - this.lineStart + 1, offset: at }
  }

  /** The path of the value at the current point. */
  path(): PathItem[] {
    const path: PathItem[] = []
    for (const f of this.frames) {
      if (f.array) {
        if (f.index >= 0) path.push(f.index)
      } else if (f.key !== null) path.push(f.key)
    }
    return path
  }

  private fail(reason: string, at = this.offset): never {
    throw new JsonPositionError(reason, this.position(at), this.path())
  }

  /** Events produced since the last call. */
  drain(): JsonEvent[] {
    const events = this.events
    this.events = []
    return events
  }

  /** Reads a chunk of text; throws JsonPositionError on malformed input. */
  write(chunk: string): void {
    const n = chunk.length
    let i = 0
    const base = this.offset
    while (i < n) {
      const c = chunk.charCodeAt(i)
      switch (this.state) {
        case S.InString: {
          i = this.readString(chunk, i, base)
          continue
        }
        case S.InNumber: {
          if (isNumberChar(c)) {
            let j = i + 1
            while (j < n && isNumberChar(chunk.charCodeAt(j))) j++
            this.token += chunk.slice(i, j)
            if (this.token.length > 64) this.fail('number too long', base + i)
            i = j
            continue
          }
          this.offset = base + i
          this.endNumber()
          continue // the character is read again in the state after the value
        }
        case S.InLiteral: {
          if (c >= 97 && c <= 122) {
            this.token += chunk[i]
            if (this.token.length > 5) this.fail(`unexpected characters '${this.token}'`, this.tokenStart.offset)
            i++
            continue
          }
          this.offset = base + i
          this.endLiteral()
          continue
        }
      }
      // whitespace between tokens
      if (c === 32 || c === 9 || c === 13) {
        i++
        continue
      }
      if (c === 10) {
        i++
        this.line++
        this.lineStart = base + i
        continue
      }
      this.offset = base + i
      switch (this.state) {
        case S.Value:
        case S.ValueOrEnd:
          if (c === 93 && this.state === S.ValueOrEnd) {
            this.closeFrame(true)
            i++
            break
          }
          this.startValue(c, chunk, i)
          i++
          break
        case S.KeyOrEnd:
        case S.Key:
          if (c === 125 && this.state === S.KeyOrEnd) {
            this.closeFrame(false)
            i++
            break
          }
          if (c !== 34) this.fail(`expected a property name in double quotes, found ${describe(chunk, i)}`)
          this.beginString(true)
          i++
          break
        case S.Colon:
          if (c !== 58) this.fail(`expected ':' after the property name, found ${describe(chunk, i)}`)
          this.state = S.Value
          i++
          break
        case S.CommaOrEnd: {
          const frame = this.frames[this.frames.length - 1]
          if (!frame) this.fail('unexpected state')
          if (c === 44) this.state = frame.array ? S.Value : S.Key
          else if (c === (frame.array ? 93 : 125)) this.closeFrame(frame.array)
          else this.fail(`expected ',' or '${frame.array ? ']' : '}'}', found ${describe(chunk, i)}`)
          i++
          break
        }
        case S.Done:
          this.fail(`unexpected ${describe(chunk, i)} after the end of the document`)
      }
    }
    this.offset = base + n
    if (this.capturedFrom >= 0 && this.offset - this.capturedFrom > this.limits.maxCapturedChars)
      this.fail(`value larger than ${this.limits.maxCapturedChars} characters (limit)`, this.capturedFrom)
  }

  /** The end of the input: the document must be complete. */
  end(): void {
    if (this.state === S.InNumber) this.endNumber()
    else if (this.state === S.InLiteral) this.endLiteral()
    if (this.state === S.InString) this.fail('unterminated string', this.tokenStart.offset)
    if (this.state !== S.Done) this.fail(this.frames.length > 0 ? `unexpected end of file (${this.frames.length} unclosed bracket(s))` : 'empty document')
  }

  // ------------------------------------------------------------ values

  private startValue(c: number, chunk: string, i: number) {
    const parent = this.frames[this.frames.length - 1]
    if (parent?.array) parent.index++
    if (c === 34) {
      this.beginString(false)
      return
    }
    if (c === 123 || c === 91) {
      this.openFrame(c === 91)
      return
    }
    if (c === 45 || (c >= 48 && c <= 57)) {
      this.token = chunk[i] as string
      this.tokenStart = this.position()
      this.state = S.InNumber
      return
    }
    if (c === 116 || c === 102 || c === 110) {
      this.token = chunk[i] as string
      this.tokenStart = this.position()
      this.state = S.InLiteral
      return
    }
    this.fail(`expected a value, found ${describe(chunk, i)}`)
  }

  private capturing(): boolean {
    return this.capturedFrom >= 0
  }

  private openFrame(array: boolean) {
    if (this.frames.length >= this.limits.maxDepth) this.fail(`nesting deeper than ${this.limits.maxDepth} (limit)`)
    const start = this.position()
    let built: Frame['built'] = null
    let root = false
    if (this.capturing()) built = array ? [] : {}
    else if (this.capture(this.path())) {
      built = array ? [] : {}
      root = true
      this.capturedFrom = this.offset
    } else this.events.push({ kind: 'open', path: this.path(), container: array ? 'array' : 'object', start })
    this.frames.push({ array, key: null, index: -1, built, root, start })
    this.state = array ? S.ValueOrEnd : S.KeyOrEnd
  }

  private closeFrame(array: boolean) {
    const frame = this.frames.pop()
    if (!frame || frame.array !== array) this.fail('unexpected state')
    if (frame.built !== null) {
      if (frame.root) {
        if (this.offset - this.capturedFrom > this.limits.maxCapturedChars)
          this.fail(`value larger than ${this.limits.maxCapturedChars} characters (limit)`, this.capturedFrom)
        this.capturedFrom = -1
        this.events.push({ kind: 'value', path: this.path(), value: frame.built, start: frame.start })
      } else this.addToParent(frame.built)
    } else this.events.push({ kind: 'close', path: this.path(), container: array ? 'array' : 'object' })
    this.afterValue()
  }

  private afterValue() {
    this.state = this.frames.length === 0 ? S.Done : S.CommaOrEnd
  }

  private addToParent(value: unknown) {
    const parent = this.frames[this.frames.length - 1]!
    const built = parent.built!
    if (parent.array) (built as unknown[]).push(value)
    else (built as Record<string, unknown>)[parent.key as string] = value
  }

  /** A scalar value is complete. */
  private scalar(value: unknown, start: Position) {
    if (this.capturing()) this.addToParent(value)
    else this.events.push({ kind: 'value', path: this.path(), value, start })
    this.afterValue()
  }

  private endNumber() {
    if (!NUMBER.test(this.token)) this.fail(`malformed number '${this.token}'`, this.tokenStart.offset)
    this.scalar(Number(this.token), this.tokenStart)
  }

  private endLiteral() {
    const t = this.token
    const value = t === 'true' ? true : t === 'false' ? false : t === 'null' ? null : undefined
    if (value === undefined) this.fail(`unexpected characters '${t}'`, this.tokenStart.offset)
    this.scalar(value, this.tokenStart)
  }

  // ------------------------------------------------------------ strings

  private beginString(key: boolean) {
    this.token = ''
    this.escapes = false
    this.tokenIsKey = key
    this.tokenStart = this.position()
    this.state = S.InString
  }

  /** Reads string characters from chunk[i]; returns the next index. */
  private readString(chunk: string, i: number, base: number): number {
    const n = chunk.length
    let j = i
    while (j < n) {
      const c = chunk.charCodeAt(j)
      if (c === 34) {
        // a quote preceded by an odd number of backslashes is escaped
        let k = j - 1
        let slashes = 0
        while (k >= i && chunk.charCodeAt(k) === 92) {
          k--
          slashes++
        }
        if (k < i && slashes === j - i) {
          // the run of backslashes may have started in the previous chunk
          let t = this.token.length - 1
          while (t >= 0 && this.token.charCodeAt(t) === 92) {
            t--
            slashes++
          }
        }
        if (slashes % 2 === 0) break
      } else if (c < 32) {
        this.offset = base + j
        this.fail(c === 10 ? 'line break inside a string (unterminated string?)' : 'control character inside a string')
      } else if (c === 92) this.escapes = true
      j++
    }
    this.token += chunk.slice(i, j)
    if (this.token.length > this.limits.maxStringChars) this.fail(`string longer than ${this.limits.maxStringChars} characters (limit)`, this.tokenStart.offset)
    if (j === n) return n
    // the closing quote
    this.offset = base + j
    let text = this.token
    if (this.escapes) {
      try {
        text = JSON.parse(`"${text}"`) as string
      } catch {
        this.fail('invalid escape sequence in a string', this.tokenStart.offset)
      }
    }
    this.token = ''
    if (this.tokenIsKey) {
      const frame = this.frames[this.frames.length - 1]!
      frame.key = text
      this.state = S.Colon
    } else this.scalar(text, this.tokenStart)
    return j + 1
  }
}

function describe(chunk: string, i: number): string {
  const c = chunk[i]
  return c === undefined ? 'the end of the input' : `'${c}'`
}
