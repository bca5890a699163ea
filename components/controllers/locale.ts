/**
 * The locale of an element: its own (a `locale` property), else the one provided above by context, else a
 * fallback (the trip's language). A root element provides it to its parts and carries `lang` and `dir`.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit'
import { ContextConsumer, ContextProvider } from '@lit/context'
import { localeContext } from '../context.ts'
import { localeFor, type Locale } from '../i18n/index.ts'

type Host = ReactiveControllerHost & HTMLElement

export interface LocaleOptions {
  /** The element's own locale (a tag or a Locale), which wins over the provided one. */
  own?: () => string | Locale | undefined
  /** The tag when neither the element nor anything above gives one. */
  fallback?: () => string | undefined
  /** Provide the locale to the element's parts, and carry `lang`/`dir` when alone on the page. */
  provide?: boolean
}

export class LocaleController implements ReactiveController {
  readonly #host: Host
  readonly #opts: LocaleOptions
  readonly #consumer: ContextConsumer<typeof localeContext, Host>
  readonly #provider: ContextProvider<typeof localeContext, Host> | undefined

  constructor(host: Host, opts: LocaleOptions = {}) {
    this.#host = host
    this.#opts = opts
    // Re-renders the host whenever the provided locale changes.
    this.#consumer = new ContextConsumer(host, { context: localeContext, subscribe: true })
    if (opts.provide) this.#provider = new ContextProvider(host, { context: localeContext, initialValue: localeFor('en-US') })
    host.addController(this)
  }

  /** The Locale in use (texts by `t` and `format`, prices, weights and dates by Intl). */
  get l(): Locale {
    const own = this.#opts.own?.()
    if (own) return typeof own === 'string' ? localeFor(own) : own
    return this.#consumer.value ?? localeFor(this.#opts.fallback?.())
  }

  hostUpdate() { this.#provider?.setValue(this.l) }

  hostUpdated() {
    // Alone on the page (or with a locale of its own), the element carries the language and direction itself.
    if (!this.#provider || (this.#consumer.value && !this.#opts.own?.())) return
    const { tag, dir } = this.l
    if (this.#host.lang !== tag) this.#host.lang = tag
    if (this.#host.dir !== dir) this.#host.dir = dir
  }
}
