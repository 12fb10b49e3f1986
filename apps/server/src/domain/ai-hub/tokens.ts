import { Tiktoken } from 'js-tiktoken/lite'
import cl100k from 'js-tiktoken/ranks/cl100k_base'

/**
 * Tokens as OpenAI's cl100k_base encoding counts them (GPT-4, GPT-3.5; js-tiktoken, the pure-JavaScript port
 * of tiktoken): the AI Hub's budget unit. The encoder is built on first use (about 100 ms).
 */
let encoder: Tiktoken | null = null

export const TOKENIZER = 'cl100k_base'

export function countTokens(text: string): number {
  if (text === '') return 0
  encoder ??= new Tiktoken(cl100k)
  return encoder.encode(text).length
}
