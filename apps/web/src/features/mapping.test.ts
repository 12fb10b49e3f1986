import { endpoints, type EndpointDefinition } from '@citrus/contracts'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

/*
 * features/README.md is the one place that says which API each feature calls (issue 35 item 5): its table and its
 * 'Shared:' line are checked here against the code, both ways, by the `endpoints.<area>` each source uses and, for the
 * table, by the URLs of the endpoints it calls.
 */

const SRC = path.resolve(__dirname, '..')
const FEATURES = path.join(SRC, 'features')
const README = readFileSync(path.join(FEATURES, 'README.md'), 'utf8')
const AREAS = endpoints as unknown as Record<string, Record<string, EndpointDefinition>>

/** The non-test TypeScript sources of a file or folder under src/. */
function sources(target: string): string[] {
  if (!statSync(target).isDirectory()) return [target]
  return readdirSync(target).flatMap((name) => {
    const full = path.join(target, name)
    if (statSync(full).isDirectory()) return sources(full)
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [full] : []
  })
}

/** A source without its comments. */
const codeOf = (file: string) =>
  readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|\s)\/\/.*$/gm, '$1')

/**
 * The endpoints the sources call, by area → their documented paths: `endpoints.<area>.<name>`, and `<alias>.<name>`
 * after `const <alias> = endpoints.<area>`; an area used whole in any other way counts with all its endpoints.
 */
function endpointsUsedBy(files: readonly string[]): Map<string, Set<string>> {
  const used = new Map<string, Set<string>>()
  const add = (area: string, names: readonly string[]) => {
    const definitions = AREAS[area] ?? {}
    const paths = used.get(area) ?? new Set<string>()
    for (const name of names) if (definitions[name]) paths.add(definitions[name].path)
    used.set(area, paths)
  }
  for (const file of files) {
    const code = codeOf(file)
    for (const match of code.matchAll(/\bendpoints\.([A-Za-z]+)\b(\.([A-Za-z0-9]+))?/g)) {
      const [area, name] = [match[1] as string, match[3]]
      const alias = new RegExp(`\\b(?:const|let)\\s+([A-Za-z_$][\\w$]*)\\s*=\\s*endpoints\\.${area}\\b(?!\\.)`).exec(code)?.[1]
      if (name) add(area, [name])
      else if (alias)
        add(
          area,
          [...code.matchAll(new RegExp(`\\b${alias.replace('$', '\\$')}\\.([A-Za-z0-9]+)`, 'g'))].map((m) => m[1] as string),
        )
      else add(area, Object.keys(AREAS[area] ?? {}))
    }
  }
  return used
}

/**
 * The API column of a row: each area (backticked, outside parentheses) → the URLs in the parentheses after it. A group
 * of parentheses without an area before it is a remark ('none of its own (...)').
 */
function apiColumn(text: string): Map<string, string[]> {
  const areas = new Map<string, string[]>()
  for (const match of text.matchAll(/`([^`]+)`\s*(\((?:[^()]|\([^()]*\))*\))?|\((?:[^()]|\([^()]*\))*\)/g)) {
    if (match[1] === undefined) continue
    const group = (match[2] ?? '').slice(1, -1)
    areas.set(
      match[1],
      [...group.matchAll(/(?:^|[\s,])(\/[^\s,]*)/g)].map((url) => url[1] as string),
    )
  }
  return areas
}

/** The table's rows: feature → its API column. */
function tableRows(): Map<string, Map<string, string[]>> {
  const rows = new Map<string, Map<string, string[]>>()
  for (const line of README.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim())
    const feature = /^`([a-z0-9-]+)`$/.exec(cells[1] ?? '')?.[1]
    if (feature && cells.length >= 5) rows.set(feature, apiColumn(cells[3] ?? ''))
  }
  return rows
}

/** The 'Shared:' line: a module or folder under src/ → the areas named in its parentheses. */
function sharedEntries(): Map<string, string[]> {
  const line = /^Shared: ([\s\S]*?\.)\n\n/m.exec(README)?.[1]?.replace(/\n/g, ' ') ?? ''
  const entries = new Map<string, string[]>()
  for (const match of line.matchAll(/`([^`]+)` \(([^)]*)\)/g)) {
    entries.set(match[1] as string, [...(match[2] as string).matchAll(/`([^`]+)`/g)].map((area) => area[1] as string).sort())
  }
  return entries
}

/** A README URL covers an endpoint path that is it or lies under it. */
const covers = (url: string, endpointPath: string) => endpointPath === url || endpointPath.startsWith(url.endsWith('/') ? url : `${url}/`)

const featureFolders = readdirSync(FEATURES)
  .filter((name) => statSync(path.join(FEATURES, name)).isDirectory())
  .sort()

describe('features/README.md names the API each feature calls', () => {
  it('has one row per folder of features/, and no row for a folder that does not exist', () => {
    expect([...tableRows().keys()].sort()).toEqual(featureFolders)
  })

  it('names only areas of the contract endpoints', () => {
    const named = [...[...tableRows().values()].flatMap((row) => [...row.keys()]), ...[...sharedEntries().values()].flat()]
    expect(named.filter((area) => !(area in AREAS))).toEqual([])
  })

  it.each(featureFolders)('%s: the row names exactly the areas and URLs of the endpoints its source calls', (feature) => {
    const row = tableRows().get(feature)
    expect(row, `no row for features/${feature} in features/README.md`).toBeDefined()
    const used = endpointsUsedBy(sources(path.join(FEATURES, feature)))
    expect([...row!.keys()].sort(), `features/${feature}: the README's areas (left) against the code's (right)`).toEqual(
      [...used.keys()].sort(),
    )
    for (const [area, urls] of row!) {
      const paths = [...(used.get(area) ?? [])]
      // no URL the feature does not call, and no endpoint the row leaves out
      expect(
        urls.filter((url) => !paths.some((p) => covers(url, p))),
        `${feature}: URLs of ${area} it does not call`,
      ).toEqual([])
      expect(
        paths.filter((p) => !urls.some((url) => covers(url, p))),
        `${feature}: endpoints of ${area} the row leaves out`,
      ).toEqual([])
    }
  })

  it("the 'Shared:' line names the shared modules that call the API and the areas each one uses", () => {
    const shared = sharedEntries()
    expect(shared.size).toBeGreaterThan(0)
    for (const [entry, areas] of shared) {
      const target = path.join(SRC, entry)
      expect(existsSync(target), `${entry} does not exist`).toBe(true)
      expect(areas, `${entry}: the README's areas (left) against the code's (right)`).toEqual(
        [...endpointsUsedBy(sources(target)).keys()].sort(),
      )
    }
    // every module outside features/ that calls an area is on the line (the API client only defines how to call)
    const listed = new Set([...shared.keys()].flatMap((entry) => sources(path.join(SRC, entry))))
    const unlisted = sources(SRC)
      .filter((file) => !file.startsWith(`${FEATURES}${path.sep}`) && !file.includes(`${path.sep}test${path.sep}`))
      .filter((file) => !listed.has(file) && endpointsUsedBy([file]).size > 0)
      .map((file) => path.relative(SRC, file))
    expect(unlisted).toEqual([])
  })
})
