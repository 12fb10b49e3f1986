import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const SRC = path.resolve(__dirname, '../..')
/** The only modules that may load MapLibre or turf at run time: the lazily imported map and its helpers. */
const MAP_MODULES = new Set(['components/map/citrus-map.tsx', 'components/map/map-utils.ts'])

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name)
    if (statSync(full).isDirectory()) return sourceFiles(full)
    return /\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name) ? [full] : []
  })
}

describe('MapLibre stays out of the launcher bundle', () => {
  it('no module but the lazy map imports maplibre-gl or @turf at run time (type imports are erased)', () => {
    const offenders = sourceFiles(SRC)
      .map((file) => ({ file: path.relative(SRC, file).split(path.sep).join('/'), text: readFileSync(file, 'utf8') }))
      .filter(({ file, text }) => !MAP_MODULES.has(file) && /^import (?!type )[^']*from '(maplibre-gl|@turf\/[^']+)[^']*'/m.test(text))
      .map(({ file }) => file)
    expect(offenders).toEqual([])
  })

  it('the map entry point loads the component with a dynamic import only', () => {
    const entry = readFileSync(path.join(SRC, 'components/map/index.ts'), 'utf8')
    expect(entry).toContain("lazy(() => import('./citrus-map'))")
    expect(entry).not.toMatch(/from '\.\/(citrus-map|map-utils)'/)
  })
})
