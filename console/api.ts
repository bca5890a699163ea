/**
 * The console's client of the admin API (docs/operations.md) and of its own session (server/plugins/console.ts).
 * It sends no key: the session cookie goes with every same-origin request by itself, and every write carries
 * the session's CSRF token as `X-CSRF-Token`, which the page keeps in memory only (never in storage).
 */
export interface ConsoleSessionInfo {
  operator: { name: string; seller_id: string | null; read_only: boolean }
  csrf_token: string
  expires_at: string
}

/** An answer other than 2xx: the problem's detail, to show as it is (as text). */
export class ConsoleError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

export class ConsoleApi {
  private csrf = ''
  /** Called when the session is gone (401): the page goes back to sign-in. */
  onSignedOut: () => void = () => {}

  /** The current session, or null when none (not signed in, or it ended). */
  async session(): Promise<ConsoleSessionInfo | null> {
    try {
      const s = await this.request<ConsoleSessionInfo>('GET', '/console/session', undefined, false)
      this.csrf = s.csrf_token
      return s
    } catch (e) {
      if (e instanceof ConsoleError && e.status === 401) return null
      throw e
    }
  }

  async signIn(operatorKey: string): Promise<ConsoleSessionInfo> {
    const s = await this.request<ConsoleSessionInfo>('POST', '/console/session', { operator_key: operatorKey }, false)
    this.csrf = s.csrf_token
    return s
  }

  async signOut(): Promise<void> {
    await this.request('DELETE', '/console/session', undefined, false)
    this.csrf = ''
  }

  get<T>(path: string, query: Record<string, string | undefined> = {}): Promise<T> {
    const q = new URLSearchParams(Object.entries(query).filter((e): e is [string, string] => !!e[1]))
    return this.request<T>('GET', `/admin/v1${path}${q.size ? `?${q}` : ''}`)
  }

  post<T>(path: string, body: unknown = {}): Promise<T> {
    return this.request<T>('POST', `/admin/v1${path}`, body)
  }

  private async request<T>(method: string, url: string, body?: unknown, watch = true): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' }
    if (body !== undefined) headers['content-type'] = 'application/json'
    if (method !== 'GET' && this.csrf) headers['x-csrf-token'] = this.csrf
    const res = await fetch(url, {
      method,
      headers,
      credentials: 'same-origin',
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    })
    if (res.status === 204) return undefined as T
    const data = (await res.json().catch(() => ({}))) as { detail?: string; code?: string }
    if (!res.ok) {
      if (res.status === 401 && watch) this.onSignedOut()
      throw new ConsoleError(res.status, data.code ?? 'error', data.detail ?? `The service answered ${res.status}.`)
    }
    return data as T
  }
}
