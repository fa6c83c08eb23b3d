import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { ConfigError, parseArtifactsS3 } from '../../config.ts'
import { artifactKey } from './artifact-store.ts'

const BASE = {
  SVC_ARTIFACTS_S3_BUCKET: 'svc-artifacts',
  SVC_ARTIFACTS_S3_ACCESS_KEY_ID: 'AKIAEXAMPLE',
  SVC_ARTIFACTS_S3_SECRET_ACCESS_KEY: 'secret',
}

describe('SVC_ARTIFACTS_S3_* settings', () => {
  test('unset: artifacts stay in the data directory', () => {
    assert.equal(parseArtifactsS3({}), undefined)
  })

  test('a bucket on an S3-compatible server, with a key prefix', () => {
    assert.deepEqual(
      parseArtifactsS3({
        ...BASE,
        SVC_ARTIFACTS_S3_ENDPOINT: 'http://127.0.0.1:9000/',
        SVC_ARTIFACTS_S3_REGION: 'eu-central-1',
        SVC_ARTIFACTS_S3_PREFIX: '/svc/artifacts/',
      }),
      {
        bucket: 'svc-artifacts',
        endpoint: 'http://127.0.0.1:9000',
        region: 'eu-central-1',
        accessKeyId: 'AKIAEXAMPLE',
        secretAccessKey: 'secret',
        sessionToken: undefined,
        prefix: 'svc/artifacts/',
      },
    )
  })

  test('on AWS, the standard AWS_* credentials and region are taken when svc’s own are unset', () => {
    assert.deepEqual(
      parseArtifactsS3({
        SVC_ARTIFACTS_S3_BUCKET: 'svc-artifacts',
        AWS_ACCESS_KEY_ID: 'AKIAAWS',
        AWS_SECRET_ACCESS_KEY: 'aws-secret',
        AWS_SESSION_TOKEN: 'token',
        AWS_REGION: 'us-west-2',
      }),
      {
        bucket: 'svc-artifacts',
        endpoint: undefined,
        region: 'us-west-2',
        accessKeyId: 'AKIAAWS',
        secretAccessKey: 'aws-secret',
        sessionToken: 'token',
        prefix: '',
      },
    )
  })

  test('bad settings fail with a message naming the variable', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [
        { SVC_ARTIFACTS_S3_ENDPOINT: 'http://minio:9000' },
        /SVC_ARTIFACTS_S3_ENDPOINT is set but SVC_ARTIFACTS_S3_BUCKET is not/,
      ],
      [
        { ...BASE, SVC_ARTIFACTS_S3_BUCKET: 'Not_A_Bucket' },
        /SVC_ARTIFACTS_S3_BUCKET must be an S3 bucket name/,
      ],
      [{ ...BASE, SVC_ARTIFACTS_S3_ENDPOINT: 'minio:9000' }, /SVC_ARTIFACTS_S3_ENDPOINT must be an http/],
      [{ SVC_ARTIFACTS_S3_BUCKET: 'svc-artifacts' }, /needs credentials: SVC_ARTIFACTS_S3_ACCESS_KEY_ID/],
      [
        { SVC_ARTIFACTS_S3_BUCKET: 'svc-artifacts', SVC_ARTIFACTS_S3_ACCESS_KEY_ID: 'AKIA' },
        /must be set together/,
      ],
      [
        { ...BASE, SVC_ARTIFACTS_S3_PREFIX: 'svc/../other' },
        /SVC_ARTIFACTS_S3_PREFIX must be a plain key prefix/,
      ],
    ]
    for (const [env, message] of cases) {
      assert.throws(
        () => parseArtifactsS3(env),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError)
          assert.match(error.message, message)
          return true
        },
      )
    }
  })
})

describe('artifact keys', () => {
  test('a path may not leave its result', () => {
    assert.equal(artifactKey('c', 'r', 'trace-1.zip'), 'c/r/trace-1.zip')
    assert.equal(artifactKey('c', 'r', 'shots/a b.png'), 'c/r/shots/a b.png')
    for (const path of ['../x', 'a/../../x', './x', 'a//b', '/abs', 'a\\..\\b', 'x\0'])
      assert.equal(artifactKey('c', 'r', path), undefined, path)
    assert.equal(artifactKey('../c', 'r', 'x'), undefined)
  })
})
