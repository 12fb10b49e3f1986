import type { Page } from 'playwright-core'
import { describe, expect, inject, it } from 'vitest'
import { ensureTestDataset } from '../apps/server/src/data/test-dataset.ts'
import { TOKEN_STORAGE_KEY } from '@citrus/contracts'
import { docxOf, pdfOf } from '../test/ai-hub-fixtures.ts'
import { createTenant, TEST_PASSWORD } from '../test/helpers.ts'
import { guideScreenshot, useBrowserSuite, VIEWPORTS } from './browser.ts'

/**
 * The AI Hub end to end in headless Chromium against the real server process, offline (no AI endpoint
 * configured) and the ci dataset: upload a PDF and a DOCX, pin a state from Atlas' generic search and a hospital
 * from Nova's Market Analytics through their Save to Hub buttons, reorder them, ask with
 * a template, see the answer cite the PDF's page, copy it, remove a document.
 */
describe('AI Hub in a real browser', () => {
  const suite = useBrowserSuite()

  async function signedInPage(email: string, viewport: { width: number; height: number }): Promise<Page> {
    const context = await suite.browser.newContext({
      viewport,
      permissions: ['clipboard-read', 'clipboard-write'],
    })
    const page = await context.newPage()
    await page.goto(`${suite.server.baseUrl}/sign-in`)
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email)
    await page.getByLabel('Password *', { exact: true }).fill(TEST_PASSWORD)
    await page.getByRole('button', { name: 'Sign In', exact: true }).click()
    await page.waitForURL(`${suite.server.baseUrl}/apps`, { timeout: 30_000 })
    return page
  }

  it.each(VIEWPORTS)(
    'uploads, pins, reorders, asks with a template, cites the PDF page, copies and removes a document at $width px',
    async (viewport) => {
      await ensureTestDataset(suite.db.pool, inject('databaseUrl'))
      const { company, users } = await createTenant(suite.db, {
        roles: ['citrus'],
        products: [{ product_group: 'ATLAS' }, { product_group: 'NOVA' }],
      })
      await suite.db.pool.query(`UPDATE companies SET plan_tier = 'ENTERPRISE' WHERE id = $1`, [company.id])
      const page = await signedInPage(users[0]!.email, viewport)
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

      // Pins through the real screens: a state card's 'Save to Hub' in the Atlas generic search
      await page.goto(`${suite.server.baseUrl}/atlas/generic`)
      const picker = page.getByTestId('condition-picker')
      await picker.click()
      await picker.fill('I10')
      await page.getByRole('option', { name: /^I10 / }).first().click({ timeout: 30_000 })
      await page.getByRole('button', { name: 'Search', exact: true }).click()
      await page.waitForURL(/\/atlas\/generic\/results\?/, { timeout: 30_000 })
      await page.getByText('Analysis: I10', { exact: true }).waitFor({ timeout: 30_000 })
      const stateCard = page.locator('[data-insight="STATE"]').first()
      await stateCard.waitFor({ timeout: 30_000 })
      const stateName = (await stateCard.locator('p').first().innerText()).trim()
      expect(stateName.length).toBeGreaterThan(0)
      await stateCard.getByRole('button', { name: 'Save to Hub', exact: true }).click()
      await page.getByText(`${stateName} saved to AI Hub!`, { exact: true }).waitFor({ timeout: 30_000 })
      await stateCard.getByRole('button', { name: 'Saved to Hub', exact: true }).waitFor()

      // ... and a hospital's 'Save to AI Hub' in Nova's Market Analytics (health system → hospital)
      await page.goto(`${suite.server.baseUrl}/nova-search`)
      const search = page.getByRole('button', { name: 'Search', exact: true })
      await expect.poll(() => search.isEnabled(), { timeout: 30_000 }).toBe(true)
      await search.click()
      await page.waitForURL(/\/nova-results\?/, { timeout: 30_000 })
      await page.getByRole('tab', { name: 'Market Analytics', exact: true }).click()
      await page.getByText('Explore Health Systems', { exact: true }).waitFor({ timeout: 30_000 })
      const system = page.locator('[data-insight^="HS"]').first()
      await system.waitFor({ timeout: 30_000 })
      const systemId = await system.getAttribute('data-insight')
      await system.click()
      await page.getByText('Health System ID', { exact: true }).waitFor({ timeout: 30_000 })
      // the list swaps the systems (and independent facilities) for the system's hospitals once they arrive
      await page.locator(`[data-insight="${systemId}"]`).waitFor({ state: 'detached', timeout: 30_000 })
      const hospital = page.locator('[data-insight]:not([data-insight^="HS"])').first()
      await hospital.waitFor({ timeout: 30_000 })
      const npi = await hospital.getAttribute('data-insight')
      await hospital.click()
      await expect.poll(() => new URL(page.url()).searchParams.get('hco_npi')).toBe(npi)
      await page.getByRole('button', { name: 'Save to AI Hub', exact: true }).click()
      const toast = page.getByText(/ saved to AI Hub!$/)
      await toast.waitFor({ timeout: 30_000 })
      const hospitalName = (await toast.innerText()).replace(/ saved to AI Hub!$/, '')
      expect(hospitalName.length).toBeGreaterThan(0)
      await page.getByRole('button', { name: 'Saved to AI Hub', exact: true }).waitFor()

      // Both pins in the AI Hub's context, in the order they were saved
      const token = await page.evaluate(
        (key) => (globalThis as unknown as { localStorage: { getItem(k: string): string } }).localStorage.getItem(key),
        TOKEN_STORAGE_KEY,
      )
      const savedPins = async () => {
        const response = await fetch(`${suite.server.baseUrl}/api/ai-hub/pins`, { headers: { authorization: `Bearer ${token}` } })
        return ((await response.json()) as { pinnedInsights: { entityKey: string; source: string }[] }).pinnedInsights
      }
      const before = await savedPins()
      expect(before.map((p) => p.source)).toEqual(['ATLAS', 'NOVA'])
      expect(before[1]!.entityKey).toBe(npi)
      await page.goto(`${suite.server.baseUrl}/ai-hub`)
      await page.getByRole('tab', { name: /Context/ }).click()
      await expect.poll(() => page.getByTestId('ai-pin').count(), { timeout: 30_000 }).toBe(2)
      const names = () =>
        page.getByTestId('ai-pin').evaluateAll((items) => items.map((item) => (item as unknown as { textContent: string }).textContent))
      expect((await names())[0]).toContain(stateName)
      expect((await names())[1]).toContain(hospitalName)

      // Reorder from the keyboard: the first pin's handle, Arrow Down
      await page.getByRole('button', { name: `Reorder ${stateName} (Arrow Up / Arrow Down)` }).focus()
      await page.keyboard.press('ArrowDown')
      await expect.poll(async () => (await names())[0], { timeout: 15_000 }).toContain(hospitalName)
      // the list moves at once; the new order reaches the server a moment later
      await expect
        .poll(async () => (await savedPins()).map((p) => p.entityKey), { timeout: 15_000 })
        .toEqual([before[1]!.entityKey, before[0]!.entityKey])

      // Ask with a template
      await page.getByRole('button', { name: 'Templates' }).click()
      await page.getByTestId('ai-template-market-analysis').click()
      await page.getByTestId('ai-using-template').waitFor()
      expect(await page.getByTestId('ai-using-template').textContent()).toContain('Using template: Market Analysis')
      await page.getByRole('textbox', { name: 'Ask the AI assistant' }).press('Enter')
      await page.getByText('Analysis complete', { exact: true }).waitFor({ timeout: 60_000 })
      const citation = page.getByTestId('ai-citation').filter({ hasText: 'Market Report, page 2' })
      await citation.first().waitFor()
      await guideScreenshot(page, 'ai-hub-analysis')
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
    },
  )
})
