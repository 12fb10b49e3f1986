import {
  AI_HUB_MESSAGES,
  AUTH_MESSAGES,
  ERROR_CODES,
  aiDocumentTypeOf,
  type AiDocument,
  type AiDocumentType,
  type AiHubProduct,
  type Role,
} from '@citrus/contracts'
import { AppError, badRequest, forbidden } from '../../lib/errors.js'
import type { AiContextStore, NewDocument, Owner } from './context.js'
import { cleanText } from './extract.js'
import type { ExtractionPool } from './extract-pool.js'

/**
 * Who may use the AI Hub (spec 2 §2, §6; docs/decisions/0042-ai-hub.md): it lives in Atlas and Nova, so the staff
 * roles of those apps whose company has either product.
 */
export const HUB_ROLES = ['admin', 'citrus', 'user'] as const satisfies readonly Role[]
/** Who may use each app (spec 2 §2, §6): Atlas for user, admin, citrus; Nova for citrus only. */
const APP_ROLES: Record<AiHubProduct, readonly Role[]> = { ATLAS: HUB_ROLES, NOVA: ['citrus'] }

/** A generation is used from one app (body.productGroup): 403 when the caller's role may not use that app. */
export function assertAppRole(role: Role, product: AiHubProduct): void {
  if (!APP_ROLES[product].includes(role)) throw forbidden(AUTH_MESSAGES.roleDenied(role))
}

/** The file name as sent, without a path, cleaned of control characters, at most 255 characters. */
export function uploadName(raw: string | undefined): string {
  const base = (raw ?? '').split(/[\\/]/).pop() ?? ''
  const name = cleanText(base).replace(/\n/g, ' ')
  return name.length > 255 ? name.slice(0, 200) + name.slice(name.lastIndexOf('.')) : name
}

export interface UploadedFile {
  /** the name as uploadName() cleaned it */
  filename: string
  bytes: Buffer
}

/**
 * One upload of documents: none is 400, a type the reader does not know 415 (naming the file), each one read on the
 * extraction pool's threads in turn (a refusal ends the upload), then all of them stored together.
 */
export async function addUploadedDocuments(
  store: AiContextStore,
  extraction: ExtractionPool,
  owner: Owner,
  files: readonly UploadedFile[],
): Promise<AiDocument[]> {
  if (files.length === 0) throw badRequest(AI_HUB_MESSAGES.noFiles)
  const typed = files.map((file) => ({ ...file, type: aiDocumentTypeOf(file.filename) }))
  const unsupported = typed.find((file) => file.type === null)
  if (unsupported)
    throw new AppError(415, ERROR_CODES.UNSUPPORTED_MEDIA_TYPE, AI_HUB_MESSAGES.unsupportedType(unsupported.filename || '(unnamed)'))
  const documents: NewDocument[] = []
  for (const file of typed) {
    const type = file.type as AiDocumentType
    const pages = await extraction.extract(file.filename, type, file.bytes)
    documents.push({ filename: file.filename, type, size: file.bytes.length, pages })
  }
  return store.addDocuments(owner, documents)
}
