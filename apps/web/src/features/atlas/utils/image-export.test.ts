import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { cardSlug, exportCardPng, exportCardsPng, IMAGE_EXPORT, pngFileName, renderPng } from './image-export'

const toBlob = vi.hoisted(() => vi.fn())
vi.mock('html-to-image', () => ({ toBlob }))
const notify = vi.hoisted(() => vi.fn())
vi.mock('../../../lib/notify', () => ({ notify }))

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

/** Records the files handed to the browser (saveBlob clicks a download link). */
function captureDownloads() {
  const files: { name: string; href: string; at: number }[] = []
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    files.push({ name: this.download, href: this.href, at: Date.now() })
  })
  return files
}

function card(text = 'Total Patients 120') {
  const node = document.createElement('div')
  node.textContent = text
  const control = document.createElement('button')
  control.setAttribute('data-export-ignore', '')
  node.appendChild(control)
  document.body.appendChild(node)
  return { node, control }
}

beforeEach(() => {
  toBlob.mockReset()
  notify.mockReset()
  toBlob.mockResolvedValue(new Blob([PNG], { type: 'image/png' }))
  URL.createObjectURL = vi.fn(() => 'blob:test')
  URL.revokeObjectURL = vi.fn()
})
afterEach(() => {
  document.body.innerHTML = ''
})

describe('card PNG file names', () => {
  it('slugs the card title (spec 2 §2: file name slug taken from the card title)', () => {
    expect(cardSlug('Total Patients')).toBe('total-patients')
    expect(cardSlug('National Payer Mix')).toBe('national-payer-mix')
    expect(cardSlug('  Key  Insights! ')).toBe('key-insights')
    expect(cardSlug('Médicaid / Other')).toBe('medicaid-other')
    expect(cardSlug('***')).toBe('card')
  })

  it('names the file atlas-{card}-{date}.png, like the CSV export', () => {
    expect(pngFileName('States Analyzed', new Date('2026-11-25T23:59:00Z'))).toBe('atlas-states-analyzed-2026-11-25.png')
    expect(pngFileName('Key Insights')).toMatch(/^atlas-key-insights-\d{4}-\d{2}-\d{2}\.png$/)
  })
})

describe('renderPng', () => {
  it('renders at scale 2 and quality 0.92, without the export controls', async () => {
    const { node, control } = card()
    const blob = await renderPng(node)
    expect(blob.type).toBe('image/png')
    expect(toBlob).toHaveBeenCalledTimes(1)
    const [target, options] = toBlob.mock.calls[0] as [
      HTMLElement,
      { pixelRatio: number; quality: number; filter: (n: HTMLElement) => boolean },
    ]
    expect(target).toBe(node)
    expect(options).toMatchObject({ pixelRatio: 2, quality: 0.92, type: 'image/png' })
    expect(IMAGE_EXPORT).toEqual({ pixelRatio: 2, quality: 0.92, batchPauseMs: 100 })
    expect(options.filter(control)).toBe(false)
    expect(options.filter(document.createElement('span'))).toBe(true)
  })

  it("refuses a card that is not on the page: 'Component not ready for export'", async () => {
    await expect(renderPng(null)).rejects.toThrow('Component not ready for export')
    await expect(renderPng(document.createElement('div'))).rejects.toThrow('Component not ready for export')
    expect(toBlob).not.toHaveBeenCalled()
  })

  it("fails with 'Failed to create image blob' when no blob comes back", async () => {
    toBlob.mockResolvedValue(null)
    await expect(renderPng(card().node)).rejects.toThrow('Failed to create image blob')
  })
})

describe('exportCardPng', () => {
  it('downloads the PNG under the card name and says so', async () => {
    const files = captureDownloads()
    expect(await exportCardPng(card().node, 'Total Patients')).toBe(true)
    expect(files).toHaveLength(1)
    expect(files[0]!.name).toMatch(/^atlas-total-patients-\d{4}-\d{2}-\d{2}\.png$/)
    expect(files[0]!.href).toBe('blob:test')
    expect(notify).toHaveBeenCalledWith({ severity: 'success', message: 'Component exported successfully' })
  })

  it('shows the documented message of each failure and saves nothing', async () => {
    const files = captureDownloads()
    vi.spyOn(console, 'warn').mockImplementation(() => {})
    expect(await exportCardPng(null, 'Total Patients')).toBe(false)
    expect(notify).toHaveBeenLastCalledWith({ severity: 'error', message: 'Component not ready for export' })
    toBlob.mockResolvedValueOnce(null)
    expect(await exportCardPng(card().node, 'Total Patients')).toBe(false)
    expect(notify).toHaveBeenLastCalledWith({ severity: 'error', message: 'Failed to create image blob' })
    toBlob.mockRejectedValueOnce(new Error('tainted canvas'))
    expect(await exportCardPng(card().node, 'Total Patients')).toBe(false)
    expect(notify).toHaveBeenLastCalledWith({ severity: 'error', message: 'Failed to export component. Please try again.' })
    expect(files).toHaveLength(0)
  })
})

describe('exportCardsPng', () => {
  it('saves one file per card, 100 ms apart, and counts them', async () => {
    const files = captureDownloads()
    const targets = [
      { node: card().node, title: 'Total Patients' },
      { node: card().node, title: 'National Payer Mix' },
      { node: card().node, title: 'Key Insights' },
    ]
    expect(await exportCardsPng(targets)).toBe(3)
    expect(files.map((f) => f.name.replace(/-\d{4}-\d{2}-\d{2}\.png$/, ''))).toEqual([
      'atlas-total-patients',
      'atlas-national-payer-mix',
      'atlas-key-insights',
    ])
    expect(files[1]!.at - files[0]!.at).toBeGreaterThanOrEqual(95)
    expect(files[2]!.at - files[1]!.at).toBeGreaterThanOrEqual(95)
    expect(notify).toHaveBeenCalledWith({ severity: 'success', message: 'Successfully exported 3 component(s)' })
  })

  it('skips a card that cannot be rendered and counts the rest', async () => {
    const files = captureDownloads()
    vi.spyOn(console, 'warn').mockImplementation(() => {})
    expect(
      await exportCardsPng([
        { node: null, title: 'Facilities' },
        { node: card().node, title: 'Total Claims' },
      ]),
    ).toBe(1)
    expect(files).toHaveLength(1)
    expect(notify).toHaveBeenCalledWith({ severity: 'success', message: 'Successfully exported 1 component(s)' })
  })

  it("says 'No components were exported' when nothing could be saved", async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {})
    expect(await exportCardsPng([])).toBe(0)
    expect(notify).toHaveBeenLastCalledWith({ severity: 'warning', message: 'No components were exported' })
    expect(await exportCardsPng([{ node: null, title: 'Facilities' }])).toBe(0)
    expect(notify).toHaveBeenLastCalledWith({ severity: 'warning', message: 'No components were exported' })
  })

  it("stops with 'Failed to export components. Please try again.' on an unexpected error", async () => {
    const files = captureDownloads()
    vi.spyOn(console, 'warn').mockImplementation(() => {})
    toBlob.mockRejectedValueOnce(new Error('out of memory'))
    expect(
      await exportCardsPng([
        { node: card().node, title: 'Facilities' },
        { node: card().node, title: 'Total Claims' },
      ]),
    ).toBe(0)
    expect(files).toHaveLength(0)
    expect(notify).toHaveBeenCalledTimes(1)
    expect(notify).toHaveBeenLastCalledWith({ severity: 'error', message: 'Failed to export components. Please try again.' })
  })
})
