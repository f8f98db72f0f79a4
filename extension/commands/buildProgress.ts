/**
 * Build Backends' progress line: the stage by name (the shared backends, then each model) and a
 * percentage that only goes forward. Each stage is an equal share; within it CMake's own
 * `[ NN%]` lines move the bar (CMake restarts at 0% for every target and every project).
 */
export class BuildProgress {
  private stage = { name: 'starting', index: 0, total: 1 };
  private within = 0;
  private shown = 0;

  constructor(private readonly report: (message: string, increment: number) => void) {}

  /** A stage starts (buildRepository's onStage). */
  enter(stage: { name: string; index: number; total: number }): void {
    this.stage = stage;
    this.within = 0;
    this.update('');
  }

  /** A raw output line: CMake's `[ NN%] …` moves the bar within the stage. */
  line(line: string): void {
    const m = /\[\s*(\d+)%\]\s*(.*)/.exec(line);
    if (!m) return;
    this.within = Math.max(this.within, Number(m[1]) / 100);
    this.update(m[2]!.slice(0, 70));
  }

  /** The percentage shown so far (0-100, never decreasing). */
  get percent(): number {
    return this.shown;
  }

  private update(detail: string): void {
    const { index, total, name } = this.stage;
    const overall = Math.floor(((index + this.within) / total) * 100);
    const next = Math.max(this.shown, Math.min(99, overall));
    const increment = next - this.shown;
    this.shown = next;
    this.report(`${next}% · step ${index + 1}/${total}: ${name}${detail ? ` — ${detail}` : ''}`, increment);
  }
}
