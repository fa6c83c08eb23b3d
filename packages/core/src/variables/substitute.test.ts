import assert from 'node:assert/strict'
import { test } from 'node:test'
import { referencedVariableKeys, substituteVariables } from './substitute.ts'

test('{{KEY}} is replaced in every string of a request; unknown keys stay as written', () => {
  const variables = new Map([
    ['HOST', 'api.example.com'],
    ['TOKEN', 's3cr3t'],
  ])
  const request = {
    url: 'https://{{HOST}}/v1?x={{ MISSING }}',
    headers: [{ key: 'Authorization', value: 'Bearer {{ TOKEN }}' }],
    port: 443,
    followRedirects: true,
    basicAuth: null,
  }
  assert.deepEqual(substituteVariables(request, variables), {
    url: 'https://api.example.com/v1?x={{ MISSING }}',
    headers: [{ key: 'Authorization', value: 'Bearer s3cr3t' }],
    port: 443,
    followRedirects: true,
    basicAuth: null,
  })
})

test('built-ins: $UUID is a fresh v4 UUID, $RANDOM_NUMBER is 0 to 1000', () => {
  const out = substituteVariables('{{$UUID}} {{$RANDOM_NUMBER}} {{$TIMESTAMP}}', new Map())
  const [uuid, random, timestamp] = out.split(' ')
  assert.match(uuid ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  assert.ok(Number(random) >= 0 && Number(random) <= 1000)
  assert.ok(Math.abs(Number(timestamp) - Date.now()) < 60_000)
})

test('referenced keys: placeholders and process.env in scripts, built-ins excluded', () => {
  assert.deepEqual(
    referencedVariableKeys({
      request: { url: 'https://{{HOST}}/{{$UUID}}', headers: [{ key: 'a', value: '{{TOKEN}}' }] },
      script: "const u = process.env.USER_NAME; const p = process.env['PASS_WORD']",
    }),
    ['HOST', 'PASS_WORD', 'TOKEN', 'USER_NAME'],
  )
})
