import { defineConfig } from '@svc/cli'
import { opsEmail } from './checks/alert-channels.ts'

/** The shop's monitoring: every check file under checks/ deploys with these defaults. */
export default defineConfig({
  projectName: 'Shop monitoring',
  logicalId: 'shop-monitoring',
  repoUrl: 'https://git.example.com/shop/monitoring',
  checks: {
    checkMatch: 'checks/**/*.check.ts',
    locations: ['local'],
    frequency: 10,
    tags: ['shop'],
    alertChannels: [opsEmail],
  },
})
