import { Type } from 'typebox'

export const AuthorizeResponse = Type.Object({
  token_type: Type.Literal('Bearer'),
  trip_creation_token: Type.String(),
  expires_in: Type.Integer({ description: 'seconds' }),
})

// The bound is JWT-sized, so an access token sent here by mistake is refused as a credential (401), not for its length.
export const RefreshRequest = Type.Object(
  { refresh_token: Type.String({ minLength: 16, maxLength: 2048 }) },
  { additionalProperties: false },
)

export const RefreshResponse = Type.Object({
  trip_access_token: Type.String(),
  refresh_token: Type.String(),
  expires_in: Type.Integer({ description: 'seconds until the access token expires' }),
  refresh_expires_in: Type.Integer({ description: 'seconds until the refresh token expires' }),
})
