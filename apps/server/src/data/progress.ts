/**
 * Progress of a long load on stderr: one line per step with rows, percent and rows/s, rewritten in place
 * on a terminal and printed every few seconds otherwise (logs, CI), then a final line per step.
 */
export interface ProgressSink {
  write(text: string): void
  readonly isTTY: boolean
}

export const stderrSink: ProgressSink = {
  write: (text) => void process.stderr.write(text),
  get isTTY() {
    return process.stderr.isTTY === true
  },
}

export const silentSink: ProgressSink = { write: () => undefined, isTTY: false }

const fmt = new Intl.NumberFormat('en-US')
export const formatCount = (n: number) => fmt.format(Math.round(n))

export function formatSeconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : ms < 120_000 ? `${Math.round(ms / 1000)} s` : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`
}

export interface StepProgress {
  /** rows written so far; `done` is the unit of the percentage (e.g. patients processed) when it differs */
  tick(rows?: number, done?: number): void
  finish(rows: number): void
}

export class Progress {
  private readonly started = Date.now()
  /** steps under way; with more than one (loads side by side) a terminal gets lines, not one rewritten line */
  private active = 0
  constructor(
    private readonly sink: ProgressSink = stderrSink,
    private readonly intervalMs = 2_000,
  ) {}

  line(text: string) {
    this.sink.write(`${text}\n`)
  }

  /** `total` is the expected amount of work in the unit of `done` (null when unknown). */
  step(label: string, total: number | null): StepProgress {
    const start = Date.now()
    let rows = 0
    let done = 0
    let lastPrint = start
    const name = label.padEnd(26)
    this.active++
    const rewrite = () => this.sink.isTTY === true && this.active === 1
    const render = (final: boolean) => {
      const elapsed = Date.now() - start
      const rate = elapsed > 0 ? (rows * 1000) / elapsed : 0
      const pct = total && total > 0 ? ` ${String(Math.min(100, Math.floor(((final ? total : done) * 100) / total))).padStart(3)}%` : ''
      return `  ${name} ${formatCount(rows).padStart(11)} rows${pct}  ${formatCount(rate).padStart(9)} rows/s  ${formatSeconds(elapsed)}`
    }
    return {
      tick: (n = 1, units?: number) => {
        rows += n
        done = units ?? done + n
        const now = Date.now()
        if (now - lastPrint < (rewrite() ? 200 : this.intervalMs)) return
        lastPrint = now
        this.sink.write(rewrite() ? `\r${render(false)}` : `${render(false)}\n`)
      },
      finish: (total_rows: number) => {
        rows = total_rows
        this.sink.write(rewrite() ? `\r${render(true)}\n` : `${render(true)}\n`)
        this.active = Math.max(0, this.active - 1)
      },
    }
  }

  elapsedMs() {
    return Date.now() - this.started
  }
}
