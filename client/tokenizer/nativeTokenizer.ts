/**
 * The pipeline's own native tokenizer from Node: one long-lived `ts-tokenize --batch` process
 * (the C++ library the tokenize steps link), asked line by line. Counts are without special
 * tokens, as GenAI-Perf and AIPerf count (`add_special_tokens=False`).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';

interface Answer {
  ids?: number[];
  text?: string;
  error?: string;
}

export class NativeTokenizer {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting: { resolve: (a: Answer) => void; reject: (e: Error) => void }[] = [];
  private stderr = '';
  private failure: Error | undefined;

  /**
   * @param binary `build/backends/tools/ts-tokenize` (the CLI builds it on first use)
   * @param tokenizer a `tokenizer.json`
   */
  constructor(
    binary: string,
    readonly tokenizer: string,
  ) {
    this.child = spawn(binary, [
      '--tokenizer',
      tokenizer,
      '--batch',
      '--no-special-tokens',
      '--skip-special-tokens',
    ]);
    this.child.stderr.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
    this.child.stdin.on('error', () => undefined); // a tokenizer that fails to load closes stdin early
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      this.waiting.shift()?.resolve(JSON.parse(line) as Answer);
    });
    const fail = (error: Error) => {
      this.failure ??= error;
      for (const w of this.waiting.splice(0)) w.reject(this.failure);
    };
    this.child.on('error', (e) => fail(new Error(`cannot run the native tokenizer ${binary}: ${e.message}`)));
    this.child.on('close', (code) =>
      fail(
        new Error(
          this.stderr.trim().replace(/^ts-tokenize: /, '') ||
            `the native tokenizer stopped (exit ${code ?? 'signal'})`,
        ),
      ),
    );
  }

  async encode(text: string): Promise<number[]> {
    return (await this.ask({ text })).ids ?? [];
  }

  async decode(ids: readonly number[]): Promise<string> {
    return (await this.ask({ ids })).text ?? '';
  }

  async count(text: string): Promise<number> {
    return (await this.encode(text)).length;
  }

  close(): void {
    this.child.stdin.end();
  }

  private ask(request: object): Promise<Answer> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<Answer>((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.child.stdin.write(`${JSON.stringify(request)}\n`);
    }).then((answer) => {
      if (answer.error !== undefined) throw new Error(`native tokenizer: ${answer.error}`);
      return answer;
    });
  }
}
