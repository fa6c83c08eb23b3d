// The reads of accounts and users that the operators' API and analytics make: the one door to their
// tables from outside this feature.
export { countAccounts, findAccount, findUser } from './accounts.repo.ts'
