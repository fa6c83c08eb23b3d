import { type ReactNode, useState } from 'react'
import { Link, useLocation } from './router.tsx'
import { useSession } from './session.tsx'

const NAV: { section: string; items: [string, string][] }[] = [
  {
    section: 'Monitoring',
    items: [
      ['/', 'Checks'],
      ['/settings/groups', 'Groups'],
      ['/settings/maintenance', 'Maintenance'],
      ['/test-sessions', 'Test sessions'],
    ],
  },
  {
    section: 'Alerting',
    items: [
      ['/settings/alert-channels', 'Alert channels'],
      ['/settings/alert-log', 'Alert log'],
    ],
  },
  {
    section: 'Communicate',
    items: [
      ['/settings/status-pages', 'Status pages'],
      ['/settings/dashboards', 'Dashboards'],
      ['/settings/services', 'Services'],
      ['/settings/incidents', 'Incidents'],
    ],
  },
  {
    section: 'Configure',
    items: [
      ['/settings/variables', 'Variables'],
      ['/settings/snippets', 'Snippets'],
      ['/settings/client-certificates', 'Client certificates'],
      ['/settings/private-locations', 'Private locations'],
      ['/settings/api-keys', 'API keys'],
      ['/settings/members', 'Members'],
      ['/settings/account', 'Account'],
    ],
  },
]

function isActive(href: string, path: string): boolean {
  if (href === '/') return path === '/' || path.startsWith('/checks')
  return path === href || path.startsWith(`${href}/`)
}

export function Shell(props: { children: ReactNode }) {
  const [open, setOpen] = useState(false)
  return (
    <div className={`shell ${open ? 'nav-open' : ''}`}>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <button
          type="button"
          className="btn btn-ghost menu-toggle"
          aria-expanded={open}
          aria-controls="sidenav"
          onClick={() => setOpen(!open)}
        >
          Menu
        </button>
        <Link href="/" className="brand" aria-label="svc home">
          <span className="brand-mark" aria-hidden="true" />
          svc
        </Link>
        <TopbarRight />
      </header>
      <SideNav onNavigate={() => setOpen(false)} />
      <main id="main" className="content" tabIndex={-1}>
        {props.children}
      </main>
    </div>
  )
}

/** The account (a picker when there are several), who is signed in with which role, and Sign out. */
function TopbarRight() {
  const { session, accountId, chooseAccount, signOut, role } = useSession()
  return (
    <div className="topbar-right">
      {session.accounts.length > 1 ? (
        <label className="account-picker">
          <span className="sr-only">Account</span>
          <select value={accountId} onChange={(event) => chooseAccount(event.target.value)}>
            {session.accounts.map((account) => (
              <option key={account.id} value={account.id}>
                {account.name}
              </option>
            ))}
          </select>
        </label>
      ) : (
        <span className="account-name">{session.accounts[0]?.name}</span>
      )}
      <span className="user" title={session.user?.email ?? 'Service key'}>
        {session.user ? session.user.name || session.user.email : 'Service key'}
        <span className="role">{role.replace('_', ' ').toLowerCase()}</span>
      </span>
      <button type="button" className="btn btn-ghost" onClick={() => void signOut()}>
        Sign out
      </button>
    </div>
  )
}

function SideNav(props: { onNavigate(): void }) {
  const { path } = useLocation()
  return (
    <nav id="sidenav" className="sidenav" aria-label="Main">
      {NAV.map((group) => (
        <div key={group.section} className="nav-group">
          <p className="nav-section">{group.section}</p>
          <ul>
            {group.items.map(([href, label]) => (
              <li key={href}>
                <Link
                  href={href}
                  aria-current={isActive(href, path) ? 'page' : undefined}
                  onClick={props.onNavigate}
                >
                  {label}
                </Link>
              </li>
            ))}
          </ul>
        </div>
      ))}
    </nav>
  )
}
