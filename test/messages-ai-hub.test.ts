import { AI_HUB_ERROR_CODES, AI_HUB_MESSAGES } from '@citrus/contracts'
import { describe, expect, it } from 'vitest'

/*
 * Every AI Hub message, pinned as literal text (as test/messages.test.ts does for the other areas). The
 * expected strings are copied from spec 2 (§2 screens, §4 states, §8 errors) or, for the refusals the
 * specification leaves to the server, from docs/decisions/0042-ai-hub.md; never read from the constants.
 */
type Row = readonly [name: string, actual: unknown, expected: string, source: string]

const S2_2 = 'spec 2 §2'
const S2_4 = 'spec 2 §4'
const S2_8 = 'spec 2 §8'
const OURS = 'server (docs/decisions/0042-ai-hub.md)'
const OURS_CLIENT = 'client (not given by the specification)'

const rows: Row[] = [
  ['greeting', AI_HUB_MESSAGES.greeting('Dana'), 'Hello Dana', S2_2],
  ['greetingPrompt', AI_HUB_MESSAGES.greetingPrompt, 'How can I help you today?', S2_2],
  ['contextLoaded', AI_HUB_MESSAGES.contextLoaded, 'Context Loaded • Ready to Generate Insights', S2_2],
  ['contextEmpty', AI_HUB_MESSAGES.contextEmpty, 'Add documents or insights to get started', S2_2],
  ['quickStartMarket', AI_HUB_MESSAGES.quickStartMarket, 'Market Analysis', S2_2],
  ['quickStartTerritory', AI_HUB_MESSAGES.quickStartTerritory, 'Territory Overview', S2_2],
  ['responseHeading', AI_HUB_MESSAGES.responseHeading, 'AI Assistant', S2_2],
  ['statusGenerating', AI_HUB_MESSAGES.statusGenerating, 'Analyzing your pharmaceutical data...', S2_2],
  ['statusComplete', AI_HUB_MESSAGES.statusComplete, 'Analysis complete', S2_2],
  ['overlay', AI_HUB_MESSAGES.overlay, 'Analyzing Your Data', S2_2],
  ['sources', AI_HUB_MESSAGES.sources, 'Sources & Citations', S2_2],
  ['documentsEmpty', AI_HUB_MESSAGES.documentsEmpty, 'No documents uploaded yet', S2_2],
  ['pinsEmpty', AI_HUB_MESSAGES.pinsEmpty, 'No insights pinned yet', S2_2],
  ['pinsEmptyHint', AI_HUB_MESSAGES.pinsEmptyHint, 'Pin insights from detail panels to build context for AI-powered analysis', S2_2],
  ['clearPinned', AI_HUB_MESSAGES.clearPinned, 'Clear All Pinned', S2_2],
  ['usingTemplate', AI_HUB_MESSAGES.usingTemplate, 'Using template', S2_4],
  ['copy', AI_HUB_MESSAGES.copy, 'Copy', OURS_CLIENT],
  ['copied', AI_HUB_MESSAGES.copied, 'Copied!', S2_4],
  ['copyFailed', AI_HUB_MESSAGES.copyFailed, 'Failed to copy to clipboard', S2_8],
  ['saveToHub', AI_HUB_MESSAGES.saveToHub, 'Save to Hub', S2_2],
  ['savedToHub', AI_HUB_MESSAGES.savedToHub, 'Saved to Hub', OURS_CLIENT],
  ['pinSaved', AI_HUB_MESSAGES.pinSaved('Texas'), 'Texas saved to AI Hub!', S2_4],
  ['pinRemoved', AI_HUB_MESSAGES.pinRemoved('Texas'), 'Texas removed from AI Hub', S2_4],
  ['dropFiles', AI_HUB_MESSAGES.dropFiles, 'Drag files here or click to upload', OURS_CLIENT],
  ['dropFilesHint', AI_HUB_MESSAGES.dropFilesHint, 'PDF, DOCX, PPTX, XLSX or TXT, up to 10 MB each', OURS_CLIENT],
  ['uploading', AI_HUB_MESSAGES.uploading('plan.docx'), 'Uploading plan.docx...', OURS_CLIENT],
  ['uploadFailed', AI_HUB_MESSAGES.uploadFailed('plan.docx'), 'Failed to upload plan.docx', OURS_CLIENT],
  ['removeFailed', AI_HUB_MESSAGES.removeFailed, 'Failed to remove the document', OURS_CLIENT],
  ['reorderFailed', AI_HUB_MESSAGES.reorderFailed, 'Failed to reorder the pinned insights', OURS_CLIENT],
  ['clearFailed', AI_HUB_MESSAGES.clearFailed, 'Failed to clear the pinned insights', OURS_CLIENT],
  ['pinFailed', AI_HUB_MESSAGES.pinFailed, 'The AI Hub could not be updated', OURS_CLIENT],
  ['composerPlaceholder', AI_HUB_MESSAGES.composerPlaceholder, 'Ask about your documents and pinned insights...', OURS_CLIENT],
  ['generateFailedTitle', AI_HUB_MESSAGES.generateFailedTitle, 'The answer could not be generated', OURS_CLIENT],
  ['generateFailed', AI_HUB_MESSAGES.generateFailed, 'The answer could not be generated. Try again.', OURS_CLIENT],
  ['newAnalysis', AI_HUB_MESSAGES.newAnalysis, 'New Analysis', OURS_CLIENT],
  [
    'budgetExceeded',
    AI_HUB_MESSAGES.budgetExceeded(32_050, 50),
    'The AI context would hold 32,050 tokens, 50 over the 32,000-token budget. Remove documents or pinned insights first.',
    OURS,
  ],
  ['noFiles', AI_HUB_MESSAGES.noFiles, 'Choose at least one file to upload', OURS],
  ['tooManyFiles', AI_HUB_MESSAGES.tooManyFiles, 'Upload at most 10 files at once', OURS],
  ['fileTooLarge', AI_HUB_MESSAGES.fileTooLarge('big.pdf'), 'big.pdf is larger than 10 MB, the largest file the AI Hub accepts', OURS],
  [
    'unsupportedType',
    AI_HUB_MESSAGES.unsupportedType('a.exe'),
    'a.exe: only .pdf, .docx, .pptx, .xlsx and .txt files can be uploaded',
    OURS,
  ],
  [
    'mislabelled',
    AI_HUB_MESSAGES.mislabelled('a.pdf', 'pdf'),
    'a.pdf is not a PDF document; its content does not match its extension',
    OURS,
  ],
  ['encrypted', AI_HUB_MESSAGES.encrypted('a.pdf'), 'a.pdf is password-protected; remove the password and upload it again', OURS],
  ['emptyDocument', AI_HUB_MESSAGES.emptyDocument('a.txt'), 'a.txt contains no text to analyze', OURS],
  [
    'unpacksTooLarge',
    AI_HUB_MESSAGES.unpacksTooLarge('bomb.docx'),
    'bomb.docx unpacks to more than 32 MB, more than the AI Hub reads from one document',
    OURS,
  ],
  [
    'documentTooLarge',
    AI_HUB_MESSAGES.documentTooLarge('long.pdf'),
    'long.pdf holds more text than the whole 32,000-token budget of the AI context; upload a shorter document',
    OURS,
  ],
  [
    'documentTooComplex',
    AI_HUB_MESSAGES.documentTooComplex('slow.pdf'),
    'slow.pdf could not be read within the time and memory the AI Hub gives one document; upload a smaller or simpler document',
    OURS,
  ],
  [
    'readerBusy',
    AI_HUB_MESSAGES.readerBusy('plan.pdf', 5),
    "plan.pdf could not be read now: the AI Hub's document reader is busy with other documents; try again in 5 seconds",
    OURS,
  ],
  ['readerUnavailable', AI_HUB_MESSAGES.readerUnavailable, 'The AI Hub cannot read documents right now; try again later', OURS],
  ['documentNotFound', AI_HUB_MESSAGES.documentNotFound, 'Document not found', OURS],
  ['pinNotFound', AI_HUB_MESSAGES.pinNotFound, 'Pinned insight not found', OURS],
  ['alreadyPinned', AI_HUB_MESSAGES.alreadyPinned, 'This insight is already pinned', OURS],
  ['reorderMismatch', AI_HUB_MESSAGES.reorderMismatch, 'The order must list every pinned insight exactly once', OURS],
  ['templateNotFound', AI_HUB_MESSAGES.templateNotFound, 'Template not found', OURS],
  ['noContext', AI_HUB_MESSAGES.noContext, 'Add documents or insights to get started', S2_2],
  [
    'providerError',
    AI_HUB_MESSAGES.providerError('HTTP 429'),
    'The AI provider could not answer (HTTP 429). Your documents and pinned insights are kept; try again.',
    OURS,
  ],
  ['cannotAnswer', AI_HUB_MESSAGES.cannotAnswer, 'Your documents and pinned insights do not answer this question.', OURS],
]

describe('AI Hub messages', () => {
  it.each(rows)('%s is the documented text (%#)', (_name, actual, expected) => {
    expect(actual).toBe(expected)
  })

  it('every message is pinned above', () => {
    const pinned = new Set(rows.map(([name]) => name))
    expect(Object.keys(AI_HUB_MESSAGES).filter((key) => !pinned.has(key))).toEqual([])
  })

  it('pins the error codes', () => {
    expect(AI_HUB_ERROR_CODES).toEqual({
      budgetExceeded: 'CONTEXT_BUDGET_EXCEEDED',
      mislabelled: 'DOCUMENT_TYPE_MISMATCH',
      encrypted: 'DOCUMENT_ENCRYPTED',
      empty: 'DOCUMENT_EMPTY',
      providerError: 'AI_PROVIDER_ERROR',
      noContext: 'CONTEXT_EMPTY',
      unpacksTooLarge: 'DOCUMENT_TOO_LARGE',
      tooComplex: 'DOCUMENT_TOO_COMPLEX',
      readerBusy: 'DOCUMENT_READER_BUSY',
    })
  })
})
