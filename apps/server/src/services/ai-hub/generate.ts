import { randomUUID } from 'node:crypto'
import {
  AI_HUB_ERROR_CODES,
  AI_HUB_MESSAGES,
  AI_PAGE_UNIT,
  type AiCitation,
  type AiDocumentType,
  type AiPin,
  type AiResponse,
} from '@citrus/contracts'
import type { AiDocument, AiDocumentPage, PrismaClient } from '../../generated/prisma/client.js'
import { AppError, notFound } from '../../lib/errors.js'
import type { AiContextStore, Owner } from './context.js'
import { MARKER, numbersNotIn } from './numbers.js'
import { streamChatCompletion, ProviderError, type ChatMessage, type ProviderConfig } from './provider.js'
import { keywordsOf, matchScore, pinLine, pinText, sentencesOf, stem } from './retrieval.js'
import { templateById } from './templates.js'
import { countTokens } from './tokens.js'

/**
 * Generation over a user's AI context (docs/decisions/0042-ai-hub.md). The configured OpenAI-compatible model
 * when there is one, else the built-in offline analyst, which answers from retrieval alone: PostgreSQL
 * full-text search finds the pages, the sentences that mention the question's words are quoted verbatim with
 * their page, and the pinned insights that match are listed with their metrics. Either way the answer is
 * checked so that no number appears that the context does not hold.
 */
export const OFFLINE_MODEL = 'citrus-offline-analyst'

export interface GenerateInput {
  prompt: string
  templateId?: string | null | undefined
}

/** A document page with its document's title and type, as pages() and search() read them (document_id::text). */
type Page = Pick<AiDocumentPage, 'page_number' | 'text'> & Pick<AiDocument, 'title' | 'type'> & { document_id: string }

interface Source {
  marker: string
  page: Page
}

/** Sentences quoted at most, and per page. */
const MAX_QUOTES = 6
const MAX_QUOTES_PER_PAGE = 3
/** Pages full-text search hands to the offline analyst. */
const MAX_PAGES = 8

export const UNVERIFIED_NUMBER = '[number not in context]'

export class AiAnalyst {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly store: AiContextStore,
    private readonly provider: ProviderConfig | null,
  ) {}

  get model(): string {
    return this.provider?.model ?? OFFLINE_MODEL
  }

  /**
   * The context an answer is made from, read once before the credit is taken (service.ts prepareGeneration): its refusals (an
   * unknown template, an empty context) cost nothing, and the answer is made from exactly what was checked.
   */
  async prepare(owner: Owner, input: GenerateInput) {
    if (input.templateId && !templateById(input.templateId)) throw notFound(AI_HUB_MESSAGES.templateNotFound)
    const [pages, pins] = await Promise.all([this.pages(owner), this.store.pins(owner)])
    if (pages.length === 0 && pins.length === 0) throw noContext()
    return { pages, pins }
  }

  async answer(owner: Owner, input: GenerateInput, pages: Page[], pins: AiPin[], onDelta: (text: string) => void): Promise<AiResponse> {
    // where each text is (title, page) is part of the context: an answer may say 'page 3'
    const contextText = [...pages.map((page) => `${page.title} (${unitOf(page)})\n${page.text}`), ...pins.map(pinLine)].join('\n')
    const result = this.provider
      ? await this.askModel(this.provider, input, pages, pins, onDelta)
      : await this.offline(owner, input, pages, pins, onDelta)
    const unverifiedNumbers = numbersNotIn(result.content, contextText)
    let content = result.content
    if (unverifiedNumbers.length > 0) {
      // Replace whole numbers only ('12' must not touch '120'); markers are kept as they are.
      const pattern = new RegExp(
        `(?<![\\d.,])(?:${unverifiedNumbers.map((n) => n.replace(/[.]/g, '\\.')).join('|')})(?![\\d]|[.,]\\d)`,
        'g',
      )
      content = content
        .split(/(\[S\d+\])/)
        .map((part) => (/^\[S\d+\]$/.test(part) ? part : part.replace(pattern, UNVERIFIED_NUMBER)))
        .join('')
    }
    if (input.templateId) await this.store.recordTemplateUse(owner, input.templateId)
    return {
      id: randomUUID(),
      content,
      citations: result.citations,
      insightsUsed: result.insightsUsed,
      generatedAt: new Date().toISOString(),
      prompt: input.prompt,
      templateId: input.templateId ?? null,
      tokensUsed: result.tokensUsed,
      model: result.model,
      status: 'complete',
      answered: result.answered,
      unverifiedNumbers,
    }
  }

  private async pages(owner: Owner): Promise<Page[]> {
    return this.prisma.$queryRaw<Page[]>`
      SELECT p.document_id::text AS document_id, d.title, d.type, p.page_number, p.text
      FROM ai_document_pages p JOIN ai_documents d ON d.id = p.document_id
      WHERE d.user_id = ${owner.user_id} AND p.text <> ''
      ORDER BY d.uploaded_at, d.id, p.page_number`
  }

  /** Pages that full-text search (English stemming, GIN index) finds for the keywords, best first. */
  private async search(owner: Owner, keywords: string[]): Promise<Page[]> {
    if (keywords.length === 0) return []
    const query = keywords.join(' | ')
    return this.prisma.$queryRaw<Page[]>`
      SELECT p.document_id::text AS document_id, d.title, d.type, p.page_number, p.text
      FROM ai_document_pages p JOIN ai_documents d ON d.id = p.document_id, to_tsquery('english', ${query}) q
      WHERE d.user_id = ${owner.user_id} AND p.search @@ q
      ORDER BY ts_rank_cd(p.search, q) DESC, d.uploaded_at, p.page_number
      LIMIT ${MAX_PAGES}`
  }

  private async offline(owner: Owner, input: GenerateInput, _pages: Page[], pins: AiPin[], onDelta: (text: string) => void) {
    const keywords = keywordsOf(input.prompt)
    const stems = new Set(keywords.map(stem))
    const found = await this.search(owner, keywords)

    const quotes: { page: Page; text: string; score: number; order: number }[] = []
    found.forEach((page, pageRank) => {
      const scored = sentencesOf(page.text)
        .map((sentence) => ({
          page,
          text: sentence.text,
          score: matchScore(sentence.text, stems),
          order: pageRank * 10_000 + sentence.start,
        }))
        .filter((quote) => quote.score > 0)
        .sort((a, b) => b.score - a.score || a.order - b.order)
        .slice(0, MAX_QUOTES_PER_PAGE)
      quotes.push(...scored)
    })
    // The same sentence twice (a document uploaded twice, a line repeated on every page) is quoted once: the first.
    const seen = new Set<string>()
    const chosen = quotes
      .sort((a, b) => b.score - a.score || a.order - b.order)
      .filter((quote) => {
        const key = quote.text.replace(/\s+/g, ' ').toLowerCase()
        if (seen.has(key)) return false
        seen.add(key)
        return true
      })
      .slice(0, MAX_QUOTES)
      .sort((a, b) => a.order - b.order)

    // A template asks about the whole context; a question, about what it names.
    const matchedPins = input.templateId ? pins : pins.filter((pin) => matchScore(pinText(pin), stems) > 0)

    const citations: AiCitation[] = chosen.map((quote, index) => ({
      documentId: quote.page.document_id,
      documentTitle: quote.page.title,
      page: quote.page.page_number,
      pageUnit: AI_PAGE_UNIT[quote.page.type as AiDocumentType] ?? 'page',
      text: quote.text,
      marker: `[S${index + 1}]`,
    }))
    const lines: string[] = []
    if (chosen.length === 0 && matchedPins.length === 0) {
      lines.push(AI_HUB_MESSAGES.cannotAnswer)
    } else {
      if (chosen.length > 0) {
        lines.push('**From your documents**', '')
        let title = ''
        chosen.forEach((quote, index) => {
          if (quote.page.title !== title) {
            title = quote.page.title
            lines.push(`*${title}*`)
          }
          lines.push(`- “${quote.text.replace(/\s+/g, ' ')}” (${unitOf(quote.page)}) ${citations[index]!.marker}`)
        })
        lines.push('')
      }
      if (matchedPins.length > 0) {
        lines.push('**From your pinned insights**', '')
        for (const pin of matchedPins) lines.push(`- ${pinLine(pin)}`)
        lines.push('')
      }
      lines.push('_Answered from your context alone by the offline analyst: the quotes are verbatim; nothing is inferred beyond them._')
    }
    const content = lines.join('\n').trim()
    for (const line of content.split(/(?<=\n)/)) onDelta(line)
    return {
      content,
      citations,
      insightsUsed: matchedPins.map((pin) => pin.data.display_name),
      tokensUsed: countTokens(input.prompt) + countTokens(content),
      model: OFFLINE_MODEL,
      answered: chosen.length > 0 || matchedPins.length > 0,
    }
  }

  private async askModel(provider: ProviderConfig, input: GenerateInput, pages: Page[], pins: AiPin[], onDelta: (text: string) => void) {
    const sources: Source[] = pages.map((page, index) => ({ marker: `[S${index + 1}]`, page }))
    const system = [
      'You are the analyst of Citrus, a healthcare market-intelligence platform for life-science commercial teams.',
      'Answer only from the context below: the user’s documents (each page is a source with a marker such as [S1]) and pinned insights.',
      'Cite each statement taken from a document with its source marker, e.g. [S2].',
      'Use only numbers that appear in the context; do not compute, estimate or invent numbers.',
      `If the context does not answer the question, say: "${AI_HUB_MESSAGES.cannotAnswer}"`,
      'Answer in Markdown.',
    ].join('\n')
    const context = [
      ...sources.map((source) => `${source.marker} ${source.page.title}, ${unitOf(source.page)}:\n${source.page.text}`),
      pins.length ? `Pinned insights:\n${pins.map((pin) => `- ${pinLine(pin)}`).join('\n')}` : '',
    ]
      .filter(Boolean)
      .join('\n\n')
    const messages: ChatMessage[] = [
      { role: 'system', content: `${system}\n\nContext:\n\n${context}` },
      { role: 'user', content: input.prompt },
    ]
    let completion
    try {
      completion = await streamChatCompletion(provider, messages, onDelta)
    } catch (error) {
      if (error instanceof ProviderError) throw providerFailure(error)
      throw error
    }
    const content = completion.text
    // Each source the answer cites, quoted by the page's sentence closest to the statement that cites it.
    const citations: AiCitation[] = []
    const cited = new Set<string>()
    for (const match of content.matchAll(MARKER)) {
      const marker = match[0]
      if (cited.has(marker)) continue
      const source = sources.find((candidate) => candidate.marker === marker)
      if (!source) continue
      cited.add(marker)
      const before = content.slice(0, match.index)
      const statement = before.slice(Math.max(before.lastIndexOf('\n'), before.search(/[^.!?]*$/)))
      const stems = new Set(keywordsOf(statement).map(stem))
      const sentences = sentencesOf(source.page.text)
      const best = sentences.map((sentence) => ({ sentence, score: matchScore(sentence.text, stems) })).sort((a, b) => b.score - a.score)[0]
      if (!best) continue
      citations.push({
        documentId: source.page.document_id,
        documentTitle: source.page.title,
        page: source.page.page_number,
        pageUnit: AI_PAGE_UNIT[source.page.type as AiDocumentType] ?? 'page',
        text: best.sentence.text,
        marker,
      })
    }
    const insightsUsed = pins.filter((pin) => content.includes(pin.data.display_name)).map((pin) => pin.data.display_name)
    return {
      content,
      citations,
      insightsUsed,
      tokensUsed: completion.totalTokens ?? messages.reduce((sum, message) => sum + countTokens(message.content), 0) + countTokens(content),
      model: completion.model,
      answered: !content.includes(AI_HUB_MESSAGES.cannotAnswer),
    }
  }
}

const noContext = () => new AppError(422, AI_HUB_ERROR_CODES.noContext, AI_HUB_MESSAGES.noContext)

export const providerFailure = (error: ProviderError) =>
  new AppError(503, AI_HUB_ERROR_CODES.providerError, AI_HUB_MESSAGES.providerError(error.message))

function unitOf(page: Page): string {
  return `${AI_PAGE_UNIT[page.type as AiDocumentType] ?? 'page'} ${page.page_number}`
}
