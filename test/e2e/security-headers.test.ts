/**
 * Every HTML page the server serves (the API docs at /docs, the demo checkout at /, the operator console at
 * /console) has a Content-Security-
 * Policy that its own page keeps (no violation reported in Chromium), and the headers that stop sniffing,
 * framing and referrer leaks.
 */
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type Browser } from 'playwright-core'
import { startServer, type RunningServer } from '../helpers/process.ts'
import { patience } from '../helpers/patience.ts'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
let server: RunningServer
let browser: Browser
let dir: string

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-sec-'))
  server = await startServer({ DATABASE_URL: `sqlite:${join(dir, 'svc.db')}` }, { compiled: true })
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--no-first-run',
    ],
  })
})
after(async () => {
  await browser?.close()
  await server?.stop()
  rmSync(dir, { recursive: true, force: true })
})

for (const [path, ready] of [
  ['/docs', '.swagger-ui .opblock'],
  ['/', 'main'],
  ['/console', 'svc-console-sign-in h1'],
] as const) {
  test(`${path}: security headers, and a page that breaks none of its own CSP`, async () => {
    const res = await fetch(`${server.base}${path}`)
    assert.match(String(res.headers.get('content-type')), /^text\/html/)
    const csp = res.headers.get('content-security-policy') ?? ''
    assert.match(csp, /default-src/)
    assert.match(csp, /frame-ancestors/)
    assert.doesNotMatch(csp, /'unsafe-inline'|'unsafe-eval'/)
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff')
    assert.ok(res.headers.get('referrer-policy'))

    const page = await browser.newPage()
    try {
      const violations: string[] = []
      page.on('console', (m) => {
        if (/Content Security Policy/.test(m.text())) violations.push(m.text())
      })
      await page.exposeFunction('reportViolation', (v: string) => violations.push(v))
      await page.addInitScript(() => {
        document.addEventListener('securitypolicyviolation', (e) => {
          ;(window as unknown as { reportViolation(v: string): void }).reportViolation(
            `${e.violatedDirective} ${e.blockedURI} ${e.sample}`,
          )
        })
      })
      await page.goto(`${server.base}${path}`)
      await page.waitForSelector(ready, { timeout: patience(20_000) })
      await page.waitForTimeout(500)
      assert.deepEqual(violations, [])
    } finally {
      await page.close()
    }
  })
}
