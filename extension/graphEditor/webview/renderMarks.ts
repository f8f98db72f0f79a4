/**
 * Date.now() at the stages of the version being drawn, reported with 'rendered' (the tests' and
 * benchmarks' clock; docs/BENCHMARKS.md). The first document keeps the page's own stages
 * (navigation, script start, ready); each later one starts afresh.
 */
export class RenderMarks {
  private stages: Record<string, number>;

  constructor(scriptStart: number) {
    this.stages = { navigationStart: Math.round(performance.timeOrigin), scriptStart };
  }

  documentReceived(): void {
    this.stages = { ...(this.stages.documentReceived ? {} : this.stages), documentReceived: Date.now() };
  }

  set(stage: 'ready' | 'committed'): void {
    this.stages[stage] = Date.now();
  }

  get current(): Record<string, number> {
    return this.stages;
  }
}
