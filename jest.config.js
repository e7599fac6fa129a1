// Three tiers (STYLE.md): *.spec.ts pure, *.int-spec.ts one lib against real
// services, *.e2e-spec.ts a running app over HTTP. Select one with --selectProjects.
const transform = {
  '^.+\\.ts$': ['@swc/jest', {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
  }],
};
const moduleNameMapper = { '^@noetl/([a-z-]+)$': '<rootDir>/libs/$1/src/index.ts' };
const tier = (displayName, suffix, extra = {}) => ({
  displayName,
  rootDir: __dirname,
  testEnvironment: 'node',
  transform,
  moduleNameMapper,
  testMatch: [`<rootDir>/(apps|libs|test|tools|bench)/**/*.${suffix}.ts`],
  ...extra,
});
module.exports = {
  projects: [
    tier('unit', 'spec'),
    tier('int', 'int-spec', { globalSetup: '<rootDir>/test/support/global-setup.ts' }),
    tier('e2e', 'e2e-spec', { globalSetup: '<rootDir>/test/support/global-setup.ts' }),
  ],
};
