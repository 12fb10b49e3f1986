import { readdirSync } from 'node:fs'
import js from '@eslint/js'
import { createNodeResolver, importX } from 'eslint-plugin-import-x'
import reactHooks from 'eslint-plugin-react-hooks'
import globals from 'globals'
import tseslint from 'typescript-eslint'

// One folder per documented API area; an area's routes never import another area's (shared code lives in domain/ or lib/).
const ROUTE_AREAS = readdirSync(new URL('./apps/server/src/routes/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)

// One folder per web feature (apps/web/src/features/README.md); a feature never imports another (what two share lives in
// components/, hooks/ or lib/), and the shared folders import no feature: app/ composes them.
const WEB_FEATURES = readdirSync(new URL('./apps/web/src/features/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)

export default tseslint.config(
  {
    ignores: ['**/node_modules/**', '**/dist/**', 'data/**', 'coverage/**', 'apps/server/src/generated/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-console': ['error', { allow: ['warn', 'error'] }],
    },
  },
  {
    files: ['apps/web/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: { ...reactHooks.configs.recommended.rules },
  },
  {
    // Command-line scripts and benchmarks talk to the terminal.
    files: ['scripts/**', 'seed/**', 'bench/**', 'apps/server/src/cli/**', '**/*.mjs'],
    rules: { 'no-console': 'off' },
  },
  {
    // The environment is read once, validated, in apps/server/src/config.ts (loadEnv); everything else gets
    // the typed Env. Tests, test setup, e2e and the development scripts keep their own documented reads.
    files: ['apps/**/*.{ts,tsx}', 'packages/**/*.ts', 'bench/**/*.ts'],
    ignores: ['apps/server/src/config.ts', '**/*.test.{ts,tsx}', '**/test/**'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read the environment through loadEnv() in apps/server/src/config.ts.' },
      ],
    },
  },
  {
    // Layer boundaries (issue 9 §3) and no import cycles.
    files: ['**/*.{ts,tsx}'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.tsx', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      // sources import siblings as './x.js' (NodeNext); the files are .ts
      'import-x/resolver-next': [
        createNodeResolver({
          extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'],
          extensionAlias: { '.js': ['.ts', '.tsx', '.js'] },
          conditionNames: ['import', 'default'],
        }),
      ],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            ...ROUTE_AREAS.map((area) => ({
              target: `./apps/server/src/routes/${area}`,
              from: './apps/server/src/routes',
              except: [`./${area}`],
              message: 'Routes do not import another area: move what both need into domain/ or lib/.',
            })),
            {
              target: './apps/server/src/domain',
              from: ['./apps/server/src/seed', './apps/server/src/routes', './apps/server/src/plugins', './apps/server/src/cli'],
              message: 'The domain does not depend on seeding, routes, Fastify plugins or the CLI.',
            },
            {
              target: './apps/server/src/routes',
              from: './apps/server/src/engines',
              message: 'Routes call services; the services use the engines (docs/decisions/0080).',
            },
            {
              target: './apps/server/src/!(routes|app.ts|main.ts)/**/*',
              from: './apps/server/src/routes',
              message: 'Only the app composes the routes.',
            },
            ...WEB_FEATURES.map((feature) => ({
              target: `./apps/web/src/features/${feature}`,
              from: './apps/web/src/features',
              except: [`./${feature}`],
              message: 'A web feature does not import another: move what both need into components/, hooks/ or lib/.',
            })),
            {
              target: './apps/web/src/!(features|app|test)/**/*',
              from: ['./apps/web/src/features', './apps/web/src/app'],
              message: 'Shared web code (components/, hooks/, lib/, config/) imports no feature nor the app: app/ composes them.',
            },
            { target: './packages', from: './apps', message: 'Shared packages do not import the apps.' },
            { target: './apps/web', from: './apps/server', message: 'The web client talks to the server through @citrus/contracts only.' },
            { target: './apps/server', from: './apps/web', message: 'The server does not import the web client.' },
          ],
        },
      ],
    },
  },
  {
    // Routes are thin adapters (docs/decisions/0080): the contract in, a service call, the contract out. The SQL
    // lives in the services' query modules, typed from db/kysely.ts, and Prisma calls in the services and domain/.
    // fhir/index.ts is the route file of /fhir: its reads are in fhir/search.ts and fhir/export.ts.
    files: ['apps/server/src/routes/**/*.ts', 'apps/server/src/fhir/index.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...[
          "CallExpression[callee.property.name='query']",
          'CallExpression[callee.property.name=/^\\$(queryRaw|executeRaw)(Unsafe)?$/]',
          'TaggedTemplateExpression[tag.property.name=/^\\$(queryRaw|executeRaw)$/]',
          'TemplateElement[value.raw=/\\b(SELECT|INSERT INTO|UPDATE|DELETE FROM)\\b/]',
          'Literal[value=/^\\s*(SELECT|INSERT INTO|UPDATE|DELETE FROM|WITH)\\b/]',
        ].map((selector) => ({ selector, message: 'No SQL in route files: move it into the service of the product (services/).' })),
        // routes hand the Prisma client to a service; they never read or write through it themselves
        ...[
          "MemberExpression[object.type='Identifier'][object.name='prisma']",
          "MemberExpression[object.type='MemberExpression'][object.property.name='prisma']",
        ].map((selector) => ({
          selector,
          message: 'No Prisma calls in route files: move the data access into the service (services/ or domain/).',
        })),
      ],
    },
  },
  {
    // Tests may reach across layers to set up what they check.
    files: ['**/*.test.{ts,tsx}', 'test/**', 'e2e/**', 'bench/**'],
    rules: { 'import-x/no-restricted-paths': 'off' },
  },
)
