// Monitoring-as-code projects, their resources and deployments: features/projects.
import type { Generated } from 'kysely'

export interface ProjectsTable {
  id: string
  account_id: string
  logical_id: string
  name: string
  repo_url: string | null
  created_at: string
  updated_at: string
}

export interface ProjectResourcesTable {
  project_id: string
  resource_type: string
  logical_id: string
  physical_id: string
  /** JSON: the payload that last deployed it. */
  payload: string
  source_file: string | null
}

export interface DeploymentsTable {
  id: string
  account_id: string
  project_logical_id: string
  /** 'DEPLOY' or 'DELETE' (a project's deletion). */
  kind: string
  /** 'PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED' or 'CANCELLED'. */
  status: string
  progress: Generated<number>
  request: string | null
  result: string | null
  error: string | null
  cancel_requested: Generated<number | boolean>
  lease_until: string | null
  created_at: string
  updated_at: string
  finished_at: string | null
}
