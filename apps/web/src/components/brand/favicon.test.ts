import { existsSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

// vitest runs from the repository root (jsdom gives import.meta.url an http: URL)
const web = (path: string) => resolve(process.cwd(), 'apps/web', path)

describe('favicon', () => {
  it('index.html links an SVG icon that exists in public/ (copied into the build the server serves)', () => {
    const html = readFileSync(web('index.html'), 'utf8')
    const link = /<link rel="icon" type="image\/svg\+xml" href="\/([^"]+)" \/>/.exec(html)
    expect(link?.[1]).toBe('favicon.svg')
    const file = web(`public/${link?.[1]}`)
    expect(existsSync(file)).toBe(true)
    expect(readFileSync(file, 'utf8')).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/)
  })
})
