// Runs the chaos harness's TypeScript without a build step: @swc/core (the
// compiler Jest already uses, with the same options as jest.config.js)
// transpiles each .ts file on require, and `@noetl/<lib>` resolves to the
// lib's index.ts as Jest's moduleNameMapper does. The runtime's roles still
// run from dist/ (npm run chaos builds first).
const { transformSync } = require('@swc/core');
const Module = require('node:module');
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..', '..');
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const lib = /^@noetl\/([a-z-]+)$/.exec(request);
  return resolveFilename.call(this, lib ? join(root, 'libs', lib[1], 'src', 'index.ts') : request, ...rest);
};
require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(readFileSync(filename, 'utf8'), {
    filename,
    sourceMaps: 'inline',
    module: { type: 'commonjs' },
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
  });
  module._compile(code, filename);
};
