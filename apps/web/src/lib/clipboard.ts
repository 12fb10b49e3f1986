import { notify } from './notify'

export const CLIPBOARD_MESSAGES = { failed: 'Failed to copy to clipboard' } as const

/** Copies text and reports it with a toast: the caller's success message or 'Failed to copy to clipboard' (spec 1 §8). */
export async function copyText(text: string, successMessage: string): Promise<boolean> {
  try {
    if (!navigator.clipboard?.writeText) throw new Error('Clipboard API unavailable')
    await navigator.clipboard.writeText(text)
    notify({ severity: 'success', message: successMessage })
    return true
  } catch {
    notify({ severity: 'error', message: CLIPBOARD_MESSAGES.failed })
    return false
  }
}
