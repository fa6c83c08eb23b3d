// The reads (and row locks) of error groups that root cause analyses make: the one door to the error
// groups' table from outside this feature.
export { findGroup, groupsOverlapping, lockGroupById } from './error-groups.repo.ts'
