/** Contexts (@lit/context) through which the root hands the session and the locale down to every part. */
import { createContext } from '@lit/context'
import type { Session } from '../client/session.ts'
import type { Locale } from './i18n/index.ts'

export const sessionContext = createContext<Session | undefined>(Symbol('svc-session'))
export const localeContext = createContext<Locale>(Symbol('svc-locale'))
