import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ScriptProjectError, scriptProjectOf } from './script-project.ts'

const fieldOf = (run: () => unknown) => {
  try {
    run()
  } catch (error) {
    assert.ok(error instanceof ScriptProjectError)
    return [error.field, error.message]
  }
  assert.fail('expected a ScriptProjectError')
}

test('a suite runs from its files with its config among them; entries default per type', () => {
  const project = scriptProjectOf('AUTOMATION', {
    script: 'test()',
    dependencies: [{ path: './e2e.config.ts', content: 'export default {}' }],
    playwrightConfigPath: 'e2e.config.ts',
  })
  assert.deepEqual(project, {
    files: [
      { path: 'e2e.config.ts', content: 'export default {}' },
      { path: 'automation.spec.js', content: 'test()' },
    ],
    entry: 'automation.spec.js',
    configPath: 'e2e.config.ts',
  })
  assert.deepEqual(
    scriptProjectOf('BROWSER', { script: 'x', scriptPath: null }).entry,
    'browser-check.spec.js',
  )
  assert.deepEqual(scriptProjectOf('MULTI_STEP', { script: 'x', scriptPath: 'a/b.ts' }).entry, 'a/b.ts')
})

test('projects that could never run name the field at fault', () => {
  assert.deepEqual(
    fieldOf(() => scriptProjectOf('AUTOMATION', {})),
    ['dependencies', 'The suite has no files: it needs playwright.config.ts'],
  )
  assert.deepEqual(
    fieldOf(() => scriptProjectOf('AUTOMATION', { script: 'test()' })),
    ['playwrightConfigPath', "playwright.config.ts is not among the project's files"],
  )
  assert.deepEqual(
    fieldOf(() => scriptProjectOf('BROWSER', { script: '  \n' })),
    ['script', 'The check has no script'],
  )
  assert.deepEqual(
    fieldOf(() =>
      scriptProjectOf('AUTOMATION', {
        dependencies: [
          { path: 'playwright.config.ts', content: '' },
          { path: '.svc/events.jsonl', content: '' },
        ],
      }),
    ),
    [
      'dependencies.1.path',
      "Invalid file path '.svc/events.jsonl': paths are relative to the project and stay inside it",
    ],
  )
  assert.equal(
    fieldOf(() => scriptProjectOf('BROWSER', { script: 'x', scriptPath: '/etc/x' }))[0],
    'scriptPath',
  )
})
