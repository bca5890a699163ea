import { Type, type Static } from 'typebox'

/** RFC 9457 problem details, the body of every error response. */
export const Problem = Type.Object({
  type: Type.String(),
  title: Type.String(),
  status: Type.Integer(),
  detail: Type.String(),
  code: Type.String(),
  errors: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
  request_id: Type.Optional(Type.String()),
})
export type Problem = Static<typeof Problem>
