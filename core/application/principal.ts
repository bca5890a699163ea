/** Who is calling and which calls an operation takes: types only, so every module may name them without a cycle. */
import type { SellerRecord } from '../ports/records.ts'

/** Who is calling, once credentials are verified. */
export type Principal =
  | {
      kind: 'api_key'
      seller: SellerRecord
      /** SHA-256 of the key: what a creation token it mints names, so revoking the key ends the token. */ key_hash: string
    }
  | { kind: 'creation_token'; seller: SellerRecord }
  | {
      kind: 'access_token'
      seller: SellerRecord
      trip_id: string
      token: string
      family: string | null
      /** The token's `exp` (seconds). */ expires_at: number
    }

/**
 * Who may call an operation (the matrix in docs/decisions.md):
 * - `api_key`: Basic auth with the seller's API key only (server to server);
 * - `creator`: API key or trip creation token;
 * - `trip`: API key or an access token for the trip in the path;
 * - `public`: no credentials (the refresh token in the body is the credential; JWKS).
 */
export type AuthRule = 'api_key' | 'creator' | 'trip' | 'public'
