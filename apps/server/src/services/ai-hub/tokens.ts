import { Tiktoken } from 'js-tiktoken/lite'
import cl100k from 'js-tiktoken/ranks/cl100k_base'

/**
 * Tokens as OpenAI's cl100k_base encoding counts them (GPT-4, GPT-3.5; js-tiktoken, the pure-JavaScript port
 * of tiktoken): the AI Hub's budget unit. The encoder is built on first use (about 100 ms).
 *
 * js-tiktoken merges the byte pairs of one pre-tokenizer piece in time quadratic in its length (10,000 letters
 * without a space take 12 s, issue 32 §1), so runs longer than LONG_RUN characters (letters, symbols or spaces:
 * the runs one piece can span) are counted in slices of RUN_SLICE characters; text without such runs, all real
 * prose, counts exactly as tiktoken does. Special tokens such as <|endoftext|> in a document are plain text.
 */
let encoder: Tiktoken | null = null

export const TOKENIZER = 'cl100k_base'

const LONG_RUN = /\p{L}{25,}|[^\s\p{L}\p{N}]{25,}|\s{25,}/gu
const RUN_SLICE = /[\s\S]{1,12}/gu
/** Text is encoded in parts of about this many characters, cut between two words, so a count can stop early. */
const PART = 8_192
/** A space between two letters: the pre-tokenizer never joins the text on either side of it. */
const WORD_GAP = /(?<=\p{L}) (?=\p{L})/gu

function encodedLength(text: string): number {
  encoder ??= new Tiktoken(cl100k)
  return encoder.encode(text, [], []).length
}

/** Ordinary text (no long runs) in parts, cut before a space between two letters where possible. */
function* partsOf(text: string): Generator<string> {
  let start = 0
  while (text.length - start > PART) {
    WORD_GAP.lastIndex = start + PART
    const gap = WORD_GAP.exec(text)
    const cut = gap && gap.index < start + 2 * PART ? gap.index : start + PART
    yield text.slice(start, cut)
    start = cut
  }
  if (start < text.length) yield text.slice(start)
}

/** The pieces of a text to encode one after another: ordinary parts, and long runs in slices. */
function* segmentsOf(text: string): Generator<string> {
  let start = 0
  for (const run of text.matchAll(LONG_RUN)) {
    if (run.index > start) yield* partsOf(text.slice(start, run.index))
    for (const slice of run[0].matchAll(RUN_SLICE)) yield slice[0]
    start = run.index + run[0].length
  }
  if (start < text.length) yield* partsOf(text.slice(start))
}

/**
 * The text's tokens; with `limit`, counting stops as soon as the count passes it (the result is then some
 * number above `limit`, not the full count).
 */
export function countTokens(text: string, limit = Infinity): number {
  if (text === '') return 0
  let count = 0
  for (const segment of segmentsOf(text)) {
    count += encodedLength(segment)
    if (count > limit) return count
  }
  return count
}
