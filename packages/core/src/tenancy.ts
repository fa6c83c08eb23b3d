/** Roles, weakest first: a role may do everything the roles before it may. */
export const ROLES = ['READ_ONLY', 'READ_WRITE', 'ADMIN', 'OWNER'] as const
export type Role = (typeof ROLES)[number]

export function roleAtLeast(role: Role, required: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(required)
}

/** Runtime ids a check or account may name, newest first (the spec's list). */
export const RUNTIME_IDS = ['2025.04', '2024.09', '2024.02', '2023.09', '2023.02', '2022.10'] as const
export type RuntimeId = (typeof RUNTIME_IDS)[number]
export const DEFAULT_RUNTIME_ID: RuntimeId = '2025.04'
