/**
 * The locale of an element: its own (its `locale` property, a tag or a Locale), else the one provided
 * above by context, else the language of the trip of its session. An element with a session provides the
 * locale to its parts and, when alone on the page, carries `lang` and `dir`.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit'
import { ContextConsumer, ContextProvider } from '@lit/context'
import { localeContext } from '../context.ts'
import { localeFor, type Locale } from '../i18n/index.ts'
import type { Session } from '../../client/session.ts'

type Host = ReactiveControllerHost & HTMLElement & { locale?: string | Locale | undefined }

export class LocaleController implements ReactiveController {
  readonly #host: Host
  readonly #session: { readonly value: Session | undefined } | undefined
  readonly #consumer: ContextConsumer<typeof localeContext, Host>
  readonly #provider: ContextProvider<typeof localeContext, Host> | undefined

  /** With `session`, the fallback is its trip's language, and the locale is provided to the host's parts. */
  constructor(host: Host, session?: { readonly value: Session | undefined }) {
    this.#host = host
    this.#session = session
    // Re-renders the host whenever the provided locale changes.
    this.#consumer = new ContextConsumer(host, { context: localeContext, subscribe: true })
    if (session)
      this.#provider = new ContextProvider(host, { context: localeContext, initialValue: localeFor('en-US') })
    host.addController(this)
  }

  /** The Locale in use (texts by `t` and `format`, prices, weights and dates by Intl). */
  get l(): Locale {
    const own = this.#host.locale
    if (own) return typeof own === 'string' ? localeFor(own) : own
    return this.#consumer.value ?? localeFor(this.#session?.value?.state.trip?.language)
  }

  hostUpdate() {
    this.#provider?.setValue(this.l)
  }

  hostUpdated() {
    // Alone on the page (or with a locale of its own), the element carries the language and direction itself.
    if (!this.#provider || (this.#consumer.value && !this.#host.locale)) return
    const { tag, dir } = this.l
    if (this.#host.lang !== tag) this.#host.lang = tag
    if (this.#host.dir !== dir) this.#host.dir = dir
  }
}
