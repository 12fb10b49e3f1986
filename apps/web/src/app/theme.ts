import { createTheme, type MantineColorsTuple } from '@mantine/core'

/** Citrus green (spec 1 §9: Manrope font, green primary colour). */
const citrus: MantineColorsTuple = [
  '#e9fbef',
  '#d6f3df',
  '#aee5bf',
  '#82d79c',
  '#5dcb7e',
  '#45c36b',
  '#37bf60',
  '#28a84f',
  '#1e9545',
  '#0a8138',
]

const font = 'Manrope, -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, Helvetica, Arial, sans-serif'

export const theme = createTheme({
  primaryColor: 'citrus',
  primaryShade: { light: 7, dark: 6 },
  colors: { citrus },
  fontFamily: font,
  headings: { fontFamily: font, fontWeight: '700' },
  defaultRadius: 'md',
  cursorType: 'pointer',
})
