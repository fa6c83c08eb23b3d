// The reads of accounts and users that the operators' API makes: the one door to their tables from
// outside this feature.
export { countAccounts, findAccount, findUser } from './accounts.repo.ts'
