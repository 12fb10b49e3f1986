import {
  AI_HUB_ERROR_CODES,
  AI_HUB_MESSAGES,
  AI_MAX_CONTEXT_TOKENS,
  AI_PAGE_UNIT,
  AI_TOKENS_PER_PIN,
  type AiContext,
  type AiDocument,
  type AiDocumentType,
  type AiHubProduct,
  type AiPin,
  type AiPinCreate,
  type AiPinData,
  type AiPinType,
  type AiTemplate,
} from '@citrus/contracts'
import type { Prisma, PrismaClient } from '../../generated/prisma/client.js'
import { AppError, badRequest, conflict, notFound } from '../../lib/errors.js'
import type { ExtractedPage } from './extract.js'
import { AI_TEMPLATES } from './templates.js'

/**
 * A user's AI Hub context (docs/decisions/0042-ai-hub.md): documents with their pages, pinned insights and
 * template use, all per user (and company, for the owners' foreign keys). Every change that adds tokens runs
 * in a transaction holding the user's context lock, so two uploads cannot together pass the 32,000-token budget.
 */
export interface Owner {
  user_id: number
  company_id: number
}

export interface NewDocument {
  filename: string
  type: AiDocumentType
  size: number
  /** with their tokens, counted where the text was extracted (off the event loop) */
  pages: ExtractedPage[]
}

type Tx = Prisma.TransactionClient

const documentRow = {
  id: true,
  title: true,
  filename: true,
  type: true,
  size: true,
  tokens: true,
  page_count: true,
  tags: true,
  uploaded_at: true,
} as const

type DocumentRow = Prisma.AiDocumentGetPayload<{ select: typeof documentRow }>
type PinRow = Prisma.AiPinGetPayload<object>

export function toDocument(row: DocumentRow): AiDocument {
  const type = row.type as AiDocumentType
  return {
    id: row.id,
    title: row.title,
    filename: row.filename,
    type,
    size: row.size,
    tokens: row.tokens,
    pages: row.page_count,
    pageUnit: AI_PAGE_UNIT[type],
    uploadDate: row.uploaded_at.toISOString(),
    tags: row.tags,
  }
}

export function toPin(row: PinRow): AiPin {
  return {
    id: row.id,
    type: row.type as AiPinType,
    entityKey: row.entity_key,
    source: row.source as AiHubProduct,
    data: row.data as AiPinData,
    pinnedAt: row.pinned_at.toISOString(),
    order: row.position,
    tokens: AI_TOKENS_PER_PIN,
  }
}

/** The title shown for a file: its name without the extension. */
export const titleOf = (filename: string) => filename.replace(/\.[A-Za-z0-9]+$/, '') || filename

export const budgetExceeded = (total: number) =>
  new AppError(422, AI_HUB_ERROR_CODES.budgetExceeded, AI_HUB_MESSAGES.budgetExceeded(total, total - AI_MAX_CONTEXT_TOKENS))

export class AiContextStore {
  constructor(private readonly prisma: PrismaClient) {}

  private async locked<T>(owner: Owner, work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(4215, ${owner.user_id}::int)`
      return work(tx)
    })
  }

  private async usedTokens(tx: Tx | PrismaClient, owner: Owner): Promise<number> {
    const [documents, pins] = await Promise.all([
      tx.aiDocument.aggregate({ where: { user_id: owner.user_id }, _sum: { tokens: true } }),
      tx.aiPin.count({ where: { user_id: owner.user_id } }),
    ])
    return (documents._sum.tokens ?? 0) + pins * AI_TOKENS_PER_PIN
  }

  async documents(owner: Owner): Promise<AiDocument[]> {
    const rows = await this.prisma.aiDocument.findMany({
      where: { user_id: owner.user_id },
      select: documentRow,
      orderBy: [{ uploaded_at: 'desc' }, { id: 'asc' }],
    })
    return rows.map(toDocument)
  }

  async pins(owner: Owner, tx: Tx | PrismaClient = this.prisma): Promise<AiPin[]> {
    const rows = await tx.aiPin.findMany({ where: { user_id: owner.user_id }, orderBy: [{ position: 'asc' }, { pinned_at: 'asc' }] })
    return rows.map(toPin)
  }

  async context(owner: Owner): Promise<AiContext> {
    const [documents, pinnedInsights] = await Promise.all([this.documents(owner), this.pins(owner)])
    const totalTokens = documents.reduce((sum, document) => sum + document.tokens, 0) + pinnedInsights.length * AI_TOKENS_PER_PIN
    return { documents, pinnedInsights, totalTokens, maxTokens: AI_MAX_CONTEXT_TOKENS }
  }

  /** Stores every document of an upload, or none (the budget is checked for all of them together). */
  async addDocuments(owner: Owner, uploads: NewDocument[]): Promise<AiDocument[]> {
    const prepared = uploads.map((upload) => ({ ...upload, tokens: upload.pages.reduce((sum, page) => sum + page.tokens, 0) }))
    const added = prepared.reduce((sum, upload) => sum + upload.tokens, 0)
    return this.locked(owner, async (tx) => {
      const total = (await this.usedTokens(tx, owner)) + added
      if (total > AI_MAX_CONTEXT_TOKENS) throw budgetExceeded(total)
      const stored: AiDocument[] = []
      for (const upload of prepared) {
        const row = await tx.aiDocument.create({
          data: {
            user_id: owner.user_id,
            company_id: owner.company_id,
            title: titleOf(upload.filename),
            filename: upload.filename,
            type: upload.type,
            size: upload.size,
            tokens: upload.tokens,
            page_count: upload.pages.length,
          },
          select: documentRow,
        })
        await tx.aiDocumentPage.createMany({
          data: upload.pages.map((page) => ({ document_id: row.id, page_number: page.page, text: page.text, tokens: page.tokens })),
        })
        stored.push(toDocument(row))
      }
      return stored
    })
  }

  async deleteDocument(owner: Owner, id: string): Promise<void> {
    const { count } = await this.prisma.aiDocument.deleteMany({ where: { id, user_id: owner.user_id } })
    if (count === 0) throw notFound(AI_HUB_MESSAGES.documentNotFound)
  }

  async pin(owner: Owner, input: AiPinCreate): Promise<AiPin> {
    return this.locked(owner, async (tx) => {
      const existing = await tx.aiPin.findUnique({
        where: { user_id_type_entity_key: { user_id: owner.user_id, type: input.type, entity_key: input.entityKey } },
      })
      if (existing) throw conflict(AI_HUB_MESSAGES.alreadyPinned)
      const total = (await this.usedTokens(tx, owner)) + AI_TOKENS_PER_PIN
      if (total > AI_MAX_CONTEXT_TOKENS) throw budgetExceeded(total)
      const last = await tx.aiPin.aggregate({ where: { user_id: owner.user_id }, _max: { position: true } })
      const row = await tx.aiPin.create({
        data: {
          user_id: owner.user_id,
          company_id: owner.company_id,
          type: input.type,
          entity_key: input.entityKey,
          source: input.source,
          display_name: input.data.display_name,
          data: input.data as Prisma.InputJsonValue,
          position: (last._max.position ?? -1) + 1,
        },
      })
      return toPin(row)
    })
  }

  async unpin(owner: Owner, id: string): Promise<void> {
    const { count } = await this.prisma.aiPin.deleteMany({ where: { id, user_id: owner.user_id } })
    if (count === 0) throw notFound(AI_HUB_MESSAGES.pinNotFound)
  }

  async clearPins(owner: Owner): Promise<void> {
    await this.prisma.aiPin.deleteMany({ where: { user_id: owner.user_id } })
  }

  async reorderPins(owner: Owner, ids: string[]): Promise<AiPin[]> {
    return this.locked(owner, async (tx) => {
      const current = await tx.aiPin.findMany({ where: { user_id: owner.user_id }, select: { id: true } })
      const known = new Set(current.map((pin) => pin.id))
      if (ids.length !== known.size || new Set(ids).size !== ids.length || !ids.every((id) => known.has(id))) {
        throw badRequest(AI_HUB_MESSAGES.reorderMismatch)
      }
      for (const [position, id] of ids.entries()) await tx.aiPin.update({ where: { id }, data: { position } })
      return this.pins(owner, tx)
    })
  }

  async templates(owner: Owner): Promise<AiTemplate[]> {
    const uses = await this.prisma.aiTemplateUse.findMany({ where: { user_id: owner.user_id } })
    const count = new Map(uses.map((use) => [use.template_id, use.uses]))
    return AI_TEMPLATES.map((template) => ({ ...template, usageCount: count.get(template.id) ?? 0 }))
  }

  async recordTemplateUse(owner: Owner, templateId: string): Promise<void> {
    await this.prisma.aiTemplateUse.upsert({
      where: { user_id_template_id: { user_id: owner.user_id, template_id: templateId } },
      create: { user_id: owner.user_id, template_id: templateId, uses: 1 },
      update: { uses: { increment: 1 }, last_used_at: new Date() },
    })
  }
}
