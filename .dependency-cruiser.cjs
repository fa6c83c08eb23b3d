// The layers of DESIGN.md ("## Layout"), checked by `npm run check` (`npm run check:layers`).
// Violations that the code had when a rule came in are listed in .dependency-cruiser-known-violations.json
// and tolerated; any new one fails. Refresh that file with `npm run check:layers:baseline` only when a
// change removes violations, never to let a new one in.

const server = '^packages/server/src/'
// The base layer, in the words of issue 27: what every feature may use and that knows no feature.
const base = `${server}(config|context|clock|transactions|version)\\.ts$|${server}(config|crypto|http)/`
// Request plumbing above the base that routes may use besides their services.
const plumbing = `${server}(auth|rate-limit)/`
const feature = `${server}features/`
// Tests and the dashboard's end-to-end harness (it starts a real server for them).
const tests = '\\.test\\.ts$|^packages/web/src/e2e/'

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'Modules that import each other in a circle can only be understood, tested and changed together, ' +
        'and the circle ties every layer on it to every other. Type-only imports count: Node erases them, ' +
        'so they never change load order, but a type is part of what a module depends on and the circle ' +
        'it closes is the same tangle for the reader and the compiler.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'base-imports-no-feature',
      severity: 'error',
      comment:
        'The base (config, context, clock, transactions, crypto, http) is what features build on; when it ' +
        'imports a feature, the scheduler or the run pipeline, every feature depends on that one through ' +
        'the base and a circle is one import away. Hand such things in at wiring time (app.ts, main.ts).',
      from: { path: base },
      to: {
        path: `${server}(features|scheduler|runs|auth|rate-limit|openapi|testing)/|${server}(app|main|bootstrap)\\.ts$`,
      },
    },
    {
      name: 'no-other-features-repo',
      severity: 'error',
      comment:
        "A repo is the only SQL for its feature's tables and is private to that feature: another feature " +
        "goes through the owner's service, so the owner's rules (validation, events, folds) always apply.",
      from: { path: `${feature}([^/]+)/` },
      to: { path: `${feature}[^/]+/[^/]+\\.repo\\.ts$`, pathNot: `${feature}$1/` },
    },
    {
      name: 'no-feature-repo-outside-features',
      severity: 'error',
      comment:
        "The scheduler, the run pipeline, auth and the wiring use a feature's tables only through its " +
        'service too, for the same reason as between features.',
      from: { path: server, pathNot: [feature, `${server}testing/`] },
      to: { path: `${feature}[^/]+/[^/]+\\.repo\\.ts$` },
    },
    {
      name: 'routes-call-services',
      severity: 'error',
      comment:
        'A route is HTTP only (schema, one service call, status code). Besides services and schemas it may ' +
        "use the base, auth and rate limits, and its own feature's helpers (views, feeds, caches); its own " +
        'repo, the scheduler or the wiring is business logic leaking into HTTP. Other features: next rules.',
      from: { path: `${feature}([^/]+)/[^/]+\\.routes\\.ts$` },
      to: {
        path: server,
        pathNot: [
          '\\.(service|schemas)\\.ts$',
          base,
          plumbing,
          `${feature}(?!$1/)`,
          `${feature}$1/(?![^/]+\\.repo\\.ts$)`,
        ],
      },
    },
    {
      name: 'routes-use-other-features-services',
      severity: 'error',
      comment:
        "A route reaches another feature only through that feature's service and schemas (its repo: " +
        'no-other-features-repo).',
      from: { path: `${feature}([^/]+)/[^/]+\\.routes\\.ts$` },
      to: {
        path: feature,
        pathNot: [`${feature}$1/`, '\\.(service|schemas|repo)\\.ts$'],
      },
    },
    {
      name: 'core-imports-no-package',
      severity: 'error',
      comment:
        'core is the shared vocabulary (schemas, check and channel types, templates): it depends on no other package.',
      from: { path: '^packages/core/' },
      to: { path: '^packages/(?!core/)[^/]+/' },
    },
    {
      name: 'db-imports-core-only',
      severity: 'error',
      comment: 'db is the store (engines, migrations, table types): it knows no runner, server or client.',
      from: { path: '^packages/db/' },
      to: { path: '^packages/(?!(db|core)/)[^/]+/' },
    },
    {
      name: 'runner-imports-core-only',
      severity: 'error',
      comment: 'A runner turns a job into a result value; it never touches the store or a server.',
      from: { path: '^packages/runner/' },
      to: { path: '^packages/(?!(runner|core)/)[^/]+/' },
    },
    {
      name: 'server-imports-db-runner-core',
      severity: 'error',
      comment: 'The server builds on db, runner and core; the agent and the CLI are its clients.',
      from: { path: '^packages/server/' },
      to: { path: '^packages/(?!(server|db|runner|core)/)[^/]+/' },
    },
    {
      name: 'agent-imports-runner-core',
      severity: 'error',
      comment:
        'The agent talks to the server over HTTPS only; it runs jobs with the runner and never opens the store.',
      from: { path: '^packages/agent/' },
      to: { path: '^packages/(?!(agent|runner|core)/)[^/]+/' },
    },
    {
      name: 'clients-import-core-only',
      severity: 'error',
      comment:
        'The CLI and the dashboard talk to the server only through the public API; they share its types through core.',
      from: { path: '^packages/(cli|web)/' },
      to: { path: '^packages/(?!(cli|web|core)/)[^/]+/' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that cannot be resolved would hide its edges from every rule above.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // Tests import across layers on purpose (set-up, probes); the rules are about the shipped code.
    // Built output (the dashboard's bundle) is not source.
    exclude: { path: [tests, 'node_modules', '/dist/'] },
    doNotFollow: { path: 'node_modules' },
    // swc parses TypeScript as is (the typescript package is version 7, which has no JavaScript API) and
    // marks type-only imports, which the rules above see like any other import.
    parser: 'swc',
    moduleSystems: ['es6'],
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'node', 'default'],
      extensions: ['.ts', '.js', '.json'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
}
