// The references from checks and groups to the variables they use, which checks replace as they are
// saved: the one door to the references' table from outside this feature.
export { type ReferenceOwner, replaceReferences } from './variables.repo.ts'
