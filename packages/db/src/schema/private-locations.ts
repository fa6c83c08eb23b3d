// Private locations, their keys, agents and agent events: features/private-locations.

export interface PrivateLocationsTable {
  id: string
  account_id: string
  name: string
  /** What checks name in `privateLocations`; unique per account. */
  slug_name: string
  icon: string | null
  proxy_url: string | null
  /** When its last agent said goodbye (ms): `lastSeenAt` once no agent row is left. */
  agent_left_ms: number | null
  created_at: string
  updated_at: string
}

export interface PrivateLocationKeysTable {
  id: string
  private_location_id: string
  key_hash: string
  masked_key: string
  created_at: string
  updated_at: string
}

/** An agent of a private location, keyed by its location and the id it picked (unique only within it). */
export interface AgentsTable {
  id: string
  private_location_id: string
  version: string
  hostname: string
  running_jobs: number
  started_at: string
  last_seen_ms: number
}

export interface AgentEventsTable {
  id: string
  private_location_id: string
  agent_id: string | null
  message: string
  stack: string | null
  agent_version: string
  platform: string
  runtime_version: string
  created_at: string
}
