import { ATLAS_MESSAGES } from '@citrus/contracts'
import { notify } from '../../../lib/notify'
import { saveBlob } from '../../../lib/save-file'

/** PNG export of cards (spec 2 §7, spec 1 §9): scale 2, quality 0.92, 100 ms between the files of a batch. */
export const IMAGE_EXPORT = { pixelRatio: 2, quality: 0.92, batchPauseMs: 100 } as const

/** Elements (and their children) marked with this attribute are left out of the image: the export controls. */
export const EXPORT_IGNORE_ATTRIBUTE = 'data-export-ignore'

/** A card title as a file-name slug: 'National Payer Mix' → 'national-payer-mix'. */
export function cardSlug(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
  return slug || 'card'
}

/** The PNG file name of a card, like the CSV's atlas-{kind}-data-{date}: atlas-{card}-{date}.png (UTC date). */
export function pngFileName(title: string, now: Date = new Date()): string {
  return `atlas-${cardSlug(title)}-${now.toISOString().slice(0, 10)}.png`
}

/** An error whose message is one of the documented export messages (spec 2 §8). */
export class ImageExportError extends Error {}

/**
 * Renders a DOM node to a PNG blob. The screenshot library is loaded on first use (spec 1 §7: the image
 * export loads its capability lazily), so the Overview never downloads it until a card is exported. It
 * only reads the page's own stylesheets and fonts, so no request leaves the origin.
 */
export async function renderPng(node: HTMLElement | null): Promise<Blob> {
  if (!node || !node.isConnected) throw new ImageExportError(ATLAS_MESSAGES.exportNotReady)
  const { toBlob } = await import('html-to-image')
  const blob = await toBlob(node, {
    pixelRatio: IMAGE_EXPORT.pixelRatio,
    quality: IMAGE_EXPORT.quality,
    type: 'image/png',
    filter: (element) => !(element instanceof Element && element.hasAttribute(EXPORT_IGNORE_ATTRIBUTE)),
  })
  if (!blob) throw new ImageExportError(ATLAS_MESSAGES.exportBlobFailed)
  return blob
}

/** Exports one card as a PNG download and says how it went; true when the file was saved. */
export async function exportCardPng(node: HTMLElement | null, title: string): Promise<boolean> {
  try {
    saveBlob(await renderPng(node), pngFileName(title))
    notify({ severity: 'success', message: ATLAS_MESSAGES.exportDone })
    return true
  } catch (error) {
    console.warn('Atlas PNG export failed', error)
    notify({ severity: 'error', message: error instanceof ImageExportError ? error.message : ATLAS_MESSAGES.exportFailed })
    return false
  }
}

export interface ExportTarget {
  node: HTMLElement | null
  title: string
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * Exports several cards, one PNG each, pausing between files so the browser accepts every download.
 * A card that cannot be rendered is skipped; the toast counts the files saved. Returns that count.
 */
export async function exportCardsPng(targets: readonly ExportTarget[]): Promise<number> {
  let exported = 0
  try {
    for (const [index, target] of targets.entries()) {
      if (index > 0) await pause(IMAGE_EXPORT.batchPauseMs)
      try {
        saveBlob(await renderPng(target.node), pngFileName(target.title))
        exported += 1
      } catch (error) {
        if (!(error instanceof ImageExportError)) throw error
        console.warn(`Atlas PNG export skipped ${target.title}: ${error.message}`)
      }
    }
  } catch (error) {
    console.warn('Atlas PNG batch export failed', error)
    notify({ severity: 'error', message: ATLAS_MESSAGES.exportManyFailed })
    return exported
  }
  if (exported === 0) notify({ severity: 'warning', message: ATLAS_MESSAGES.exportNone })
  else notify({ severity: 'success', message: ATLAS_MESSAGES.exportManyDone(exported) })
  return exported
}
