// The reads (and row locks) of error groups that root cause analyses make, and what analytics prunes
// with its rollups: the one door to the error groups' table from outside this feature.
export { deleteGroupsBefore, findGroup, groupsOverlapping, lockGroupById } from './error-groups.repo.ts'
