// The reads of account variables that alert channels and deliveries make: the one door to the variables'
// table from outside this feature.
export { listVariables, listVariablesOfAccounts } from './variables.repo.ts'
