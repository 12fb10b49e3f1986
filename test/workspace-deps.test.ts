import { readdirSync, readFileSync, statSync } from 'node:fs'
import { builtinModules } from 'node:module'
import path from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

// Every workspace declares each package its code imports: a hoisted package that happens to be
// installed by a neighbour is not a dependency (the Docker image installs from the declarations).

const root = path.resolve(import.meta.dirname, '..')
const SOURCE = /\.(ts|tsx|mts|js|mjs|cjs)$/
const SKIP_DIRS = new Set(['node_modules', 'dist', 'generated', 'data', 'coverage', '.git'])

interface Manifest {
  name: string
  dependencies?: Record<string, string>
  devDependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
  workspaces?: string[]
}

function readManifest(dir: string): Manifest {
  return JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as Manifest
}

function declared(manifest: Manifest): Set<string> {
  return new Set([
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.devDependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
    ...Object.keys(manifest.optionalDependencies ?? {}),
  ])
}

function sourceFiles(dir: string, nested: Set<string>): string[] {
  const files: string[] = []
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry)
    if (SKIP_DIRS.has(entry) || nested.has(full)) continue
    if (statSync(full).isDirectory()) files.push(...sourceFiles(full, nested))
    else if (SOURCE.test(entry)) files.push(full)
  }
  return files
}

/** 'react-dom/client' → 'react-dom', '@mantine/core/styles.css' → '@mantine/core'; null for relative and built-in */
export function packageOf(specifier: string): string | null {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return null
  const parts = specifier.split('/')
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!
  return builtinModules.includes(name) ? null : name
}

function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true)
  return info.importedFiles.map((entry) => entry.fileName)
}

const isTestFile = (file: string) => /\.(test|e2e\.test)\.tsx?$/.test(file) || /[/\\]test[/\\]/.test(file)

const rootManifest = readManifest(root)
const workspaceDirs = (rootManifest.workspaces ?? []).flatMap((pattern) => {
  const base = path.join(root, pattern.replace(/\/\*$/, ''))
  return readdirSync(base)
    .map((entry) => path.join(base, entry))
    .filter((dir) => statSync(path.join(dir, 'package.json'), { throwIfNoEntry: false })?.isFile())
})
const rootDevTools = declared(rootManifest)

/** Imports of packages the workspace does not declare, as "file: package". */
function undeclaredImports(dir: string, nested: Set<string>, testTools: Set<string>): string[] {
  const manifest = readManifest(dir)
  const own = declared(manifest)
  const missing: string[] = []
  for (const file of sourceFiles(dir, nested)) {
    for (const specifier of importsOf(file)) {
      const name = packageOf(specifier)
      if (!name || name === manifest.name) continue
      // a type-only import of 'geojson' is satisfied by @types/geojson
      const typesName = `@types/${name.replace(/^@/, '').replace('/', '__')}`
      if (own.has(name) || own.has(typesName)) continue
      // tests run under the root's tooling (vitest, supertest, playwright-core)
      if (isTestFile(file) && (testTools.has(name) || testTools.has(typesName))) continue
      missing.push(`${path.relative(root, file)}: ${name}`)
    }
  }
  return missing
}

describe('workspace dependencies', () => {
  it('finds every workspace', () => {
    const names = workspaceDirs.map((dir) => readManifest(dir).name).sort()
    expect(names).toEqual(expect.arrayContaining(['@citrus/contracts', '@citrus/data-kit', '@citrus/server', '@citrus/web']))
  })

  it.each(workspaceDirs.map((dir) => [path.relative(root, dir), dir]))('%s declares every package it imports', (_name, dir) => {
    expect(undeclaredImports(dir, new Set(), rootDevTools)).toEqual([])
  })

  it('the root (scripts, tests, benchmarks) declares every package it imports', () => {
    // the root's own files may use the workspaces' packages only through their relative paths
    expect(undeclaredImports(root, new Set(workspaceDirs.concat(path.join(root, 'apps'), path.join(root, 'packages'))), new Set())).toEqual(
      [],
    )
  })

  it('packageOf names the package of a specifier', () => {
    expect(packageOf('react-dom/client')).toBe('react-dom')
    expect(packageOf('@mantine/core/styles.css')).toBe('@mantine/core')
    expect(packageOf('node:fs')).toBeNull()
    expect(packageOf('fs')).toBeNull()
    expect(packageOf('./x.ts')).toBeNull()
  })
})
