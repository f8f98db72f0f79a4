/**
 * TypeScript modules in the pipeline file: `"hooks"` on tokenize/detokenize steps and `"kind":
 * "custom"` + `"source"`. The module's declared inputs and outputs become ports of the step (the
 * wiring and the graph see them), and every mistake is a coded diagnostic at the exact text.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildGraphModel } from '../../extension/graphEditor/host/graphModel.js';
import {
  checkPipeline,
  formatDiagnostic,
  parsePipeline,
  validatePipeline,
  type Diagnostic,
  type Pipeline,
} from '../../generator/index.js';

const ROOT = resolve(__dirname, '../..');
const GPT2_SIM = join(ROOT, 'samples/gpt2-sim/gpt2-sim.pipeline.json');
let dir: string;
let file: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ts-modules-'));
  mkdirSync(join(dir, 'hooks'));
  mkdirSync(join(dir, 'steps'));
  copyFileSync(join(ROOT, 'samples/llama2-tensorrt-llm/hooks/llama2-chat.ts'), join(dir, 'hooks/chat.ts'));
  copyFileSync(join(ROOT, 'samples/gpt2-tensorrt-llm/hooks/stop-sequence.ts'), join(dir, 'hooks/stop.ts'));
  copyFileSync(join(ROOT, 'samples/distilbert-onnx/steps/label.ts'), join(dir, 'steps/label.ts'));
  writeFileSync(
    join(dir, 'hooks/regex.ts'),
    'export function afterDecode(text: string): string {\n  return text.replace(/a/g, "b");\n}\n',
  );
  writeFileSync(
    join(dir, 'hooks/wrong.ts'),
    'export function afterDecode(text: string, n: number): string {\n  return text;\n}\n',
  );
  writeFileSync(
    join(dir, 'hooks/half.ts'),
    'export interface StreamState { n: number }\nexport function startStream(): StreamState {\n  return { n: 0 };\n}\n',
  );
  file = join(dir, 'x.pipeline.json');
});

const base = (): Pipeline => JSON.parse(readFileSync(GPT2_SIM, 'utf8')) as Pipeline;
const step = (p: Pipeline, name: string) => p.steps.find((s) => s.name === name)!;

function covered(text: string, d: Diagnostic): string {
  const lines = text.split('\n');
  const offset = (q: { line: number; column: number }) =>
    lines.slice(0, q.line).reduce((n, l) => n + l.length + 1, 0) + q.column;
  return text.slice(offset(d.range.start), offset(d.range.end));
}

function validate(p: Pipeline) {
  const text = JSON.stringify(p, null, 2);
  const result = validatePipeline(text, file, { environment: false });
  return { ...result, text, errors: result.diagnostics.filter((d) => d.severity !== 'info') };
}

/** The chat hook on the gpt2-sim tokenize step, its system_prompt wired from a new ensemble input. */
function withChatHook(): Pipeline {
  const p = base();
  step(p, 'preprocessing').hooks = 'hooks/chat.ts';
  p.inputs.push({ name: 'system_prompt', dataType: 'STRING', dims: [1], optional: true });
  p.wires.push({ from: 'system_prompt', to: 'preprocessing.system_prompt' });
  return p;
}

describe('hooks on tokenize and detokenize steps', () => {
  it('HookInputs fields become optional STRING [1] inputs of the step, wired like any port', () => {
    const r = validate(withChatHook());
    expect(r.errors.map(formatDiagnostic)).toEqual([]);
    const pre = r.steps!.find((s) => s.name === 'preprocessing')!;
    const port = pre.inputs.find((q) => q.name === 'system_prompt')!;
    expect(port).toMatchObject({ dataType: 'STRING', dims: [1], optional: true, fromModule: true });
    expect(port.role).toBeUndefined();
    expect(r.graph!.inputMap.get('preprocessing')!.get('system_prompt')).toBe('system_prompt');
  });

  it('a wire to an input the module does not declare is TS-E011, naming the hook input among the ports', () => {
    const p = withChatHook();
    p.wires.at(-1)!.to = 'preprocessing.system';
    const r = validate(p);
    expect(r.errors.map((d) => d.code)).toContain('TS-E011');
    const d = r.errors.find((x) => x.code === 'TS-E011')!;
    expect(d.message).toContain('system_prompt');
  });

  it('a wire into a hook input checks dtypes like any port (TS-E012)', () => {
    const p = withChatHook();
    p.inputs.at(-1)!.dataType = 'INT32';
    expect(validate(p).errors.map((d) => d.code)).toEqual(['TS-E012']);
  });

  it('a module that does not exist is TS-E082 at the "hooks" value', () => {
    const p = base();
    step(p, 'postprocessing').hooks = 'hooks/none.ts';
    const r = validate(p);
    expect(r.errors.map((d) => d.code)).toEqual(['TS-E082']);
    expect(covered(r.text, r.errors[0]!)).toBe('"hooks/none.ts"');
    expect(r.errors[0]!.message).toContain('no such file');
  });

  it('a module outside the subset is TS-E083 at "hooks", with its own TS-E080 at the exact range in the module', () => {
    const p = base();
    step(p, 'postprocessing').hooks = 'hooks/regex.ts';
    const r = validate(p);
    expect(r.errors.map((d) => d.code).sort()).toEqual(['TS-E080', 'TS-E083']);
    const own = r.errors.find((d) => d.code === 'TS-E080')!;
    expect(own.file).toBe(join(dir, 'hooks/regex.ts'));
    expect(own.range.start).toEqual({ line: 1, column: 22 });
    const at = r.errors.find((d) => d.code === 'TS-E083')!;
    expect(covered(r.text, at)).toBe('"hooks/regex.ts"');
    expect(at.message).toMatch(/does not compile \(1 error; the first, at 2:23: regular expressions/);
  });

  it('a hook with another signature is TS-E084 saying the signature', () => {
    const p = base();
    step(p, 'postprocessing').hooks = 'hooks/wrong.ts';
    const r = validate(p);
    expect(r.errors.map((d) => d.code)).toEqual(['TS-E084']);
    expect(r.errors[0]!.message).toContain('afterDecode must be afterDecode(text: string): string');
  });

  it('half of the streaming trio is TS-E084 naming the missing exports', () => {
    const p = base();
    step(p, 'postprocessing').hooks = 'hooks/half.ts';
    const r = validate(p);
    expect(r.errors.map((d) => d.code)).toEqual(['TS-E084']);
    expect(r.errors[0]!.message).toContain('export onChunk and endStream too');
  });

  it('a module with no hook for the step kind is warning TS-W009', () => {
    const p = base();
    step(p, 'preprocessing').hooks = 'hooks/stop.ts';
    const r = validate(p);
    expect(r.errors.map((d) => `${d.code} ${d.severity}`)).toEqual(['TS-W009 warning']);
    expect(r.errors[0]!.message).toContain('beforeEncode');
  });

  it('one module serves both steps: beforeEncode in tokenize, afterDecode in detokenize', () => {
    const p = withChatHook();
    step(p, 'postprocessing').hooks = 'hooks/chat.ts';
    const r = validate(p);
    expect(r.errors).toEqual([]);
    const post = r.steps!.find((s) => s.name === 'postprocessing')!;
    expect(post.module?.hooks?.hooks).toEqual(['afterDecode']);
    expect(post.inputs.some((q) => q.fromModule)).toBe(false); // HookInputs are the tokenize step's
  });

  it('"hooks" on a model step is TS-E084 at the property name', () => {
    const p = base();
    step(p, 'sim_llm').hooks = 'hooks/chat.ts';
    const r = validate(p);
    expect(r.errors.map((d) => d.code)).toEqual(['TS-E084']);
    expect(covered(r.text, r.errors[0]!)).toBe('"hooks"');
  });

  it('a changed module is compiled again (compilations are kept per file version)', () => {
    const p = base();
    step(p, 'postprocessing').hooks = 'hooks/changing.ts';
    writeFileSync(
      join(dir, 'hooks/changing.ts'),
      'export function afterDecode(text: string): string {\n  return text;\n}\n',
    );
    expect(validate(p).errors).toEqual([]);
    writeFileSync(
      join(dir, 'hooks/changing.ts'),
      'export function afterDecode(text: string): string {\n  return text.match(/x/) ? "" : text;\n}\n',
    );
    expect(
      validate(p)
        .errors.map((d) => d.code)
        .sort(),
    ).toEqual(['TS-E080', 'TS-E083']);
  });

  it('without a module lookup (checkPipeline alone) wires to module ports are not judged', () => {
    const text = JSON.stringify(withChatHook(), null, 2);
    const parsed = parsePipeline(text, file);
    expect(checkPipeline(parsed.pipeline!, parsed.source).diagnostics).toEqual([]);
    expect(validatePipeline(text, file, { environment: false, modules: false }).diagnostics).toEqual([]);
  });
});

describe('custom steps written in TypeScript ("kind": "custom", "source")', () => {
  const labelled = (): Pipeline => {
    const p = base();
    p.outputs.push({ name: 'label', dataType: 'STRING', dims: [1] });
    p.steps.push({
      name: 'label_step',
      kind: 'custom',
      source: 'steps/label.ts',
      parameters: { labels: 'NEGATIVE,POSITIVE' },
    });
    p.inputs.push({ name: 'logits', dataType: 'FP32', dims: [2] });
    p.wires.push({ from: 'logits', to: 'label_step.logits' }, { from: 'label_step.label', to: 'label' });
    return p;
  };

  it('its ports come from the fields of Row and Out; it needs no backend', () => {
    const r = validate(labelled());
    expect(r.errors.filter((d) => d.code !== 'TS-W001')).toEqual([]);
    const s = r.steps!.find((x) => x.name === 'label_step')!;
    expect(s.inputs.map((q) => [q.name, q.dataType, q.dims])).toEqual([['logits', 'FP32', [2]]]);
    expect(s.outputs.map((q) => [q.name, q.dataType, q.dims])).toEqual([
      ['label', 'STRING', [1]],
      ['score', 'FP32', [1]],
    ]);
  });

  it('a parameter the module reads and the step does not set is TS-E085', () => {
    const p = labelled();
    delete step(p, 'label_step').parameters;
    const r = validate(p);
    expect(r.errors.map((d) => d.code)).toEqual(['TS-E085']);
    expect(covered(r.text, r.errors[0]!)).toBe('"steps/label.ts"');
    expect(r.errors[0]!.message).toContain('"labels"');
  });

  it('a backend on it is TS-E054: it is its own backend', () => {
    const p = labelled();
    step(p, 'label_step').backend = 'python';
    const r = validate(p);
    expect(r.errors.map((d) => d.code)).toEqual(['TS-E054']);
    expect(covered(r.text, r.errors[0]!)).toBe('"python"');
  });

  it('it answers each request once on the CPU: "decoupled" is TS-E032, GPU instances TS-W005', () => {
    const p = labelled();
    step(p, 'label_step').decoupled = true;
    let r = validate(p);
    expect(r.errors.map((d) => d.code)).toEqual(['TS-E032']);
    expect(r.errors[0]!.message).toContain('TypeScript custom steps answer each request once');
    delete step(p, 'label_step').decoupled;
    step(p, 'label_step').instanceGroups = [{ count: 1, kind: 'GPU' }];
    r = validate(p);
    expect(r.errors.map((d) => d.code)).toEqual(['TS-W005']);
    expect(r.errors[0]!.message).toContain('TypeScript custom steps run on the CPU only');
  });

  it('a wire of the wrong dtype into a module port is TS-E012', () => {
    const p = labelled();
    p.inputs.at(-1)!.dataType = 'FP64';
    expect(validate(p).errors.map((d) => d.code)).toEqual(['TS-E012']);
  });

  it('"source" on a tokenize step is TS-E084 pointing at "hooks" instead', () => {
    const p = base();
    step(p, 'preprocessing').source = 'steps/label.ts';
    const r = validate(p);
    expect(r.errors.map((d) => d.code)).toEqual(['TS-E084']);
    expect(r.errors[0]!.message).toContain('"hooks"');
  });

  it('a module that is no custom step is TS-E084', () => {
    const p = labelled();
    step(p, 'label_step').source = 'hooks/chat.ts';
    const r = validate(p);
    expect(r.errors.map((d) => d.code)).toEqual(['TS-E084']);
    expect(r.errors[0]!.message).toContain('export function execute');
  });
});

describe('the graph editor sees module ports', () => {
  it('a hook input is a port of the tokenize node, its wire drawn; a custom step node has its typed ports', () => {
    const built = buildGraphModel(JSON.stringify(withChatHook(), null, 2), file);
    if (!built.ok) throw new Error('not a pipeline');
    const pre = built.model.nodes.find((n) => n.kind === 'step' && n.name === 'preprocessing')!;
    expect(pre.kind === 'step' && pre.inputs.map((q) => q.name)).toContain('system_prompt');
    // Marked as the module's (the editor draws them so), the preset's own ports are not.
    expect(pre.kind === 'step' && pre.inputs.filter((q) => q.fromModule).map((q) => q.name)).toEqual([
      'system_prompt',
    ]);
    expect(built.model.wires.some((w) => w.targetPort === 'system_prompt')).toBe(true);
    expect(built.model.danglingWires).toEqual([]);
    expect(built.model.problems.filter((q) => q.severity === 'error')).toEqual([]);

    const distilbert = join(ROOT, 'samples/distilbert-onnx/distilbert-onnx.pipeline.json');
    const sample = buildGraphModel(readFileSync(distilbert, 'utf8'), distilbert);
    if (!sample.ok) throw new Error('not a pipeline');
    const label = sample.model.nodes.find((n) => n.kind === 'step' && n.name === 'label')!;
    expect(label.kind === 'step' && [label.inputs, label.outputs].map((ps) => ps.map((q) => q.name))).toEqual(
      [['logits'], ['label', 'score']],
    );
    expect(label.kind === 'step' && [...label.inputs, ...label.outputs].every((q) => q.fromModule)).toBe(
      true,
    );
  });
});
