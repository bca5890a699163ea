/**
 * A response body serialized once and kept (a search never changes), named by its ETag. Hosts send the
 * JSON as it is and keep compressed copies under the ETag, instead of serializing per request.
 */
export class Rendered {
  constructor(readonly json: string, readonly etag: string) {}
}

/**
 * A `text/event-stream` body: the host opens it once the response starts and writes each chunk as it
 * comes; aborting the signal (the client went away, the host is closing) ends it.
 */
export class EventStream {
  constructor(readonly open: (signal: AbortSignal) => AsyncIterable<string>) {}
}
