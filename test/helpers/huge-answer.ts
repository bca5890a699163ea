/** A supplier that answers too much: a JSON body of a gigabyte, written as fast as the reader takes it. */
import type { ServerResponse } from 'node:http'

export interface HugeAnswer {
  /** Bytes written so far. */
  readonly sent: number
  /** Whether the reader hung up. */
  readonly closed: boolean
}

/**
 * Answers `res` with `{"data": {"padding": "<bytes spaces>"}}`, chunk by chunk as the socket drains, and
 * stops once the reader hangs up: what was sent by then shows whether the reader stopped early.
 */
export function streamHugeAnswer(res: ServerResponse, opts: { bytes?: number; chunkBytes?: number } = {}): HugeAnswer {
  const total = opts.bytes ?? 1024 ** 3
  const chunk = Buffer.alloc(opts.chunkBytes ?? 64 * 1024, 0x20)
  const state = { sent: 0, closed: false }
  res.writeHead(200, { 'content-type': 'application/json' })
  res.on('close', () => {
    state.closed = true
  })
  res.write('{"data": {"padding": "')
  const pump = () => {
    while (!state.closed && state.sent < total) {
      state.sent += chunk.length
      if (!res.write(chunk)) return void res.once('drain', pump)
    }
    res.end('"}}')
  }
  pump()
  return state
}
