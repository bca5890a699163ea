/** The job queue: how many jobs of each kind are in each state, and the dead ones, each with Retry. */
import { html, nothing } from 'lit'
import type { JobView, Page } from '../../core/application/admin.ts'
import type { JobCount } from '../../core/ports/records.ts'
import { ConsolePage } from '../page.ts'
import { when } from '../format.ts'

export class ConsoleJobs extends ConsolePage {
  static override properties = {
    ...ConsolePage.properties,
    counts: { state: true },
    dead: { state: true },
    outcome: { state: true },
  }
  counts: JobCount[] | null = null
  dead: JobView[] = []
  outcome = ''

  override connectedCallback() {
    super.connectedCallback()
    void this.load()
  }

  private async load() {
    await this.run(async () => {
      this.counts = (await this.api.get<{ counts: JobCount[] }>('/jobs')).counts
      this.dead = (await this.api.get<Page<JobView>>('/jobs/dead', { limit: '200' })).data
    })
  }

  private async retry(job: JobView) {
    const r = await this.run(() => this.api.post<JobView>(`/jobs/${encodeURIComponent(job.job_id)}/retry`))
    if (!r) return
    this.outcome = `Job ${r.job_id} (${r.kind}) is ${r.status} again: a worker runs it now.`
    await this.load()
    await this.updateComplete
    this.renderRoot.querySelector<HTMLElement>('h2#dead')?.focus()
  }

  override render() {
    const readOnly = this.session?.operator.read_only ?? true
    const kinds = [...new Set((this.counts ?? []).map((c) => c.kind))]
    return html`<h1 tabindex="-1">Jobs</h1>
      ${this.renderStatus()}
      <p role="status">${this.outcome || nothing}</p>
      <h2>By kind and state</h2>
      ${this.counts?.length === 0 ? html`<p>No jobs.</p>` : nothing}
      <ul class="cards" aria-label="Job counts">
        ${kinds.map(
          (k) =>
            html`<li>
              <h3>${k}</h3>
              <dl>
                ${(this.counts ?? [])
                  .filter((c) => c.kind === k)
                  .map((c) => html`<dt>${c.status}</dt><dd>${c.count}</dd>`)}
              </dl>
            </li>`,
        )}
      </ul>
      <h2 id="dead" tabindex="-1">Dead jobs</h2>
      ${
        this.dead.length === 0
          ? html`<p>No dead jobs.</p>`
          : html`<ul class="cards" aria-label="Dead jobs">
            ${this.dead.map(
              (j) =>
                html`<li>
                  <h3>${j.kind} <span class="id muted">${j.job_id}</span></h3>
                  <dl>
                    <dt>Attempts</dt>
                    <dd>${j.attempts} of ${j.max_attempts}</dd>
                    <dt>Last error</dt>
                    <dd>${j.last_error ?? '—'}</dd>
                    <dt>Created</dt>
                    <dd>${when(j.created_at)}</dd>
                  </dl>
                  ${
                    readOnly
                      ? nothing
                      : html`<div class="actions">
                        <button @click=${() => this.retry(j)} aria-label="Retry job ${j.job_id}">Retry</button>
                      </div>`
                  }
                </li>`,
            )}
          </ul>`
      }`
  }
}
customElements.define('svc-console-jobs', ConsoleJobs)
