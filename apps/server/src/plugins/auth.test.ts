import { describe, expect, it } from 'vitest'
import { endpointAllowed } from './auth.ts'

describe('endpointAllowed (shareable link api_endpoints)', () => {
  const endpoints = [
    'GET /care-select/rankings',
    '/shareable-url/validate-shareable-link',
    'POST /shareable-url/{share_id}/revoke',
    'GET /atlas/:id/detail/',
  ]

  it.each([
    ['GET', '/care-select/rankings', true],
    ['HEAD', '/care-select/rankings', true],
    ['GET', '/care-select/rankings/', true],
    ['POST', '/care-select/rankings', false],
    ['GET', '/care-select/rankings/extra', false],
    ['GET', '/care-select', false],
    ['GET', '/shareable-url/validate-shareable-link', true],
    ['POST', '/shareable-url/validate-shareable-link', false],
    ['POST', '/shareable-url/abc/revoke', true],
    ['POST', '/shareable-url//revoke', false],
    ['GET', '/atlas/7/detail', true],
    ['GET', '/users/info', false],
  ])('%s %s -> %s', (method, path, expected) => {
    expect(endpointAllowed(endpoints, method, path)).toBe(expected)
  })

  it('accepts entries written with the /api prefix and ignores malformed entries', () => {
    expect(endpointAllowed(['GET /api/care-select/rankings'], 'GET', '/care-select/rankings')).toBe(true)
    expect(endpointAllowed(['rankings', 'FETCH /x', ''], 'GET', '/x')).toBe(false)
    expect(endpointAllowed([], 'GET', '/x')).toBe(false)
  })

  it('matches a placeholder inside a segment: the Atlas tile path with its .mvt suffix', () => {
    const tiles = ['GET /atlas/tiles/{z}/{x}/{y}.mvt']
    expect(endpointAllowed(tiles, 'GET', '/atlas/tiles/5/7/12.mvt')).toBe(true)
    expect(endpointAllowed(tiles, 'GET', '/atlas/tiles/5/7/12.png')).toBe(false)
    expect(endpointAllowed(tiles, 'GET', '/atlas/tiles/5/7/.mvt')).toBe(false)
    expect(endpointAllowed(tiles, 'GET', '/atlas/tiles/5/7/12')).toBe(false)
    expect(endpointAllowed(tiles, 'GET', '/atlas/tiles/5/12.mvt')).toBe(false)
    expect(endpointAllowed(['GET /files/{name}.tar.gz'], 'GET', '/files/axtar.gz')).toBe(false)
    expect(endpointAllowed(['GET /files/{name}.tar.gz'], 'GET', '/files/a.tar.gz')).toBe(true)
  })
})
