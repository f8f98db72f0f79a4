/** JSONL input datasets in GenAI-Perf / AIPerf's shape, and their errors. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readInputDataset } from '../../client/perf/inputs/dataset.js';

describe('JSONL datasets (GenAI-Perf / AIPerf input shape)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ts-dataset-'));
  it('reads text and output lengths', () => {
    const file = join(dir, 'ok.jsonl');
    writeFileSync(
      file,
      '{"text": "a"}\n\n{"text_input": "b", "output_length": 5}\n{"prompt": "c", "max_tokens": 2}\n',
    );
    expect(readInputDataset(file)).toEqual([
      { text: 'a', maxTokens: undefined },
      { text: 'b', maxTokens: 5 },
      { text: 'c', maxTokens: 2 },
    ]);
  });
  it('names the line that is wrong', () => {
    const file = join(dir, 'bad.jsonl');
    writeFileSync(file, '{"text": "a"}\n{"text": 1}\n');
    expect(() => readInputDataset(file)).toThrow(`${file}:2: needs a string "text"`);
    writeFileSync(file, 'nope\n');
    expect(() => readInputDataset(file)).toThrow(`${file}:1: not JSON`);
  });
});
