import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import * as contracts from '@citrus/contracts'
import { endpoints } from '@citrus/contracts'
import { COMMANDS } from '../apps/server/src/cli/main.ts'
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

/** The commands a README span names: `user create|list <id> --json` → `user create`, `user list` (placeholders and options dropped). */
function commandNamesOf(span: string): string[] {
  const words = span
    .replace(/<[^>]*>|\[[^\]]*\]/g, ' ')
    .split(/\s+/)
    .filter((word) => word !== '' && !word.startsWith('-'))
  if (words.length === 0) return []
  return words.reduce<string[]>(
    (names, word) => names.flatMap((name) => word.split('|').map((part) => (name ? `${name} ${part}` : part))),
    [''],
  )
}
describe('README.md', () => {
  const readme = read('README.md')

  it('fits in 15 KB (15,360 bytes, issue 35)', () => {
    expect(Buffer.byteLength(readme, 'utf8'), 'README.md in bytes').toBeLessThanOrEqual(15 * 1024)
  })

  const start = readme.indexOf("\n## Operators' CLI")
  const cliSection = readme.slice(start, readme.indexOf('\n## ', start + 1))
  const names = COMMANDS.map((command) => command.name)
  const nouns = new Set(names.map((name) => name.split(' ')[0]!))

  it('its CLI section names every command and sub-command of the CLI, and no other', () => {
    expect(start).toBeGreaterThan(-1)
    expect(names).toEqual(expect.arrayContaining(['user invite', 'data import tic', 'fhir export', 'restore']))
    const documented = new Set(
      [...withoutFences(cliSection).matchAll(/`([^`]+)`/g)]
        .flatMap((match) => commandNamesOf(match[1]!))
        .filter((name) => nouns.has(name.split(' ')[0]!)),
    )
    expect(
      names.filter((name) => !documented.has(name)),
      "commands of apps/server/src/cli/main.ts (COMMANDS) missing from the README's CLI section",
    ).toEqual([])
    expect(
      [...documented].filter((name) => !names.includes(name)),
      "commands the README's CLI section names that the CLI does not have",
    ).toEqual([])
  })

  it('each `npm run cli --` example of its CLI section runs a command the CLI has', () => {
    const examples = [...cliSection.matchAll(/npm run cli -- ([^#\n]*)/g)].map((match) => match[1]!.trim())
    expect(examples.length).toBeGreaterThan(3)
    const unknown = examples.filter((example) => {
      if (example.startsWith('--help')) return false
      const words = example.split(/\s+/)
      return !names.some((name) => name.split(' ').every((part, index) => words[index] === part))
    })
    expect(unknown, 'examples whose command the CLI does not have').toEqual([])
  })

  it('reads command names from the text', () => {
    expect(commandNamesOf('company create|list|reset-key')).toEqual(['company create', 'company list', 'company reset-key'])
    expect(commandNamesOf('backup|restore <file>')).toEqual(['backup', 'restore'])
    expect(commandNamesOf('fhir export --out <dir>')).toEqual(['fhir export'])
    expect(commandNamesOf('data import tic <file|dir|table-of-contents>')).toEqual(['data import tic'])
  })
})

/**
 * Variables whose schema has no default but whose documented default is resolved where they are read (the file
 * named): the test holds the documented ones to this list, so a default documented without being in the schema
 * or here fails.
 */
const DEFAULT_OUTSIDE_SCHEMA: Record<string, string> = {
  JWT_SECRET: 'apps/server/src/runtime.ts',
  PUBLIC_URL: 'apps/server/src/services/index.ts',
  DEMO_PASSWORD: 'apps/server/src/main.ts',
  SEED_DEMO: 'apps/server/src/main.ts',
  DATA_LOAD_METHOD: 'apps/server/src/data/bulk.ts',
  WEB_DIST_DIR: 'apps/server/src/runtime.ts',
  SMTP_SECURE: 'apps/server/src/services/mail.ts',
  TWILIO_API_URL: 'apps/server/src/services/sms.ts',
}

/** The rows of the table under "## Configuration": each variable with the default cell of its row. */
function configurationRows(operations: string): { variable: string; defaultCell: string; position: number; count: number }[] {
  const start = operations.indexOf('\n## Configuration')
  const section = operations.slice(start, operations.indexOf('\n## ', start + 1))
  return [...section.matchAll(/^\| *(`[A-Z][^|]*?) *\| *(.*?) *\| *.*\|$/gm)].flatMap((match) => {
    const variables = [...match[1]!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((variable) => variable[1]!)
    return variables.map((variable, position) => ({ variable, defaultCell: match[2]!, position, count: variables.length }))
  })
}

describe('docs/operations.md', () => {
  const operations = read('docs/operations.md')
  const variables = Object.keys(envSchema.shape)

  it('names every environment variable the server reads', () => {
    expect(variables.length).toBeGreaterThan(20)
    const missing = variables.filter((name) => !new RegExp(`\\b${name}\\b`).test(operations))
    expect(missing, 'variables of apps/server/src/config.ts missing from docs/operations.md').toEqual([])
  })

  it("gives each variable in the configuration table once, with config.ts's schema default", () => {
    const rows = configurationRows(operations)
    // the schema's defaults: what an empty environment parses to
    const defaults = envSchema.parse({}) as Record<string, unknown>
    const problems: string[] = []
    for (const name of variables) {
      const found = rows.filter((row) => row.variable === name)
      if (found.length !== 1) problems.push(`${name}: in ${found.length} rows of the configuration table`)
    }
    for (const row of rows) {
      if (!variables.includes(row.variable)) {
        problems.push(`${row.variable}: in the table, not in the schema`)
        continue
      }
      // "`3000`, `127.0.0.1`" gives the defaults of "`PORT`, `HOST`" in turn; otherwise the cell's first value is the default
      const values = [...row.defaultCell.matchAll(/`([^`]*)`/g)].map((value) => value[1]!)
      const leading = row.defaultCell.split(/,\s*/).every((part) => /^`[^`]*`$/.test(part.trim())) && values.length === row.count
      const documented = leading ? values[row.position] : /^`/.test(row.defaultCell) ? values[0] : undefined
      const value = defaults[row.variable]
      if (value !== undefined) {
        const expected = Array.isArray(value) ? value.join(',') : String(value)
        if (documented !== expected)
          problems.push(`${row.variable}: documented "${row.defaultCell}", config.ts's default is \`${expected}\``)
      } else if (!/^unset\b/.test(row.defaultCell)) {
        const file = DEFAULT_OUTSIDE_SCHEMA[row.variable]
        if (!file) problems.push(`${row.variable}: documented "${row.defaultCell}", but config.ts has no default (unset)`)
        else if (!read(file).includes(row.variable))
          problems.push(`${row.variable}: ${file}, where its default is said to be resolved, does not read it`)
      }
    }
    for (const name of Object.keys(DEFAULT_OUTSIDE_SCHEMA))
      if (defaults[name] !== undefined) problems.push(`${name}: has a schema default now; drop it from DEFAULT_OUTSIDE_SCHEMA`)
    expect(rows.length).toBeGreaterThan(20)
    expect(problems, 'the configuration table of docs/operations.md against apps/server/src/config.ts').toEqual([])
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

/** Every TypeScript file under `dir`, as paths from the repository root. */
function typeScriptFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = `${dir}/${entry.name}`
    if (entry.isDirectory()) return typeScriptFiles(file)
    return entry.name.endsWith('.ts') ? [file] : []
  })
}

/**
 * The names of the guide's screenshots the browser tests take: the string given to each `guideScreenshot(page, name)`
 * call of e2e/ (e2e/browser.ts). A helper that passes on its own parameter (`guide.access` in e2e/member-links.ts) is
 * followed to its callers, which give the names as literals; a name traced to neither is reported as untraced.
 */
function guideScreenshotCalls(): { names: Map<string, string>; untraced: string[] } {
  const sources = typeScriptFiles('e2e').map((file) => ts.createSourceFile(file, read(file), ts.ScriptTarget.Latest, true))
  const names = new Map<string, string>()
  const untraced: string[] = []
  const where = (node: ts.Node) =>
    `${node.getSourceFile().fileName}:${node.getSourceFile().getLineAndCharacterOfPosition(node.getStart()).line + 1}`
  const calls = (callee: string): ts.CallExpression[] => {
    const found: ts.CallExpression[] = []
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === callee) found.push(node)
      ts.forEachChild(node, visit)
    }
    for (const source of sources) visit(source)
    return found
  }
  /** The literal names `expression` stands for; `property` reads that property of an object literal. */
  const trace = (expression: ts.Expression | undefined, at: ts.Node, property?: string): void => {
    if (expression === undefined) return
    if (property !== undefined) {
      if (!ts.isObjectLiteralExpression(expression)) return void untraced.push(`${where(at)}: not an object literal`)
      const assignment = expression.properties.find((p) => p.name && ts.isIdentifier(p.name) && p.name.text === property)
      if (!assignment) return // this call takes no such screenshot
      return trace(ts.isPropertyAssignment(assignment) ? assignment.initializer : undefined, at)
    }
    if (ts.isStringLiteralLike(expression)) return void names.set(expression.text, where(at))
    // a parameter of the enclosing function, or a property of one: follow the function's callers
    const parameterName = ts.isIdentifier(expression)
      ? expression.text
      : ts.isPropertyAccessExpression(expression) && ts.isIdentifier(expression.expression)
        ? expression.expression.text
        : null
    let scope: ts.Node | undefined = expression.parent
    while (scope && !ts.isFunctionDeclaration(scope)) scope = scope.parent
    const index =
      scope && parameterName ? (scope as ts.FunctionDeclaration).parameters.findIndex((p) => p.name.getText() === parameterName) : -1
    const helper = (scope as ts.FunctionDeclaration | undefined)?.name?.text
    if (index === -1 || !helper) return void untraced.push(`${where(at)}: ${expression.getText()}`)
    const callers = calls(helper)
    if (callers.length === 0) untraced.push(`${where(at)}: ${helper} is never called`)
    for (const call of callers)
      trace(call.arguments[index], call, ts.isPropertyAccessExpression(expression) ? expression.name.text : undefined)
  }
  for (const call of calls('guideScreenshot')) trace(call.arguments[1], call)
  return { names, untraced }
}

describe('docs/guide/images', () => {
  const guide = 'docs/guide'
  const images = readdirSync(path.join(root, guide, 'images')).filter((name) => statSync(path.join(root, guide, 'images', name)).isFile())
  const pages = readdirSync(path.join(root, guide)).filter((file) => file.endsWith('.md'))
  /** image path as written (images/x.png) → the pages that show it */
  const shownBy = new Map<string, string[]>()
  for (const name of pages) {
    const text = withoutFences(read(`${guide}/${name}`))
    for (const match of text.matchAll(/!\[[^\]]*\]\(([^)\s]+)\)|<img[^>]*\ssrc="([^"]+)"/g)) {
      const image = path.posix.normalize(match[1] ?? match[2]!)
      shownBy.set(image, [...(shownBy.get(image) ?? []), `${guide}/${name}`])
    }
  }

  it('every picture the guide shows exists, and every picture there is shown', () => {
    expect(images.length).toBeGreaterThan(0)
    const problems = [
      ...[...shownBy]
        .filter(([image]) => !images.some((name) => `images/${name}` === image))
        .map(([image, files]) => `${files.join(', ')}: ${image} does not exist in docs/guide/images`),
      ...images
        .filter((name) => !shownBy.has(`images/${name}`))
        .map((name) => `docs/guide/images/${name} is shown by no page of docs/guide`),
    ]
    expect(problems, 'pictures of docs/guide').toEqual([])
  })

  it('the pictures are exactly the ones the browser tests take (guideScreenshot in e2e/)', () => {
    const { names, untraced } = guideScreenshotCalls()
    expect(untraced, 'guideScreenshot calls whose picture name is not traced to a literal').toEqual([])
    expect(names.size).toBeGreaterThan(10)
    expect([...names.keys()]).toContain('member-links-code')
    const problems = [
      ...images
        .filter((name) => !names.has(name.replace(/\.png$/, '')))
        .map((name) => `docs/guide/images/${name}: taken by no guideScreenshot call of e2e/`),
      ...[...names]
        .filter(([name]) => !images.includes(`${name}.png`))
        .map(([name, at]) => `${at}: guideScreenshot '${name}' has no docs/guide/images/${name}.png`),
      ...[...names]
        .filter(([name]) => !shownBy.has(`images/${name}.png`))
        .map(([name, at]) => `${at}: '${name}' is shown by no page of docs/guide`),
    ]
    expect(problems, 'docs/guide/images against the browser tests').toEqual([])
  })

  it('every guide page (README.md aside) shows at least one picture', () => {
    const shown = new Set([...shownBy.values()].flat())
    const bare = pages.filter((name) => name !== 'README.md' && !shown.has(`${guide}/${name}`))
    expect(pages.length).toBeGreaterThan(5)
    expect(bare, 'pages of docs/guide without a picture').toEqual([])
  })
})

/**
 * Does `relative` (from `base`) name something that exists? A `<placeholder>` stands for any name (`routes/<area>/index.ts`
 * holds if some area has an index.ts); a trailing slash asks for a directory.
 */
function existsLike(base: string, relative: string): boolean {
  const wantDirectory = relative.endsWith('/')
  const walk = (dir: string, segments: string[]): boolean => {
    if (segments.length === 0) return !wantDirectory || statSync(dir).isDirectory()
    const [segment, ...rest] = segments as [string, ...string[]]
    const next = (entry: string) => {
      const file = path.join(dir, entry)
      return (rest.length === 0 || statSync(file).isDirectory()) && walk(file, rest)
    }
    if (!segment.includes('<')) return existsSync(path.join(dir, segment)) && next(segment)
    const pattern = new RegExp(
      `^${segment
        .split(/<[^>]+>/)
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]+')}$`,
    )
    return existsSync(dir) && statSync(dir).isDirectory() && readdirSync(dir).some((entry) => pattern.test(entry) && next(entry))
  }
  return walk(path.join(root, base), relative.split('/').filter(Boolean))
}

describe('docs/architecture.md', () => {
  const architecture = withoutFences(read('docs/architecture.md'))
  const SERVER = 'apps/server/src'
  /** written by scripts/ensure-generated.mjs (npm start, npm test), so absent from a fresh clone */
  const GENERATED = /^apps\/server\/src\/generated(\/|$)/

  it('every repository path it gives exists', () => {
    // A path is given from the repository root, from apps/server/src ("files under apps/server/src/"), or, named
    // alone, in the folder of the path before it or a folder above that (`main.ts` after `apps/server/src/app.ts`).
    const pathLike = (span: string) =>
      /^[\w.<>-]+(\/[\w.<>-]+)*\/?$/.test(span) && (span.includes('/') || /\.(ts|tsx|mjs|js|json|prisma|sql|md|sh|ya?ml)$/.test(span))
    const problems: string[] = []
    let previous = ''
    let checked = 0
    for (const match of architecture.matchAll(/`([^`\n]+)`/g)) {
      const span = match[1]!
      if (!pathLike(span)) continue
      checked++
      if (GENERATED.test(span)) {
        previous = span
        continue
      }
      const folders: string[] = []
      for (
        let folder = previous.endsWith('/') ? previous.slice(0, -1) : path.posix.dirname(previous);
        folder && folder !== '.';
        folder = path.posix.dirname(folder)
      )
        folders.push(folder)
      const base = [...folders, SERVER, ''].find((folder) => existsLike(folder, span))
      if (base === undefined)
        problems.push(`\`${span}\` (after \`${previous}\`): not in the repository, ${SERVER}, or the folders of the path before it`)
      else previous = base ? `${base}/${span}` : span
    }
    expect(checked).toBeGreaterThan(100)
    expect(problems, 'paths of docs/architecture.md that do not exist').toEqual([])
  })

  it('each URL prefix of "From a URL to its rules" is served by the route file of its row, and every route file has a row', () => {
    const start = architecture.indexOf('### From a URL to its rules')
    const section = architecture.slice(start, architecture.indexOf('\n## ', start))
    const rows = [...section.matchAll(/^\| *(`\/.*?) *\| *`([^`]+)` *\|/gm)].map((match) => ({
      prefixes: [...match[1]!.matchAll(/`(\/[^`]*)`/g)].map((prefix) => prefix[1]!.replace(/\.\.\.$/, '')),
      file: match[2]!,
    }))
    const areas = contracts as unknown as Record<string, Record<string, { path: string }> | undefined>
    const app = read(`${SERVER}/app.ts`)
    // `/api/users/...` covers /api/users and what is beneath it; `/api/feedback` that path and beneath
    const under = (url: string, prefix: string) => {
      const bare = prefix.replace(/\/$/, '')
      return url === prefix || url === bare || url.startsWith(`${bare}/`)
    }
    const problems: string[] = []
    for (const row of rows) {
      const file = `${SERVER}/${row.file}`
      if (!existsSync(path.join(root, file))) {
        problems.push(`${row.file}: no file ${file}`)
        continue
      }
      const text = read(file)
      // the paths of the contract endpoints the file registers (under /api, or at the root for the probes)
      const paths = [...text.matchAll(/\b(\w+Endpoints)\.(\w+)\b/g)].flatMap((match) => {
        const endpoint = areas[match[1]!]?.[match[2]!]
        return endpoint ? [endpoint.path] : []
      })
      if (paths.length === 0) {
        // a plugin outside the contracts (fhir/index.ts): app.ts mounts what the file exports under the prefix
        const exported = [...text.matchAll(/^export (?:async )?(?:function|const) (\w+)/gm)].map((match) => match[1]!)
        for (const prefix of row.prefixes)
          if (!exported.some((name) => app.includes(`register(${name}, { prefix: '${prefix.replace(/\/$/, '')}' })`)))
            problems.push(`${row.file}: registers no contract endpoint, and app.ts mounts none of its exports at ${prefix}`)
        continue
      }
      const urls = paths.flatMap((endpointPath) => [endpointPath, `/api${endpointPath}`])
      for (const prefix of row.prefixes)
        if (!urls.some((url) => under(url, prefix)))
          problems.push(`${row.file}: registers nothing under ${prefix} (its paths: ${[...new Set(paths)].join(', ')})`)
      for (const endpointPath of new Set(paths))
        if (!row.prefixes.some((prefix) => under(endpointPath, prefix) || under(`/api${endpointPath}`, prefix)))
          problems.push(`${row.file}: registers ${endpointPath}, under none of its row's prefixes`)
    }
    const routeFiles = readdirSync(path.join(root, SERVER, 'routes'), { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? existsSync(path.join(root, SERVER, 'routes', entry.name, 'index.ts'))
          ? [`routes/${entry.name}/index.ts`]
          : []
        : /^(?!index\.ts$).*(?<!\.test)\.ts$/.test(entry.name)
          ? [`routes/${entry.name}`]
          : [],
    )
    for (const file of [...routeFiles, 'fhir/index.ts'])
      if (!rows.some((row) => row.file === file)) problems.push(`${file}: no row of the URL table`)
    expect(rows.length).toBeGreaterThan(15)
    expect(problems, 'the URL table of docs/architecture.md against the route files').toEqual([])
  })
})
