/**
 * Imported for its effect by every server entry (app, bootstrap): the core's hashes (state hash, ETags,
 * product ids, API keys) run on Node's native SHA-256 instead of the portable one, ~5× faster on the
 * kilobytes a state hash covers. Same output, so stored hashes do not change.
 */
import { hash } from 'node:crypto'
import { useSha256 } from '../core/shared/crypto.ts'

useSha256((text) => hash('sha256', text, 'hex'))
