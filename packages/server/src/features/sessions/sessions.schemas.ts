import { Nullable, StrictObject } from '@svc/core'
import { Type } from 'typebox'
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from './passwords.ts'

export const SignInBody = StrictObject(
  {
    email: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })),
    password: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH })),
    apiKey: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
  },
  { description: 'Either `email` and `password`, or `apiKey` alone.' },
)

export const Session = Type.Object(
  {
    user: Nullable(
      Type.Object(
        { id: Type.String({ format: 'uuid' }), email: Type.String(), name: Type.String() },
        { description: 'null for a session signed in with a service key.' },
      ),
    ),
    accounts: Type.Array(
      Type.Object({
        id: Type.String({ format: 'uuid' }),
        name: Type.String(),
        role: Type.String(),
      }),
    ),
    csrfToken: Type.String({
      description:
        'Send it as the x-csrf-token header on every POST, PUT, PATCH and DELETE made with the session.',
    }),
  },
  { title: 'Session' },
)

export const SetPasswordBody = StrictObject({
  token: Type.String({ minLength: 1, maxLength: 256, description: 'The token of a set-password link.' }),
  password: Type.String({ minLength: MIN_PASSWORD_LENGTH, maxLength: MAX_PASSWORD_LENGTH }),
})

export const PasswordLink = Type.Object(
  {
    url: Type.String({ description: 'Opens the dashboard page that sets the password; works once.' }),
    expiresAt: Type.String({ format: 'date-time' }),
  },
  { title: 'PasswordLink' },
)
