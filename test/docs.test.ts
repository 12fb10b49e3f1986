import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { endpoints } from '@citrus/contracts'
import { envSchema } from '../apps/server/src/config.ts'

// The documentation kept true by tests where it can be (issue 35): links and anchors resolve, every environment
// variable and bench is documented, the decision index matches the records, and the guide's pictures are all used.

const root = path.resolve(import.meta.dirname, '..')
const read = (file: string): string => readFileSync(path.join(root, file), 'utf8')
const rel = (file: string): string => path.relative(root, file).split(path.sep).join('/')

/** Fenced code blocks hold examples, not links or headings. */
const withoutFences = (text: string): string => text.replace(/```[\s\S]*?```/g, '')

function markdownFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = `${dir}/${entry.name}`
    if (entry.isDirectory()) return markdownFiles(file)
    return entry.name.endsWith('.md') ? [file] : []
  })
}

/** GitHub's heading anchor: lower case, markup and punctuation dropped, spaces as hyphens. */
function slugOf(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .trim()
    .toLowerCase()
    .replace(/<[^>]+>/g, '')
    .replace(/[^\p{L}\p{M}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-')
}

const anchorCache = new Map<string, Set<string>>()
function anchorsOf(file: string): Set<string> {
  let anchors = anchorCache.get(file)
  if (anchors) return anchors
  anchors = new Set()
  const text = readFileSync(file, 'utf8')
  const seen = new Map<string, number>()
  for (const match of withoutFences(text).matchAll(/^#{1,6}\s+(.*)$/gm)) {
    const slug = slugOf(match[1]!)
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    anchors.add(count === 0 ? slug : `${slug}-${count}`)
  }
  for (const match of text.matchAll(/<a (?:id|name)="([^"]+)"/g)) anchors.add(match[1]!)
  anchorCache.set(file, anchors)
  return anchors
}

describe('documentation links', () => {
  it('every relative link and #anchor in README.md and docs/ resolves', () => {
    const files = ['README.md', ...markdownFiles('docs')]
    const broken: string[] = []
    let checked = 0
    for (const file of files) {
      for (const match of withoutFences(read(file)).matchAll(/\]\(([^)\s]+)\)/g)) {
        const link = match[1]!
        if (/^(https?:|mailto:)/.test(link)) continue
        checked++
        const hash = link.indexOf('#')
        const target = hash === -1 ? link : link.slice(0, hash)
        const anchor = hash === -1 ? '' : link.slice(hash + 1)
        const resolved = target ? path.resolve(root, path.dirname(file), decodeURIComponent(target)) : path.join(root, file)
        if (!existsSync(resolved)) broken.push(`${file}: ${link} (no file ${rel(resolved)})`)
        else if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor))
          broken.push(`${file}: ${link} (no heading #${anchor} in ${rel(resolved)})`)
      }
    }
    expect(checked).toBeGreaterThan(100)
    expect(broken, 'links whose file or heading does not exist').toEqual([])
  })

  it('derives the anchors GitHub gives headings', () => {
    expect(slugOf('0072. Price Check’s targets are met; which machine a target is judged on')).toBe(
      '0072-price-checks-targets-are-met-which-machine-a-target-is-judged-on',
    )
    expect(slugOf('Transparency-in-Coverage import (issue 37)')).toBe('transparency-in-coverage-import-issue-37')
    expect(slugOf('The `[x](y)` of **bold** ≤ 50 ms')).toBe('the-x-of-bold--50-ms')
  })
})

describe('docs/operations.md', () => {
  it('names every environment variable the server reads', () => {
    const operations = read('docs/operations.md')
    const variables = Object.keys(envSchema.shape)
    expect(variables.length).toBeGreaterThan(20)
    const missing = variables.filter((name) => !new RegExp(`\\b${name}\\b`).test(operations))
    expect(missing, 'variables of apps/server/src/config.ts missing from docs/operations.md').toEqual([])
  })
})

describe('docs/performance.md', () => {
  const performance = read('docs/performance.md')

  it('lists every bench of bench/main.ts with its run command', () => {
    const names = [...read('bench/main.ts').matchAll(/command === '([a-z0-9-]+)'/g)].map((match) => match[1]!)
    expect(names).toContain('rankings')
    const table = performance.slice(0, performance.indexOf('\n## '))
    const problems = names.flatMap((name) => [
      ...(new RegExp(`npm run bench -- ${name}(?![\\w-])`).test(performance) ? [] : [`${name}: no \`npm run bench -- ${name}\``]),
      ...(new RegExp(`^\\|[^\\n]*\`${name}\``, 'm').test(table) ? [] : [`${name}: not in the bench table at the head`]),
    ])
    expect(problems, 'benches of bench/main.ts not documented in docs/performance.md').toEqual([])
  })

  it('gives every bench that runs on its own its command, and every bench file is one or the other', () => {
    const main = read('bench/main.ts')
    const problems: string[] = []
    for (const name of readdirSync(path.join(root, 'bench'))) {
      if (!name.endsWith('.ts') || name.endsWith('.test.ts') || name === 'main.ts') continue
      const command = `npx tsx bench/${name}`
      const standalone = read(`bench/${name}`).includes(command)
      if (standalone && !performance.includes(command)) problems.push(`bench/${name}: no \`${command}\``)
      if (!standalone && !main.includes(`from './${name}'`))
        problems.push(`bench/${name}: neither imported by bench/main.ts nor run with \`${command}\` (its header)`)
    }
    expect(problems, 'bench files not documented in docs/performance.md').toEqual([])
  })
})

// A record's status and the index's status name the same relations to other records: "superseded / amended /
// extended / refined by NNNN" and "supersedes / amends / extends / refines NNNN". Parentheses explain and are left
// out; "relates to", "complements", "keeps" and the like are context, not status.
const VERB =
  /\b(supersed(?:es|ed|e)|replac(?:es|ed|e)|amend(?:s|ed)?|extend(?:s|ed)?|refine(?:s|d)?|kept by|keeps|complements|relates|touches|reuses|takes|carries out|issues?|records|adds)\b/g
const FAMILY: Record<string, string> = { supersed: 'supersede', replac: 'supersede', amend: 'amend', extend: 'extend', refine: 'refine' }

/** "by amend 0070" as "amended by 0070", "of refine 0050" as "refines 0050". */
function worded(relation: string): string {
  const [direction, family, number] = relation.split(' ') as [string, string, string]
  if (direction === 'by') return `${family === 'kept' ? 'kept' : family.replace(/e?$/, 'ed')} by ${number}`
  return `${family}s ${number}`
}

function plainStatus(text: string): string {
  let plain = text
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\*\*|`/g, '')
    .replace(/\s+/g, ' ')
  for (let previous = ''; previous !== plain;) [previous, plain] = [plain, plain.replace(/\s*\([^()]*\)/g, '')]
  return plain.trim().toLowerCase()
}

function statusOf(text: string): { state: string; relations: string[] } {
  const plain = plainStatus(text)
  const relations = new Set<string>()
  for (const clause of plain.split(/;|\.(?:\s|$)/)) {
    let verb: string | null = null
    for (const match of clause.matchAll(new RegExp(`${VERB.source}|\\b(0\\d{3})\\b`, 'g'))) {
      if (match[1]) {
        const word = match[1]
        const family = Object.entries(FAMILY).find(([stem]) => word.startsWith(stem))?.[1]
        if (word === 'kept by') verb = 'by kept'
        else if (family) verb = `${/d$/.test(word) ? 'by' : 'of'} ${family}`
        else verb = null
      } else if (verb) relations.add(`${verb} ${match[2]}`)
    }
  }
  return { state: plain.split(/[\s;,.]/)[0]!, relations: [...relations].sort() }
}

describe('docs/decisions', () => {
  const dir = 'docs/decisions'
  const records = readdirSync(path.join(root, dir))
    .filter((name) => /^\d{4}-.*\.md$/.test(name))
    .sort()
  const index = read(`${dir}/README.md`)
  const indexPart = index.slice(index.indexOf('\n## Index'))
  const rows = [...indexPart.matchAll(/^\| \[(\d{4})\]\(([^)]+)\) *\| *(.*?) *\| *(.*?) *\|$/gm)].map((match) => ({
    number: match[1]!,
    file: match[2]!,
    title: match[3]!,
    status: match[4]!,
  }))
  const recordStatus = (name: string): string => {
    const text = read(`${dir}/${name}`)
    const start = text.indexOf('Status:')
    if (start === -1) return ''
    const end = text.indexOf('\n\n', start)
    return text.slice(start + 'Status:'.length, end === -1 ? undefined : end)
  }

  it('reads relations from a status', () => {
    expect(
      statusOf('accepted; §4 superseded by 0062, §5 by [0056](x.md) (see 0099); amended by 0071. Extends 0028 and 0047. Relates to 0070.'),
    ).toEqual({
      state: 'accepted',
      relations: ['by amend 0071', 'by supersede 0056', 'by supersede 0062', 'of extend 0028', 'of extend 0047'],
    })
  })

  it('the index lists every record once, with its title', () => {
    expect(records.length).toBeGreaterThan(50)
    const problems: string[] = []
    for (const name of records) {
      const listed = rows.filter((row) => row.file === name)
      if (listed.length !== 1) problems.push(`${name}: listed ${listed.length} times in the index`)
      const heading = /^# (\d{4})\. (.*)$/m.exec(read(`${dir}/${name}`))
      if (!heading || heading[1] !== name.slice(0, 4)) problems.push(`${name}: no "# ${name.slice(0, 4)}. Title" heading`)
      else if (listed[0] && listed[0].title !== heading[2])
        problems.push(`${name}: index title "${listed[0].title}", record "${heading[2]}"`)
    }
    for (const row of rows) {
      if (!records.includes(row.file)) problems.push(`index row ${row.number}: no record ${row.file}`)
      if (!row.file.startsWith(`${row.number}-`)) problems.push(`index row ${row.number} links ${row.file}`)
    }
    expect(problems, 'docs/decisions/README.md index').toEqual([])
  })

  it("each index row's status matches the record's status line", () => {
    const problems: string[] = []
    for (const row of rows) {
      if (!records.includes(row.file)) continue
      const own = recordStatus(row.file)
      if (!own) {
        problems.push(`${row.file}: no "Status:" line`)
        continue
      }
      const inRecord = statusOf(own)
      const inIndex = statusOf(row.status)
      if (inIndex.state !== inRecord.state) problems.push(`${row.file}: index says "${inIndex.state}", the record "${inRecord.state}"`)
      const onlyRecord = inRecord.relations.filter((relation) => !inIndex.relations.includes(relation))
      const onlyIndex = inIndex.relations.filter((relation) => !inRecord.relations.includes(relation))
      if (onlyRecord.length) problems.push(`${row.file}: the index row lacks "${onlyRecord.map(worded).join('", "')}"`)
      if (onlyIndex.length) problems.push(`${row.file}: the record's status line lacks "${onlyIndex.map(worded).join('", "')}"`)
      if (inRecord.state === 'superseded' && !inRecord.relations.some((relation) => relation.startsWith('by supersede')))
        problems.push(`${row.file}: superseded, but not by which record`)
    }
    expect(problems, 'statuses of docs/decisions/README.md against the records').toEqual([])
  })

  it('a record amended, extended, refined or superseded by another is named by that one in turn', () => {
    const statuses = new Map(records.map((name) => [name.slice(0, 4), statusOf(recordStatus(name)).relations]))
    const problems: string[] = []
    for (const [number, relations] of statuses) {
      for (const relation of relations) {
        const [direction, family, other] = relation.split(' ') as [string, string, string]
        if (family === 'kept') continue
        const back = `${direction === 'by' ? 'of' : 'by'} ${family} ${number}`
        if (!statuses.has(other)) problems.push(`${number} ${worded(relation)}, but there is no record ${other}`)
        else if (!statuses.get(other)!.includes(back))
          problems.push(`${number} ${worded(relation)}, but ${other}'s status line lacks "${worded(back)}"`)
      }
    }
    expect(problems, 'relations named on one side only').toEqual([])
  })

  it('every record fits in 600 words (counted as wc -w does)', () => {
    const long = records
      .map((name) => ({ name, words: read(`${dir}/${name}`).split(/\s+/).filter(Boolean).length }))
      .filter((record) => record.words > 600)
      .map((record) => `${record.name}: ${record.words} words`)
    expect(long, 'records longer than a page').toEqual([])
  })
})

describe('apps/web/src/features/README.md', () => {
  it('names every feature folder once, and each API area and path it gives exists in the contracts', () => {
    const readme = read('apps/web/src/features/README.md')
    const folders = readdirSync(path.join(root, 'apps/web/src/features'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
    const rows = [...readme.matchAll(/^\| `([a-z-]+)` +\|[^|]*\|([^|]*)\|$/gm)].map((match) => ({ feature: match[1]!, api: match[2]! }))
    const areas = endpoints as unknown as Record<string, Record<string, { path: string }>>
    const problems: string[] = []
    for (const folder of folders)
      if (rows.filter((row) => row.feature === folder).length !== 1) problems.push(`features/${folder}: not one row of the table`)
    for (const row of rows) {
      if (!folders.includes(row.feature)) problems.push(`${row.feature}: no folder features/${row.feature}`)
      for (const match of row.api.matchAll(/`(\w+)` \(([^)]*)\)/g)) {
        const area = areas[match[1]!]
        if (!area) {
          problems.push(`${row.feature}: no API area \`${match[1]}\` in @citrus/contracts`)
          continue
        }
        const paths = Object.values(area).map((endpoint) => endpoint.path)
        for (const prefix of match[2]!.split(/,\s*/).filter((part) => part.startsWith('/'))) {
          const bare = prefix.replace(/\/$/, '')
          if (!paths.some((candidate) => candidate === prefix || candidate === bare || candidate.startsWith(`${bare}/`)))
            problems.push(`${row.feature}: \`${match[1]}\` has no path ${prefix} (its paths: ${[...new Set(paths)].join(', ')})`)
        }
      }
    }
    expect(rows.length).toBeGreaterThan(5)
    expect(problems, 'the features table against apps/web/src/features and the contracts').toEqual([])
  })
})

describe('docs/guide/images', () => {
  it('every picture the guide shows exists, and every picture there is shown', () => {
    const guide = 'docs/guide'
    const images = readdirSync(path.join(root, guide, 'images')).filter((name) => statSync(path.join(root, guide, 'images', name)).isFile())
    const referenced = new Map<string, string>()
    for (const name of readdirSync(path.join(root, guide)).filter((file) => file.endsWith('.md'))) {
      const text = withoutFences(read(`${guide}/${name}`))
      for (const match of text.matchAll(/!\[[^\]]*\]\(([^)\s]+)\)|<img[^>]*\ssrc="([^"]+)"/g))
        referenced.set(path.posix.normalize(match[1] ?? match[2]!), `${guide}/${name}`)
    }
    expect(images.length).toBeGreaterThan(0)
    const problems = [
      ...[...referenced]
        .filter(([image]) => !images.some((name) => `images/${name}` === image))
        .map(([image, file]) => `${file}: ${image} does not exist in docs/guide/images`),
      ...images
        .filter((name) => !referenced.has(`images/${name}`))
        .map((name) => `docs/guide/images/${name} is shown by no page of docs/guide`),
    ]
    expect(problems, 'pictures of docs/guide').toEqual([])
  })
})
