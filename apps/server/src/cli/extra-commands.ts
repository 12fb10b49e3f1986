import type { Command } from './main.js'

/** Commands of later areas (API keys, data loading) register here. */
export const extraCommands: Command[] = []
