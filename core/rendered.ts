/**
 * A response body serialized once and kept (a search never changes), named by its ETag. Hosts send the
 * JSON as it is and keep compressed copies under the ETag, instead of serializing per request.
 */
export class Rendered {
  constructor(readonly json: string, readonly etag: string) {}
}
