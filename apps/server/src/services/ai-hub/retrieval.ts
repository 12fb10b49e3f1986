import type { AiPin } from '@citrus/contracts'
import { PRODUCT_NAMES } from '@citrus/contracts'

/**
 * The parts of retrieval that are plain text work: keywords of a question, sentences of a page (exact slices
 * of it, so a quote is verbatim), a light stemmer to score sentences, and how a pinned insight reads in the
 * context. The page search itself is PostgreSQL full-text search (generate.ts).
 */

const STOPWORDS = new Set(
  (
    'a about above after again all also am an and any are as at be because been before being below between both but by can ' +
    'could did do does doing down during each few for from further had has have having he her here hers him his how i if in ' +
    'into is it its itself just me more most my myself no nor not now of off on once only or other our ours out over own same ' +
    'she should so some such than that the their theirs them then there these they this those through to too under until up ' +
    'very was we were what when where which while who whom why will with would you your yours ' +
    // the words every request uses: they ask, they do not say what about
    'please tell give show provide write draft make build prepare summarize summarise summary describe explain list ' +
    'context document documents pinned insight insights data file files information main key based using use'
  ).split(/\s+/),
)

const WORD = /[\p{L}\p{N}]+/gu

/** Distinct content words of a question, lower case, in order. */
export function keywordsOf(question: string): string[] {
  const words = (question.toLowerCase().match(WORD) ?? []).filter((word) => word.length >= 2 && !STOPWORDS.has(word))
  return [...new Set(words)].slice(0, 32)
}

/** A crude English stem: enough to match 'prescribers' with 'prescriber', 'usage' with 'used'. */
export function stem(word: string): string {
  const lower = word.toLowerCase()
  if (lower.length <= 3) return lower
  const stemmed = lower.replace(/(ations|ation|ings|ing|ies|ied|ers|er|es|ed|ly|age|s|e)$/, '')
  return stemmed.length >= 3 ? stemmed : lower
}

export interface Sentence {
  text: string
  /** offset of text within the page */
  start: number
}

/**
 * Sentences of a page: split after . ! ? followed by white space, and at line breaks (titles, list items and
 * table rows are lines). Each is an exact slice of the page, trimmed.
 */
export function sentencesOf(page: string): Sentence[] {
  const sentences: Sentence[] = []
  const boundary = /(?<=[.!?])\s+|\n+/g
  let start = 0
  const push = (end: number) => {
    const raw = page.slice(start, end)
    const lead = raw.length - raw.trimStart().length
    const text = raw.trim()
    if (text.length >= 3 && /[\p{L}\p{N}]/u.test(text)) sentences.push({ text, start: start + lead })
  }
  for (const match of page.matchAll(boundary)) {
    push(match.index)
    start = match.index + match[0].length
  }
  push(page.length)
  return sentences
}

/** How many of the keywords (by stem) a text mentions. */
export function matchScore(text: string, keywordStems: Set<string>): number {
  const found = new Set<string>()
  for (const word of text.toLowerCase().match(WORD) ?? []) {
    const stemmed = stem(word)
    if (keywordStems.has(stemmed)) found.add(stemmed)
  }
  return found.size
}

const TYPE_LABEL: Record<AiPin['type'], string> = {
  provider: 'provider',
  'health-system': 'health system',
  state: 'state',
  facility: 'facility',
  other: 'insight',
}

/** A pinned insight as one line of the context: name, kind and app, then each metric as 'Name: value'. */
export function pinLine(pin: AiPin): string {
  const metrics = Object.entries(pin.data.metrics)
    .filter(([, value]) => value !== null && value !== '')
    .map(([name, value]) => `${name}: ${String(value)}`)
  const entity = pin.data.entity.full_name && pin.data.entity.full_name !== pin.data.display_name ? ` — ${pin.data.entity.full_name}` : ''
  return `**${pin.data.display_name}**${entity} (${TYPE_LABEL[pin.type]}, ${PRODUCT_NAMES[pin.source]})${metrics.length ? ': ' + metrics.join('; ') : ''}`
}

/** Words a pinned insight can be found by. */
export function pinText(pin: AiPin): string {
  return [
    pin.data.display_name,
    pin.data.entity.name,
    pin.data.entity.full_name ?? '',
    TYPE_LABEL[pin.type],
    pin.type,
    ...Object.keys(pin.data.metrics),
  ].join(' ')
}
