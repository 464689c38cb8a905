// eslint.config.js - ESLint's rules for the repository's JavaScript: ESLint's recommended set, and for
// each kind of file the globals of where it runs. scripts/test.d/03-jslint.sh runs ESLint from the
// repository's root with --config, so the patterns below are relative to the root.
'use strict';

const { defineConfig } = require('eslint/config');
const js = require('@eslint/js');
const globals = require('globals');

module.exports = defineConfig([
  js.configs.recommended,
  {
    // The web page: ES modules the browser loads as they are (web/index.html), no bundler.
    files: ['web/**/*.js'],
    languageOptions: { sourceType: 'module', globals: globals.browser },
  },
  {
    // Node.js scripts and tests (CommonJS, node --test), this file included.
    files: ['tests/**/*.js', 'tools/**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
  },
  {
    // Node.js ES modules (tools/manifests: the deploy/ manifests' renderer and validator).
    files: ['tools/**/*.mjs'],
    languageOptions: { sourceType: 'module', globals: globals.node },
  },
  {
    // The browser tests also hand functions to page.evaluate(), $eval() and waitForFunction(), which
    // run in the page: those use the browser's globals (document, window, location...).
    files: ['tests/browser/test/**/*.js'],
    languageOptions: { globals: globals.browser },
  },
]);
