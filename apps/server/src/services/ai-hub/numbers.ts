/**
 * Numbers in a text, as the AI Hub's "never a number that is not in the context" rule compares them: digits
 * with their thousands separators and decimals ('1,234.5' and '1234.5' are the same number), a percentage
 * sign dropped. Citation markers ([S3]) are references, not statements, and are not numbers of the answer.
 */
const NUMBER = /\d+(?:[,\u00A0]\d{3})*(?:\.\d+)?/g
export const MARKER = /\[S\d+\]/g

export function normalizeNumber(token: string): string {
  let value = token.replace(/[,\u00A0]/g, '')
  if (value.includes('.')) value = value.replace(/0+$/, '').replace(/\.$/, '')
  value = value.replace(/^0+(?=\d)/, '')
  return value
}

export function numbersIn(text: string): Set<string> {
  return new Set([...text.replace(MARKER, ' ').matchAll(NUMBER)].map((match) => normalizeNumber(match[0])))
}

/** The numbers of `answer` that do not occur in `context`, as written in the answer. */
export function numbersNotIn(answer: string, context: string): string[] {
  const known = numbersIn(context)
  const missing = new Set<string>()
  for (const match of answer.replace(MARKER, ' ').matchAll(NUMBER)) {
    if (!known.has(normalizeNumber(match[0]))) missing.add(match[0])
  }
  return [...missing]
}
