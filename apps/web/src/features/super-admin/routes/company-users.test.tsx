import { TOKEN_STORAGE_KEY } from '@citrus/contracts'
import { screen, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { formatDateTime } from '../../../lib/format'
import { malformed, mockApi, reply, type MockHandler } from '../../../test/mock-api'
import { renderApp } from '../../../test/render'
import { loginToken } from '../../../test/tokens'

function setup(handlers: Record<string, MockHandler | unknown>, role = 'citrus') {
  localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role }))
  return mockApi({ 'GET /company/products': { product_groups: [] }, ...handlers })
}

const created = '2024-05-06T14:30:00.000Z'

describe('Company users page', () => {
  it("is titled 'User Management for Company {id}' with ID, Email, Role, Created @", async () => {
    setup({
      'GET /super-admin/company/3/users': {
        users: [
          { id: 10, email: 'a@acme.com', role: 'admin', created_at: created, is_active: true },
          { id: 11, email: 'b@acme.com', role: 'user', created_at: created, is_active: false },
        ],
      },
    })
    renderApp('/company/3/users')
    expect(await screen.findByRole('heading', { name: 'User Management for Company 3' })).toBeTruthy()
    const table = await screen.findByRole('table')
    for (const header of ['ID', 'Email', 'Role', 'Created @'])
      expect(within(table).getByRole('columnheader', { name: header })).toBeTruthy()
    const rows = within(table).getAllByRole('row').slice(1)
    expect(rows).toHaveLength(2)
    expect(rows[0]?.textContent).toContain('10')
    expect(rows[0]?.textContent).toContain('a@acme.com')
    expect(rows[0]?.textContent).toContain('admin')
    expect(rows[0]?.textContent).toContain(formatDateTime(created) as string)
    expect(rows[1]?.textContent).toContain('inactive')
    expect(screen.getByRole('link', { name: /Back to companies/ }).getAttribute('href')).toBe('/citrus-admin')
  })

  it("shows 'No users found for this company.'", async () => {
    setup({ 'GET /super-admin/company/3/users': { users: [] } })
    renderApp('/company/3/users')
    expect(await screen.findByText('No users found for this company.')).toBeTruthy()
  })

  it.each([
    ['the call fails', reply(404, { message: 'Company 3 not found', code: 'NOT_FOUND', status: 404 })],
    ['the response has no list', malformed({})],
  ])("shows 'Failed to fetch users' when %s", async (_, response) => {
    setup({ 'GET /super-admin/company/3/users': response })
    renderApp('/company/3/users')
    expect(await screen.findByText('Failed to fetch users')).toBeTruthy()
  })

  it('is for citrus only', async () => {
    setup({}, 'admin')
    renderApp('/company/3/users')
    expect(await screen.findByText('Access Restricted')).toBeTruthy()
  })
})
