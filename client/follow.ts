/**
 * Following the trip's event stream (Session.follow) and reading it (ApiClient.events): code no first
 * render needs, so a bundle loads it only when a session starts following (svc.min.js fetches it as a
 * chunk beside itself; a Vite app that builds a Session and never follows, never loads it).
 */
import { NoEventStream } from './errors.ts'
import type { BasketView, TripEvent } from './types.ts'

/** Whether the page is in a hidden tab (never outside a browser). */
const isHidden = () => globalThis.document?.visibilityState === 'hidden'

/** Resolves when the page is shown again, or `signal` aborts. */
function untilShown(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      if (isHidden() && !signal.aborted) return
      globalThis.document?.removeEventListener('visibilitychange', done)
      signal.removeEventListener('abort', done)
      resolve()
    }
    globalThis.document?.addEventListener('visibilitychange', done)
    signal.addEventListener('abort', done)
  })
}

/** What the follower needs of the session it follows for. */
export interface Followed {
  /** ApiClient's stream (declared here, not imported: ./api.ts loads this module, never the other way). */
  client: {
    events(
      lastEventId: string | undefined,
      signal: AbortSignal,
      onRetry: (ms: number) => void,
    ): AsyncIterable<TripEvent>
  }
  /** The reconnect delay until the service names one, and how often to poll where there is no stream. */
  retryMs: number
  pollMs: number
  refresh(): Promise<void>
  reload(): Promise<void>
  /** The stream is connected (so polling for checks stops), or not. */
  streaming(on: boolean): void
  search(searchId: string): void
  basket(view: BasketView): void
}

/**
 * The loop of Session.follow until `signal` aborts: each event handed to `s` as it comes, a dropped stream
 * reconnected from its last event (the basket read again meanwhile), no stream while the tab is hidden,
 * and the basket polled where there is no stream at all.
 */
export async function follow(s: Followed, signal: AbortSignal): Promise<void> {
  let retryMs = s.retryMs
  let lastEventId: string | undefined
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms)
      signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer)
          resolve()
        },
        { once: true },
      )
    })
  let failures = 0
  while (!signal.aborted) {
    // A hidden tab holds no stream: over HTTP/1.1 a browser opens at most six connections to the API's
    // origin for all its tabs, and a few checkout tabs left open would stall every call. Back in view,
    // the basket is read once and the stream resumes from its last event.
    if (isHidden()) {
      await untilShown(signal)
      if (signal.aborted) break
      await s.refresh().catch(() => {})
    }
    const connection = new AbortController()
    const hang = () => connection.abort()
    const onHide = () => {
      if (isHidden()) hang()
    }
    signal.addEventListener('abort', hang)
    globalThis.document?.addEventListener('visibilitychange', onHide)
    try {
      for await (const e of s.client.events(lastEventId, connection.signal, (ms) => {
        retryMs = ms
      })) {
        failures = 0
        s.streaming(true)
        if (e.id !== undefined) lastEventId = e.id
        if (e.event === 'search') s.search(e.data.search_id)
        else s.basket(e.data)
      }
    } catch (e) {
      if (connection.signal.aborted) continue
      s.streaming(false)
      if (e instanceof NoEventStream) {
        // No stream to be had: poll the basket for as long as the session lives.
        while (!signal.aborted) {
          await pause(s.pollMs)
          if (!signal.aborted && !isHidden()) await s.reload().catch(() => {})
        }
        break
      }
      failures++
    } finally {
      signal.removeEventListener('abort', hang)
      globalThis.document?.removeEventListener('visibilitychange', onHide)
      s.streaming(false)
    }
    if (signal.aborted || connection.signal.aborted) continue
    // Reconnects come slower after failures (up to 16 × the delay); what changed meanwhile is read now.
    await pause(retryMs * 2 ** Math.min(failures, 4))
    if (failures > 0 && !signal.aborted) await s.refresh().catch(() => {})
  }
}

/**
 * The events of a `text/event-stream` body as they come (ApiClient.events), the two kinds this SDK knows,
 * their data parsed; ends when the stream ends or `signal` aborts. `onRetry`: the delay the service names.
 */
export async function* readEvents(
  body: NonNullable<Response['body']>,
  signal: AbortSignal,
  onRetry?: (ms: number) => void,
): AsyncGenerator<TripEvent> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader()
  const onAbort = () => {
    void reader.cancel().catch(() => {})
  }
  signal.addEventListener('abort', onAbort, { once: true })
  try {
    let buffer = ''
    let fields: { event?: string; data?: string; id?: string } = {}
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }))
      if (done || signal.aborted) return
      buffer += value
      const lines = buffer.split(/\r\n|\r|\n/)
      buffer = lines.pop()!
      for (const line of lines) {
        if (line === '') {
          // A blank line ends an event (SSE): dispatched when it has data, of the two kinds this SDK knows.
          if (fields.data !== undefined && (fields.event === 'basket' || fields.event === 'search')) {
            yield { event: fields.event, id: fields.id, data: JSON.parse(fields.data) } as TripEvent
          }
          fields = {}
          continue
        }
        const colon = line.indexOf(':')
        if (colon === 0) continue // a comment (the heartbeat)
        const name = colon < 0 ? line : line.slice(0, colon)
        const text = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
        if (name === 'data') fields.data = fields.data === undefined ? text : `${fields.data}\n${text}`
        else if (name === 'event' || name === 'id') fields[name] = text
        else if (name === 'retry' && /^\d+$/.test(text)) onRetry?.(Number(text))
      }
    }
  } finally {
    signal.removeEventListener('abort', onAbort)
    void reader.cancel().catch(() => {})
  }
}
