export * from './schema-helpers.ts'
export * from './tenancy.ts'
