// The reads of live API keys that authentication makes: the one door to the keys' table from outside
// this feature.
export { findLiveKeyByHash, findLiveKeyById } from './api-keys.repo.ts'
