import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { TOKEN_STORAGE_KEY } from '@citrus/contracts'
import { docxOf, pdfOf } from '../test/ai-hub-fixtures.ts'
import { createTenant, TEST_PASSWORD } from '../test/helpers.ts'
import { useBrowserSuite } from './browser.ts'

/**
 * The AI Hub end to end in headless Chromium against the real server process, offline (no AI endpoint
 * configured): upload a PDF and a DOCX, pin a state from Atlas and a hospital from Nova, reorder them, ask with
 * a template, see the answer cite the PDF's page, copy it, remove a document.
 */
describe('AI Hub in a real browser', () => {
  const suite = useBrowserSuite()

  async function signedInPage(email: string): Promise<Page> {
    const context = await suite.browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] })
    const page = await context.newPage()
    await page.goto(`${suite.server.baseUrl}/sign-in`)
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email)
    await page.getByLabel('Password *', { exact: true }).fill(TEST_PASSWORD)
    await page.getByRole('button', { name: 'Sign In', exact: true }).click()
    await page.waitForURL(`${suite.server.baseUrl}/apps`, { timeout: 30_000 })
    return page
  }

  it('uploads, pins, reorders, asks with a template, cites the PDF page, copies and removes a document', async () => {
    const { users } = await createTenant(suite.db, { roles: ['citrus'], products: [{ product_group: 'ATLAS' }, { product_group: 'NOVA' }] })
    const page = await signedInPage(users[0]!.email)
    await page.goto(`${suite.server.baseUrl}/ai-hub`)
    await page.getByText('Add documents or insights to get started', { exact: true }).waitFor({ timeout: 30_000 })
    expect(await page.getByTestId('ai-quick-market-analysis').isDisabled()).toBe(true)

    // Documents: a PDF and a Word document, chosen together and uploaded one after the other
    await page.getByRole('tab', { name: /Documents/ }).click()
    await page.getByText('No documents uploaded yet', { exact: true }).waitFor()
    const pdf = await pdfOf([
      ['Snakebite Market Report'],
      ['CroFab usage in Texas reached 1,234 vials last year.', 'Market share of Anavip grew in Arizona.'],
    ])
    const docx = await docxOf([['Territory plan: visit Dallas General Hospital in May.']])
    await page.getByTestId('ai-upload-input').setInputFiles([
      { name: 'Market Report.pdf', mimeType: 'application/pdf', buffer: pdf },
      { name: 'Territory Plan.docx', mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', buffer: docx },
    ])
    await expect.poll(() => page.getByTestId('ai-document').count(), { timeout: 30_000 }).toBe(2)
    await page.getByText('Context Loaded • Ready to Generate Insights', { exact: true }).waitFor()
    const pdfRow = page.getByTestId('ai-document').filter({ hasText: 'Market Report.pdf' })
    expect(await pdfRow.textContent()).toMatch(/\d+(\.\d+)? KB • \d+ tokens • 2 pages/)

    // Pins, as the Save to Hub toggles of Atlas (a state) and Nova (a hospital) make them
    const token = await page.evaluate(
      (key) => (globalThis as unknown as { localStorage: { getItem(k: string): string } }).localStorage.getItem(key),
      TOKEN_STORAGE_KEY,
    )
    const pin = (body: unknown) =>
      fetch(`${suite.server.baseUrl}/api/ai-hub/pins`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    expect(
      (
        await pin({
          type: 'state',
          entityKey: 'TX',
          source: 'ATLAS',
          data: { entity: { name: 'Texas' }, display_name: 'Texas', metrics: { 'Total Patients': 5120 } },
        })
      ).status,
    ).toBe(201)
    expect(
      (
        await pin({
          type: 'facility',
          entityKey: '1234567893',
          source: 'NOVA',
          data: {
            entity: { name: 'Dallas General Hospital' },
            display_name: 'Dallas General Hospital',
            metrics: { 'Snakebite Cases': 87 },
          },
        })
      ).status,
    ).toBe(201)
    await page.reload()
    await page.getByRole('tab', { name: /Context/ }).click()
    await expect.poll(() => page.getByTestId('ai-pin').count(), { timeout: 30_000 }).toBe(2)
    const names = () =>
      page.getByTestId('ai-pin').evaluateAll((items) => items.map((item) => (item as unknown as { textContent: string }).textContent))
    expect((await names())[0]).toContain('Texas')

    // Reorder from the keyboard: the first pin's handle, Arrow Down
    await page.getByRole('button', { name: 'Reorder Texas (Arrow Up / Arrow Down)' }).focus()
    await page.keyboard.press('ArrowDown')
    await expect.poll(async () => (await names())[0], { timeout: 15_000 }).toContain('Dallas General Hospital')
    const saved = await fetch(`${suite.server.baseUrl}/api/ai-hub/pins`, { headers: { authorization: `Bearer ${token}` } })
    const order = ((await saved.json()) as { pinnedInsights: { entityKey: string }[] }).pinnedInsights.map((p) => p.entityKey)
    expect(order).toEqual(['1234567893', 'TX'])

    // Ask with a template
    await page.getByRole('button', { name: 'Templates' }).click()
    await page.getByTestId('ai-template-market-analysis').click()
    await page.getByTestId('ai-using-template').waitFor()
    expect(await page.getByTestId('ai-using-template').textContent()).toContain('Using template: Market Analysis')
    await page.getByRole('textbox', { name: 'Ask the AI assistant' }).press('Enter')
    await page.getByText('Analysis complete', { exact: true }).waitFor({ timeout: 60_000 })
    const citation = page.getByTestId('ai-citation').filter({ hasText: 'Market Report, page 2' })
    await citation.first().waitFor()
    expect(await citation.first().textContent()).toContain('CroFab usage in Texas reached 1,234 vials last year.')
    expect(await page.getByTestId('ai-chips').textContent()).toContain('citrus-offline-analyst')

    // Copy
    await page.getByRole('button', { name: 'Copy', exact: true }).click()
    await page.getByRole('button', { name: 'Copied!', exact: true }).waitFor()
    const readClipboard = () =>
      (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText()
    expect(await page.evaluate(readClipboard)).toContain('CroFab usage in Texas reached 1,234 vials last year.')

    // Remove a document
    await page.getByRole('tab', { name: /Documents/ }).click()
    await page.getByRole('button', { name: 'Remove Territory Plan.docx' }).click()
    await expect.poll(() => page.getByTestId('ai-document').count(), { timeout: 15_000 }).toBe(1)
    const { rows } = await suite.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM ai_documents WHERE user_id = $1', [
      users[0]!.id,
    ])
    expect(rows[0]!.n).toBe(1)
  })
})
