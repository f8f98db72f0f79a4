/**
 * The generation choice for streaming pipelines (docs/PIPELINE.md, "Streaming: the native
 * orchestrator"): a decoupled model step streaming into a detokenize step is served by the native
 * orchestrator unless the file or `generate` asks for the ensemble (warning TS-W011, the id
 * requirement); a pipeline the orchestrator cannot serve falls back to the ensemble with TS-W011
 * saying why, or is TS-E034 when the file insists on the orchestrator. Pipelines that do not
 * stream into a detokenize step are ensembles, with nothing said. The orchestrator serves pipelines
 * whose steps have TypeScript hooks: it compiles them in (what they do on the real server is
 * test/integration/orchestrator-hooks.test.ts); an ensemble of them is also warned (TS-W010) about
 * what its streaming detokenize step cannot run.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateRepository, validatePipeline, type Pipeline } from '../../generator/index.js';

const SAMPLE = resolve(__dirname, '../../samples/gpt2-sim/gpt2-sim.pipeline.json');
const CHAT = resolve(__dirname, '../../samples/llama2-tensorrt-llm/hooks/llama2-chat.ts');
const STOP = resolve(__dirname, '../../samples/gpt2-tensorrt-llm/hooks/stop-sequence.ts');
const work = mkdtempSync(join(tmpdir(), 'ts-serving-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function pipeline(edit: (p: Pipeline) => void = () => {}): Pipeline {
  const p = JSON.parse(readFileSync(SAMPLE, 'utf8')) as Pipeline;
  delete p.$schema;
  edit(p);
  return p;
}

const streaming = (p: Pipeline) => {
  p.steps.find((s) => s.kind === 'model')!.decoupled = true;
};

let n = 0;
function generate(p: Pipeline, serving?: 'ensemble' | 'orchestrator') {
  const file = join(work, `p${++n}.pipeline.json`);
  writeFileSync(file, JSON.stringify(p, null, 2));
  const out = join(work, `repo${n}`);
  const r = generateRepository({ pipelinePath: file, outDir: out, ...(serving && { serving }) });
  const codes = r.diagnostics.filter((d) => d.severity !== 'info').map((d) => d.code);
  return {
    r,
    out,
    codes,
    validated: validatePipeline(JSON.stringify(p), file).diagnostics.map((d) => d.code),
  };
}

describe('serving a streaming pipeline', () => {
  it('is the native orchestrator by default: the pipeline name, its tensors, decoupled, calling the model step', () => {
    const { r, out, codes } = generate(pipeline(streaming));
    expect(codes).toEqual([]);
    expect(r.serving).toBe('orchestrator');
    expect(r.models).toEqual([
      { name: 'gpt2_sim', kind: 'orchestrator' },
      { name: 'sim_llm', kind: 'model' },
    ]);
    const config = readFileSync(join(out, 'gpt2_sim', 'config.pbtxt'), 'utf8');
    expect(config).toMatch(/backend: "gpt2_sim"/);
    expect(config).toMatch(/name: "text_input"[\s\S]*name: "max_tokens"[\s\S]*name: "text_output"/);
    expect(config).toMatch(/key: "orchestrates"\s*value \{\s*string_value: "sim_llm"/);
    expect(config).toMatch(/decoupled: true/);
    expect(config).not.toMatch(/ensemble_scheduling/);
    const files = r.files.filter((f) => f.startsWith('gpt2_sim/'));
    expect(files).toContain('gpt2_sim/1/tokenizer.json');
  });

  it('is the ensemble with "serving": "ensemble" or generate --ensemble, warned about the request id', () => {
    for (const [p, serving] of [
      [pipeline((q) => (streaming(q), (q.serving = 'ensemble'))), undefined],
      [pipeline(streaming), 'ensemble'],
    ] as const) {
      const { r, codes } = generate(p, serving);
      expect(r.serving).toBe('ensemble');
      expect(r.models.map((m) => m.kind)).toEqual(['ensemble', 'tokenize', 'model', 'detokenize']);
      expect(codes).toEqual(['TS-W011']);
      expect(r.diagnostics.find((d) => d.code === 'TS-W011')!.message).toMatch(
        /unique among requests in flight/,
      );
    }
  });

  it('falls back to the ensemble, saying why, when the orchestrator cannot serve the pipeline', () => {
    // A second output (the sequence lengths) is more than the orchestrator's one text output.
    const extra = (p: Pipeline) => {
      streaming(p);
      p.outputs.push({ name: 'seq_len', dataType: 'UINT32', dims: [-1] });
      p.wires.push({ from: 'sim_llm.sequence_length', to: 'seq_len' });
    };
    const fallback = generate(pipeline(extra));
    expect(fallback.r.serving).toBe('ensemble');
    expect(fallback.codes).toEqual(['TS-W011']);
    expect(fallback.r.diagnostics[0]!.message).toMatch(/cannot serve it \(it has one output, the text/);
    expect(fallback.validated).toContain('TS-W011');

    const insisted = generate(pipeline((p) => (extra(p), (p.serving = 'orchestrator'))));
    expect(insisted.codes).toEqual(['TS-E034']);
    expect(insisted.r.files).toEqual([]);
  });

  it('leaves pipelines that do not stream into a detokenize step as ensembles, with nothing said', () => {
    const { r, codes } = generate(pipeline((p) => (p.serving = 'orchestrator')));
    expect(r.serving).toBe('ensemble');
    expect(codes).toEqual([]);
  });
});

describe('serving a streaming pipeline with TypeScript hooks', () => {
  /** The chat template before encoding (with its system_prompt input), the stop hook per chunk. */
  const hooked = (pre: string, post: string) => (p: Pipeline) => {
    streaming(p);
    p.steps.find((s) => s.kind === 'tokenize')!.hooks = pre;
    p.steps.find((s) => s.kind === 'detokenize')!.hooks = post;
    p.inputs.push({ name: 'system_prompt', dataType: 'STRING', dims: [1], optional: true });
    p.wires.push({ from: 'system_prompt', to: 'preprocessing.system_prompt' });
  };

  it("is the orchestrator, with both steps' hooks compiled into its library and the hook input a request input", () => {
    const { r, out, codes } = generate(pipeline(hooked(CHAT, STOP)));
    expect(codes).toEqual([]);
    expect(r.serving).toBe('orchestrator');
    expect(r.models.map((m) => m.kind)).toEqual(['orchestrator', 'model']);
    const config = readFileSync(join(out, 'gpt2_sim', 'config.pbtxt'), 'utf8');
    expect(config).toMatch(/name: "system_prompt"\s*data_type: TYPE_STRING\s*dims: \[ 1 \]\s*optional: true/);
    const src = `${out}.src/gpt2_sim`;
    const step = readFileSync(join(src, 'step.cc'), 'utf8');
    expect(step).toMatch(/#include "module.h"\n#include "detokenize_module.h"/);
    expect(step).toMatch(/namespace mod = ts_llama2_chat;[\s\S]*h\.input_names = \{"system_prompt"\};/);
    expect(step).toMatch(/namespace mod = ts_stop_sequence;[\s\S]*h\.on_chunk = /);
    expect(step).toContain('s.tokenize_hooks = tokenize_hooks::Hooks();');
    expect(step).toContain('s.detokenize_hooks = detokenize_hooks::Hooks();');
    // Only the hooks each step's kind calls: the chat module's afterDecode is not the detokenize step's.
    expect(step.split('namespace detokenize_hooks')[0]).not.toContain('after_decode');
    expect(readFileSync(join(src, 'module.h'), 'utf8')).toContain('namespace ts_llama2_chat {');
    expect(readFileSync(join(src, 'detokenize_module.h'), 'utf8')).toContain('namespace ts_stop_sequence {');
  });

  it('compiles one module once when both steps name it', () => {
    const { r, out, codes } = generate(pipeline(hooked(CHAT, CHAT)));
    expect(codes).toEqual([]);
    expect(r.serving).toBe('orchestrator');
    const step = readFileSync(join(`${out}.src/gpt2_sim`, 'step.cc'), 'utf8');
    expect(step.match(/#include "module.h"/g)).toHaveLength(1);
    expect(step).not.toContain('detokenize_module.h');
    expect(step).toMatch(
      /namespace detokenize_hooks \{\nnamespace mod = ts_llama2_chat;[\s\S]*h\.after_decode = /,
    );
    expect(r.files.some((f) => f.endsWith('detokenize_module.h'))).toBe(false);
  });

  it('as an ensemble, warns what its streaming detokenize step cannot run (TS-W010) beside TS-W011', () => {
    const { r, codes } = generate(pipeline(hooked(CHAT, STOP)), 'ensemble');
    expect(r.serving).toBe('ensemble');
    expect(codes.sort()).toEqual(['TS-W010', 'TS-W011']);
    expect(r.diagnostics.find((d) => d.code === 'TS-W010')!.message).toMatch(/endStream runs only|end token/);
  });

  it('falls back to the ensemble when the two steps name different modules of one file name', () => {
    const dir = join(work, 'same-name');
    for (const sub of ['pre', 'post']) mkdirSync(join(dir, sub), { recursive: true });
    writeFileSync(join(dir, 'pre', 'hooks.ts'), readFileSync(CHAT, 'utf8'));
    writeFileSync(join(dir, 'post', 'hooks.ts'), readFileSync(STOP, 'utf8'));
    const { r, codes } = generate(
      pipeline(hooked(join(dir, 'pre', 'hooks.ts'), join(dir, 'post', 'hooks.ts'))),
    );
    expect(r.serving).toBe('ensemble');
    expect(codes.sort()).toEqual(['TS-W010', 'TS-W011']);
    expect(r.diagnostics.find((d) => d.code === 'TS-W011')!.message).toMatch(
      /two modules with one file name \(ts_hooks\).*rename one/,
    );
  });
});
