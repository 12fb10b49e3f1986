import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../../../test/helpers.ts'
import { ConfigError, parseEnv } from '../../config.ts'

describe('MAP_STYLE_URL', () => {
  it('is an optional http(s) URL, validated at start', () => {
    expect(parseEnv({}).MAP_STYLE_URL).toBeUndefined()
    expect(parseEnv({ MAP_STYLE_URL: '' }).MAP_STYLE_URL).toBeUndefined()
    expect(parseEnv({ MAP_STYLE_URL: 'https://maps.example.com/style.json' }).MAP_STYLE_URL).toBe('https://maps.example.com/style.json')
    expect(() => parseEnv({ MAP_STYLE_URL: 'ftp://maps.example.com/style.json' })).toThrow(ConfigError)
    expect(() => parseEnv({ MAP_STYLE_URL: 'not a url' })).toThrow(/MAP_STYLE_URL/)
  })

  describe('reaches the client through GET /version', () => {
    const ctx = useTestApp({ MAP_STYLE_URL: 'https://maps.example.com/style.json' })
    it('as map_style_url', async () => {
      const response = await request(ctx.app.server).get('/api/version')
      expect(response.status).toBe(200)
      expect(response.body).toMatchObject({ map_style_url: 'https://maps.example.com/style.json' })
    })
  })
})
