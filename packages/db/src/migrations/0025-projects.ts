import type { Kysely } from 'kysely'
import type { Engine } from '../engine.ts'

export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  // Monitoring-as-code projects: a project owns the resources its deploys made, by logical id.
  await db.schema
    .createTable('projects')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('logical_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('repo_url', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('projects_account_logical_id_key', ['account_id', 'logical_id'])
    .execute()
  // One row per resource a project manages. `physical_id` is the resource's own id (text for every
  // type); `payload` is the payload (JSON) that last deployed it, so an unchanged redeploy
  // writes nothing.
  await db.schema
    .createTable('project_resources')
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('resource_type', 'text', (c) => c.notNull())
    .addColumn('logical_id', 'text', (c) => c.notNull())
    .addColumn('physical_id', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('source_file', 'text')
    .addPrimaryKeyConstraint('project_resources_pkey', ['project_id', 'resource_type', 'logical_id'])
    .execute()
  await db.schema
    .createIndex('project_resources_physical_idx')
    .on('project_resources')
    .columns(['resource_type', 'physical_id'])
    .execute()
  // A deploy or a project's deletion, run in the background by the node that took it. `lease_until`
  // is renewed while it runs: one past it belongs to a node that died (its transaction never committed).
  await db.schema
    .createTable('deployments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('project_logical_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('progress', 'integer', (c) => c.notNull().defaultTo(0))
    /** JSON: the request (payload and options) until it ran, then null. */
    .addColumn('request', 'text')
    /** JSON: the diff it applied, once it succeeded. */
    .addColumn('result', 'text')
    /** JSON: {message, attributes?} of a failure. */
    .addColumn('error', 'text')
    .addColumn('cancel_requested', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_until', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute()
  await db.schema
    .createIndex('deployments_project_idx')
    .on('deployments')
    .columns(['account_id', 'project_logical_id', 'created_at'])
    .execute()
}
