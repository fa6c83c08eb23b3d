// The reads of alert channels and their subscriptions that alerting makes: the one door to the channels'
// tables from outside this feature.
export { findChannel, findChannelById, subscriptionsOf } from './alert-channels.repo.ts'
