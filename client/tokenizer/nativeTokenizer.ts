/**
 * The pipeline's own native tokenizer from Node: one long-lived `ts-tokenize --batch` process
 * (the C++ library the tokenize steps link), asked line by line. Counts are without special
 * tokens, as GenAI-Perf and AIPerf count (`add_special_tokens=False`).
 *
 * One caller's bad input fails only that caller's promise: text that is not Unicode (a lone
 * surrogate) is refused here, and a process that stops (killed, out of memory) fails the questions
 * it held and is started again for the next one.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';

interface Answer {
  ids?: number[];
  text?: string;
  error?: string;
}

interface Waiting {
  resolve: (a: Answer) => void;
  reject: (e: Error) => void;
}

/** A process that fails this often in a row is not started again (the binary or file is bad). */
const MAX_RESTARTS = 3;

/** With the `u` flag a paired surrogate is one code point: only a lone one is `Cs`. */
const LONE_SURROGATE = /\p{Cs}/u;

export class NativeTokenizer {
  private child!: ChildProcessWithoutNullStreams;
  private waiting: Waiting[] = [];
  private stderr = '';
  /** Set when the process cannot serve again (it failed to start, or stopped too often). */
  private failure: Error | undefined;
  private restarts = 0;
  private closed = false;

  /**
   * @param binary `build/backends/tools/ts-tokenize` (the CLI builds it on first use)
   * @param tokenizer a `tokenizer.json`
   */
  constructor(
    private readonly binary: string,
    readonly tokenizer: string,
  ) {
    this.start();
  }

  async encode(text: string): Promise<number[]> {
    const lone = LONE_SURROGATE.exec(text);
    if (lone) {
      throw new Error(
        `native tokenizer: the text holds a lone UTF-16 surrogate (\\u${lone[0].charCodeAt(0).toString(16)} ` +
          `at offset ${lone.index}), which is not Unicode text`,
      );
    }
    return (await this.ask({ text })).ids ?? [];
  }

  async decode(ids: readonly number[]): Promise<string> {
    return (await this.ask({ ids })).text ?? '';
  }

  async count(text: string): Promise<number> {
    return (await this.encode(text)).length;
  }

  close(): void {
    this.closed = true;
    this.child.stdin.end();
  }

  private start(): void {
    const child = spawn(this.binary, [
      '--tokenizer',
      this.tokenizer,
      '--batch',
      '--no-special-tokens',
      '--skip-special-tokens',
    ]);
    this.child = child;
    this.stderr = '';
    const waiting: Waiting[] = [];
    this.waiting = waiting;
    child.stderr.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
    child.stdin.on('error', () => undefined); // a tokenizer that fails to load closes stdin early
    createInterface({ input: child.stdout }).on('line', (line) => {
      const next = waiting.shift();
      if (!next) return;
      try {
        next.resolve(JSON.parse(line) as Answer);
        this.restarts = 0;
      } catch {
        next.reject(new Error(`native tokenizer: an answer that is not JSON: ${line.slice(0, 200)}`));
      }
    });
    const fail = (error: Error, final: boolean) => {
      if (final) this.failure ??= error;
      for (const w of waiting.splice(0)) w.reject(error);
    };
    child.on('error', (e) =>
      fail(new Error(`cannot run the native tokenizer ${this.binary}: ${e.message}`), true),
    );
    child.on('close', (code, signal) => {
      const error = new Error(
        this.stderr.trim().replace(/^ts-tokenize: /, '') ||
          `the native tokenizer stopped (${code !== null ? `exit ${code}` : `signal ${signal}`})`,
      );
      // Stopping with an exit status is the tokenizer refusing its file: that will not change.
      fail(error, this.closed || code !== null || ++this.restarts > MAX_RESTARTS);
    });
  }

  private ask(request: object): Promise<Answer> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.child.exitCode !== null || this.child.signalCode !== null) this.start();
    const line = `${JSON.stringify(request)}\n`;
    return new Promise<Answer>((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.child.stdin.write(line);
    }).then((answer) => {
      if (answer.error !== undefined) throw new Error(`native tokenizer: ${answer.error}`);
      return answer;
    });
  }
}
