/**
 * The API's error reference: every problem `code` the API answers with (core/shared/errors.ts ERROR_CODES, where
 * a code cannot be added without its meaning and what to do), with its status. The service serves it at
 * GET /docs/errors, where each problem's `type` (`/docs/errors#<code>`) lands on its entry; docs/errors.md
 * in the repository is the same text with the SDK's error codes beside it (scripts/gen-errors.ts,
 * `npm run gen:errors`; test/server/docs/error-reference.test.ts fails when it is stale).
 */
import { ERROR_CODES, problemTypeUri, type ErrorCode } from '../../core/shared/errors.ts'

const API_CODES = Object.keys(ERROR_CODES) as ErrorCode[]

const INTRO =
  "Every refusal of the API is `application/problem+json` (RFC 9457) with a stable `code`, and its `type` is the entry for that code in the reference the service serves (`/docs/errors#<code>`, relative to the service). The browser SDK rejects with an `SvcError` whose `code` is one of its own codes; when the API refused, the problem's code is in `apiCode`."

/** The API problems as Markdown: a table, then an entry per code (docs/errors.md). */
export function apiProblemsMarkdown(): string {
  return [
    '| code | status | title |',
    '|---|---|---|',
    ...API_CODES.map((c) => `| [\`${c}\`](#${c}) | ${ERROR_CODES[c].status} | ${ERROR_CODES[c].title} |`),
    '',
    '## API problems',
    '',
    ...API_CODES.map(
      (c) =>
        `<a id="${c}"></a>\n### \`${c}\`\n\n**${ERROR_CODES[c].status} ${ERROR_CODES[c].title}.** ${ERROR_CODES[c].meaning}\n\n*What to do:* ${ERROR_CODES[c].action}\n`,
    ),
  ].join('\n')
}

export const ERROR_REFERENCE_INTRO = INTRO

const escape = (s: string) =>
  s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!)
/** The few inline marks the texts use: `code`. */
const inline = (s: string) => escape(s).replace(/`([^`]+)`/g, '<code>$1</code>')

/** The page GET /docs/errors serves: each entry's id is its code, so `/docs/errors#<code>` lands on it. */
export function errorReferenceHtml(): string {
  const entry = (id: string, heading: string, meaning: string, action: string) =>
    `<section id="${escape(id)}"><h3><code>${escape(id)}</code> ${escape(heading)}</h3><p>${inline(meaning)}</p><p><strong>What to do:</strong> ${inline(action)}</p></section>`
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Error reference</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:50rem;margin:2rem auto;padding:0 1rem;color:#1b1f24}code{font-size:.95em;background:#f2f4f7;padding:0 .2em;border-radius:3px}section{border-top:1px solid #d0d7de;padding:.5rem 0}section:target{background:#fff8c5}h3{margin:.5rem 0}</style>
</head><body>
<h1>Error reference</h1>
<p>${inline(INTRO)} The API itself: <a href="/docs">/docs</a>.</p>
<h2>API problems</h2>
${API_CODES.map((c) => entry(c, `${ERROR_CODES[c].status} ${ERROR_CODES[c].title}`, ERROR_CODES[c].meaning, ERROR_CODES[c].action)).join('\n')}
<p>The browser SDK's error codes: docs/errors.md in the repository, "SDK errors".</p>
</body></html>
`
}

/** Where a problem's `type` points, for the tests: the anchor of every API code. */
export const problemAnchors = () => API_CODES.map((c) => ({ code: c, type: problemTypeUri(c) }))
