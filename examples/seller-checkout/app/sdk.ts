/**
 * The ancillaries SDK, as its own `<script>` tag (svc.min.js, served by the service, loaded before this
 * page's script) puts it on window: typed by the SDK's declarations. The page never bundles a copy of it.
 */
import type { SvcApi } from '../../../sdk/index.ts'

export type { SvcApi }

export const sdk = (): SvcApi => window.Svc
