import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const root = path.resolve(import.meta.dirname, '..')
const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8')
const workspaces = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces.flatMap(
  (pattern) => {
    const base = pattern.replace(/\/\*$/, '')
    return readdirSync(path.join(root, base))
      .map((entry) => `${base}/${entry}`)
      .filter((dir) => statSync(path.join(root, dir, 'package.json'), { throwIfNoEntry: false })?.isFile())
  },
)

describe('Dockerfile', () => {
  it.each(workspaces)('copies the package.json of %s before each npm ci', (dir) => {
    const copies = dockerfile.split('\n').filter((line) => line.startsWith(`COPY ${dir}/package.json ${dir}/`))
    expect(copies).toHaveLength(dockerfile.split('\n').filter((line) => line.startsWith('RUN npm ci')).length)
  })

  it('runs the compiled server with node, not TypeScript', () => {
    expect(dockerfile).toMatch(/^CMD \["node", "apps\/server\/dist\/main\.js"\]$/m)
    expect(dockerfile).toContain('node scripts/build-server.mjs')
    expect(dockerfile).not.toMatch(/tsx/)
  })

  it('listens on every interface inside the container (the server alone defaults to 127.0.0.1)', () => {
    expect(dockerfile).toMatch(/^ENV .*\bHOST=0\.0\.0\.0\b/m)
  })
})
