/**
 * svc-sandbox.min.js (an IIFE built by rollup, beside svc.min.js): the offline sandbox for
 * `Svc.init({ sandbox: true })` — MSW, mock-server's handlers over the same core as the server, the
 * airport table and every locale table, so a page opened from disk needs nothing else. It sets
 * `window.SvcSandbox` (sdk/sandbox.ts describes it); svc.min.js loads this file only in sandbox mode.
 */
import { createSandbox } from '../mock-server/sandbox.ts'
import locales from 'virtual:svc-locales'
import type { Strings } from '../components/i18n/index.ts'
import { sandboxGlobal } from './sandbox-host.ts'

if (window.SvcSandbox) console.warn('Svc sandbox: svc-sandbox.min.js was loaded twice; the first copy stays in charge.')
else window.SvcSandbox = sandboxGlobal(createSandbox, locales as Record<string, Strings>)
