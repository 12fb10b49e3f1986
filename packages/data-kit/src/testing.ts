import { existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository root (this file is packages/data-kit/src/testing.ts). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..')

/** Official reference files live beside the repository, never in it (see ../shared/data/SOURCES.md). */
export const sharedDataDir = path.resolve(repoRoot, '../shared/data')

/** Absolute path of a file under ../shared/data, or undefined when it is absent (tests then skip). */
export function sharedFile(relative: string): string | undefined {
  const file = path.join(sharedDataDir, relative)
  return existsSync(file) ? file : undefined
}
