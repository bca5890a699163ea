/**
 * Reads a Server-Sent Events response as a client would, for tests of the trip event stream: events in
 * order, comment lines counted, the end of the stream noticed. Written here from the SSE grammar (not with
 * the SDK's parser, which the browser tests cover), so a parser bug cannot hide a server bug.
 */
import assert from 'node:assert/strict'
import { request, type IncomingMessage } from 'node:http'
import { patience } from './patience.ts'

export interface SseEvent {
  event: string
  id: string | undefined
  data: string
  retry?: number
}

export interface EventReader {
  /** Status and headers (node:http, not fetch: after an abort, Node's fetch opens a spare connection that holds a server's graceful close). */
  response: { status: number; headers: { get(name: string): string | null } }
  /** The next event (comment lines are skipped and counted); fails after `ms` or when the stream ends first. */
  next(ms?: number): Promise<SseEvent>
  /** Resolves true once the server ended the stream within `ms`. */
  ended(ms?: number): Promise<boolean>
  /** Nothing but comments arrive for `ms`. */
  quiet(ms: number): Promise<void>
  comments: number
  close(): void
}

export async function openEvents(url: string, headers: Record<string, string>): Promise<EventReader> {
  const req = request(url, { headers: { accept: 'text/event-stream', ...headers } })
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    req.once('response', resolve)
    req.once('error', reject)
    req.end()
  })
  const response = {
    status: res.statusCode ?? 0,
    headers: {
      get: (name: string) => {
        const v = res.headers[name.toLowerCase()]
        return v === undefined ? null : String(v)
      },
    },
  }
  const queue: SseEvent[] = []
  let done = false
  const waiter: { wake: (() => void) | null } = { wake: null }
  const reader: EventReader = {
    response,
    comments: 0,
    async next(ms = 5_000) {
      const deadline = Date.now() + patience(ms)
      while (queue.length === 0) {
        if (done) assert.fail('the stream ended before the next event')
        if (Date.now() > deadline) assert.fail(`no event within ${patience(ms)} ms`)
        await new Promise<void>((r) => {
          waiter.wake = r
          setTimeout(r, Math.max(1, deadline - Date.now()))
        })
      }
      return queue.shift()!
    },
    async ended(ms = 5_000) {
      const deadline = Date.now() + patience(ms)
      while (!done && Date.now() < deadline)
        await new Promise<void>((r) => {
          waiter.wake = r
          setTimeout(r, Math.max(1, deadline - Date.now()))
        })
      return done
    },
    async quiet(ms) {
      await new Promise((r) => setTimeout(r, ms))
      assert.deepEqual(
        queue.map((e) => e.event),
        [],
        'no event',
      )
    },
    close: () => {
      req.destroy()
    },
  }
  if (response.status !== 200) {
    res.resume()
    return reader
  }
  void (async () => {
    const decoder = new TextDecoder()
    let buffer = ''
    try {
      for await (const chunk of res as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true })
        let end: number
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const fields: Record<string, string> = {}
          let comment = false
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) {
              comment = true
              continue
            }
            const colon = line.indexOf(':')
            const name = line.slice(0, colon)
            fields[name] =
              (fields[name] !== undefined && name === 'data' ? fields[name] + '\n' : '') +
              line.slice(colon + 1).replace(/^ /, '')
          }
          if (comment && Object.keys(fields).length === 0) reader.comments++
          else if (fields.data !== undefined)
            queue.push({ event: fields.event ?? 'message', id: fields.id, data: fields.data })
          else if (fields.retry !== undefined)
            queue.push({ event: 'retry', id: undefined, data: '', retry: Number(fields.retry) })
        }
        waiter.wake?.()
      }
    } catch {
      // aborted by close()
    } finally {
      done = true
      waiter.wake?.()
    }
  })()
  return reader
}
