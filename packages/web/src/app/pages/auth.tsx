import { useMutation, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, type KeyboardEvent, useState } from 'react'
import { ApiError, api } from '../api.ts'
import { navigate, useLocation } from '../router.tsx'
import type { Session } from '../types.ts'
import { useEditedErrors } from '../ui/edited-errors.ts'
import { Button, ErrorBox, Field } from '../ui/ui.tsx'

function signInMessage(error: unknown): string | null {
  if (!error) return null
  if (error instanceof ApiError && error.status === 401) return 'Wrong email, password or key.'
  if (error instanceof ApiError && error.status === 429)
    return `Too many attempts. Try again in ${error.retryAfterSeconds ?? 60} seconds.`
  return error instanceof Error ? error.message : String(error)
}

export function SignInPage() {
  const client = useQueryClient()
  const [mode, setMode] = useState<'password' | 'key'>('password')
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [apiKey, setApiKey] = useState('')
  const signIn = useMutation({
    mutationFn: () =>
      api.post<Session>(
        '/v1/auth/sign-in',
        mode === 'password' ? { email, password } : { apiKey: apiKey.trim() },
      ),
    onSuccess: (session) => client.setQueryData(['session'], session),
  })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    signIn.mutate()
  }
  const message = signInMessage(signIn.error)
  return (
    <main className="auth-page">
      <form className="auth-card" onSubmit={submit} aria-labelledby="sign-in-title">
        <div className="brand brand-large">
          <span className="brand-mark" aria-hidden="true" />
          svc
        </div>
        <h1 id="sign-in-title">Sign in</h1>
        <SignInTabs mode={mode} onMode={setMode} />
        {mode === 'password' ? (
          <EmailAndPassword email={email} onEmail={setEmail} password={password} onPassword={setPassword} />
        ) : (
          <KeyField apiKey={apiKey} onApiKey={setApiKey} />
        )}
        {message && (
          <div className="alert alert-error" role="alert">
            {message}
          </div>
        )}
        <Button type="submit" variant="primary" className="btn-block" disabled={signIn.isPending}>
          {signIn.isPending ? 'Signing in…' : 'Sign in'}
        </Button>
      </form>
    </main>
  )
}

const SIGN_IN_MODES = [
  ['password', 'Password'],
  ['key', 'API key'],
] as const

/**
 * The ARIA tabs pattern: only the chosen tab is a Tab stop; the arrow keys, Home and End choose another
 * and move the focus to it.
 */
function SignInTabs(props: { mode: 'password' | 'key'; onMode(mode: 'password' | 'key'): void }) {
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const at = SIGN_IN_MODES.findIndex(([mode]) => mode === props.mode)
    const last = SIGN_IN_MODES.length - 1
    const next = {
      ArrowRight: at === last ? 0 : at + 1,
      ArrowLeft: at === 0 ? last : at - 1,
      Home: 0,
      End: last,
    }[event.key]
    const chosen = next === undefined ? undefined : SIGN_IN_MODES[next]
    if (next === undefined || !chosen) return
    event.preventDefault()
    props.onMode(chosen[0])
    event.currentTarget.querySelectorAll<HTMLButtonElement>('[role="tab"]')[next]?.focus()
  }
  return (
    <div className="segmented" role="tablist" aria-label="Sign in with" onKeyDown={onKeyDown}>
      {SIGN_IN_MODES.map(([mode, label]) => (
        <button
          key={mode}
          type="button"
          role="tab"
          aria-selected={props.mode === mode}
          tabIndex={props.mode === mode ? 0 : -1}
          onClick={() => props.onMode(mode)}
        >
          {label}
        </button>
      ))}
    </div>
  )
}

function EmailAndPassword(props: {
  email: string
  onEmail(email: string): void
  password: string
  onPassword(password: string): void
}) {
  return (
    <>
      <Field label="Email" name="email">
        {(id) => (
          <input
            id={id}
            type="email"
            autoComplete="username"
            required
            value={props.email}
            onChange={(event) => props.onEmail(event.target.value)}
          />
        )}
      </Field>
      <Field label="Password" name="password">
        {(id) => (
          <input
            id={id}
            type="password"
            autoComplete="current-password"
            required
            value={props.password}
            onChange={(event) => props.onPassword(event.target.value)}
          />
        )}
      </Field>
    </>
  )
}

function KeyField(props: { apiKey: string; onApiKey(apiKey: string): void }) {
  return (
    <Field label="API key" name="apiKey" hint="A user key or a service key (svc_…).">
      {(id, describedBy) => (
        <input
          id={id}
          type="password"
          autoComplete="off"
          required
          aria-describedby={describedBy}
          value={props.apiKey}
          onChange={(event) => props.onApiKey(event.target.value)}
        />
      )}
    </Field>
  )
}

export function SetPasswordPage() {
  const { search } = useLocation()
  const token = search.get('token') ?? ''
  const [password, setPassword] = useState('')
  const [repeat, setRepeat] = useState('')
  const [mismatch, setMismatch] = useState(false)
  const save = useMutation({ mutationFn: () => api.post('/v1/auth/password', { token, password }) })
  const { error, edited } = useEditedErrors(save.error)
  const submit = (event: FormEvent) => {
    event.preventDefault()
    setMismatch(password !== repeat)
    if (password === repeat) save.mutate()
  }
  return (
    <main className="auth-page">
      <form className="auth-card" onSubmit={submit} aria-labelledby="set-password-title">
        <div className="brand brand-large">
          <span className="brand-mark" aria-hidden="true" />
          svc
        </div>
        <h1 id="set-password-title">Set your password</h1>
        {save.isSuccess ? (
          <>
            <p>Your password is set.</p>
            <Button variant="primary" className="btn-block" onClick={() => navigate('/')}>
              Sign in
            </Button>
          </>
        ) : (
          <>
            {!token && (
              <div className="alert alert-error">This link has no token. Ask an admin for a new link.</div>
            )}
            <PasswordFields
              password={password}
              repeat={repeat}
              error={error}
              onPassword={(value) => {
                setPassword(value)
                edited('password')
              }}
              onRepeat={setRepeat}
            />
            {mismatch && (
              <div className="alert alert-error" role="alert">
                The passwords differ.
              </div>
            )}
            <ErrorBox error={error} />
            <Button type="submit" variant="primary" className="btn-block" disabled={!token || save.isPending}>
              Set password
            </Button>
          </>
        )}
      </form>
    </main>
  )
}

/** The new password, with the API's error beside it, and the same again. */
function PasswordFields(props: {
  password: string
  repeat: string
  error: unknown
  onPassword(value: string): void
  onRepeat(value: string): void
}) {
  return (
    <>
      <Field label="New password" name="password" error={props.error} hint="At least 12 characters.">
        {(id, describedBy, invalid) => (
          <input
            id={id}
            type="password"
            autoComplete="new-password"
            minLength={12}
            required
            aria-describedby={describedBy}
            aria-invalid={invalid}
            value={props.password}
            onChange={(event) => props.onPassword(event.target.value)}
          />
        )}
      </Field>
      <Field label="Repeat password" name="repeat">
        {(id) => (
          <input
            id={id}
            type="password"
            autoComplete="new-password"
            required
            value={props.repeat}
            onChange={(event) => props.onRepeat(event.target.value)}
          />
        )}
      </Field>
    </>
  )
}
