// The reads (and row locks) of check groups that other features make: the one door to the groups' table
// from outside this feature.
export { findGroup, findGroups, listGroups, listGroupsOfAccount, lockGroup } from './check-groups.repo.ts'
