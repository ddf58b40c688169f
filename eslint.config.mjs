// ESLint flat config for jitscope's JavaScript (make lint; eslint comes from tests/package.json).
//   web/js/**/*.js        the dashboard: browser ES modules
//   tests/**/*.mjs        node tests (tests/browser also passes functions to the page)
//   bench/*.mjs           node benchmarks (bench/dashboard.mjs also passes functions to the page)
// The packages live in tests/node_modules, so they are resolved from there.
import { createRequire } from 'node:module';

const require = createRequire(new URL('./tests/package.json', import.meta.url));
const js = require('@eslint/js');
const globals = require('globals');

export default [
  { ignores: ['build/**', '**/node_modules/**', 'tests/apps/**'] },
  js.configs.recommended,
  {
    files: ['web/js/**/*.js'],
    languageOptions: { ecmaVersion: 'latest', sourceType: 'module', globals: globals.browser },
  },
  {
    files: ['*.mjs', 'tests/**/*.mjs', 'bench/**/*.mjs'],
    languageOptions: { ecmaVersion: 'latest', sourceType: 'module', globals: globals.node },
  },
  {
    files: ['tests/browser/**/*.mjs', 'bench/dashboard.mjs'], // (functions passed to the page)
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
];
