import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { findPackageJSON } from 'node:module'
import { test } from 'node:test'
import { RUNTIME_DEPENDENCIES } from '@svc/core'

test('the runtime table names exactly the package versions installed for the runner', () => {
  for (const [name, version] of Object.entries(RUNTIME_DEPENDENCIES)) {
    const path = findPackageJSON(name, import.meta.url)
    assert.ok(path, `${name} is not installed`)
    const installed = JSON.parse(readFileSync(path, 'utf8')).version
    assert.equal(installed, version, `${name}: table says ${version}, installed ${installed}`)
  }
})
