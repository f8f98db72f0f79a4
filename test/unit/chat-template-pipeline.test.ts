/**
 * A tokenize step that takes conversations, on the generator's and the client's side: where its
 * chat template and end tokens come from (TS-E057 when there is none), what its C++ spec says, and
 * how openai-serve hands a chat to a pipeline's `messages` inputs and OpenAI's sampling fields to
 * TensorRT-LLM's input names. The rendering itself runs on the real server
 * (test/integration/chat-template-serving.test.ts).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeBytesTensor } from '../../client/grpc/tensors.js';
import type { ModelConfig } from '../../client/grpc/types.js';
import { ApiError, parseRequest } from '../../client/openai/protocol.js';
import { promptInputs } from '../../client/prompt.js';
import { NativeStepCodegenError, renderNativeStep } from '../../generator/codegen/cpp/index.js';
import type { TokenizeStepModel } from '../../generator/codegen/nativeStep.js';
import { endTokenIds } from '../../generator/pipeline/chatTemplates.js';
import { generateRepository, validatePipeline } from '../../generator/index.js';

const ROOT = resolve(__dirname, '../..');
const SAMPLE = join(ROOT, 'samples/llama3.1-tensorrt-llm');
const LLAMA = join(ROOT, '.cache/tokenizers/llama-3.1');
const work = mkdtempSync(join(tmpdir(), 'ts-chat-pipeline-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The Llama-3.1 sample in a folder of its own, its tokenizer a copy there (with or without its config). */
function sample(
  name: string,
  options: { tokenizerConfig: boolean; edit?: (p: Record<string, unknown>) => void },
) {
  const dir = join(work, name);
  cpSync(SAMPLE, dir, { recursive: true });
  cpSync(join(LLAMA, 'tokenizer.json'), join(dir, 'tok/tokenizer.json'));
  if (options.tokenizerConfig)
    cpSync(join(LLAMA, 'tokenizer_config.json'), join(dir, 'tok/tokenizer_config.json'));
  const file = join(dir, 'llama3.1-tensorrt-llm.pipeline.json');
  const pipeline = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  for (const step of pipeline.steps as { tokenizer?: string }[]) if (step.tokenizer) step.tokenizer = './tok';
  options.edit?.(pipeline);
  const text = JSON.stringify(pipeline, null, 2);
  writeFileSync(file, text);
  return { file, text, dir };
}

const errors = (text: string, file: string) =>
  validatePipeline(text, file).diagnostics.filter((d) => d.severity === 'error');

describe('the chat template of a tokenize step with a messages port', () => {
  it('is the tokenizer_config.json beside the tokenizer, copied into the version folder with the end tokens in the spec', () => {
    const { file } = sample('beside', { tokenizerConfig: true });
    const out = join(work, 'beside-repo');
    const generated = generateRepository({ pipelinePath: file, outDir: out });
    expect(generated.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(readFileSync(join(out, 'llama3_1/1/tokenizer_config.json'), 'utf8')).toBe(
      readFileSync(join(LLAMA, 'tokenizer_config.json'), 'utf8'),
    );
    const step = readFileSync(join(`${out}.src`, 'llama3_1/step.cc'), 'utf8');
    expect(step).toContain('s.tokenize.chat_template_file = "tokenizer_config.json";');
    // eos_token <|eot_id|>, then generation_config.json's list without repeats.
    expect(step).toContain('s.tokenize.end_ids = {128009, 128001, 128008};');
    // A request sends the prompt or the conversation.
    const config = readFileSync(join(out, 'llama3_1/config.pbtxt'), 'utf8');
    expect(config).toMatch(
      /name: "text_input"\n\s+data_type: TYPE_STRING\n\s+dims: \[ 1 \]\n\s+optional: true/,
    );
  });

  it('is missing: TS-E057 on the tokenizer, saying what to do', () => {
    const { file, text } = sample('missing', { tokenizerConfig: false });
    const found = errors(text, file);
    expect(found.map((d) => d.code)).toEqual(['TS-E057']);
    expect(found[0]!.message).toMatch(/tokenizer_config\.json does not exist.*"chatTemplate"/);
  });

  it('is a Jinja file the step names, with the tokenizer config beside the tokenizer for its special tokens', () => {
    const { file } = sample('jinja', {
      tokenizerConfig: true,
      edit: (p) => ((p.steps as Record<string, unknown>[])[0]!.chatTemplate = 'chat.jinja'),
    });
    writeFileSync(join(file, '..', 'chat.jinja'), '{{ bos_token }}{{ messages[0].content }}');
    const out = join(work, 'jinja-repo');
    const generated = generateRepository({ pipelinePath: file, outDir: out });
    expect(generated.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(readFileSync(join(out, 'llama3_1/1/chat_template.jinja'), 'utf8')).toContain('bos_token');
    expect(readFileSync(join(`${out}.src`, 'llama3_1/step.cc'), 'utf8')).toContain(
      'chat_template_file = "chat_template.jinja"',
    );
  });

  it('names files that do not exist: TS-E057 on the field', () => {
    const { file, text } = sample('absent', {
      tokenizerConfig: true,
      edit: (p) => {
        const step = (p.steps as Record<string, unknown>[])[0]!;
        step.chatTemplate = 'nowhere.jinja';
      },
    });
    expect(errors(text, file).map((d) => [d.code, d.message.includes('nowhere.jinja')])).toEqual([
      ['TS-E057', true],
    ]);
    const other = sample('no-generation', {
      tokenizerConfig: true,
      edit: (p) => ((p.steps as Record<string, unknown>[])[0]!.generationConfig = 'gone.json'),
    });
    expect(errors(other.text, other.file).map((d) => d.code)).toEqual(['TS-E057']);
  });
});

describe('endTokenIds', () => {
  it("reads eos_token (a string or an AddedToken object) and generation_config's eos_token_id (a number or a list)", () => {
    const config = join(work, 'config.json');
    const generation = join(work, 'generation.json');
    writeFileSync(config, JSON.stringify({ eos_token: { content: '<|end_of_text|>', special: true } }));
    writeFileSync(generation, JSON.stringify({ eos_token_id: 128009 }));
    const tokenizer = join(LLAMA, 'tokenizer.json');
    expect(
      endTokenIds(tokenizer, { template: config, tokenizerConfig: config, generationConfig: generation }),
    ).toEqual([128001, 128009]);
    writeFileSync(config, JSON.stringify({ eos_token: '<|not a token|>' }));
    expect(() => endTokenIds(tokenizer, { template: config, tokenizerConfig: config })).toThrow(
      /eos_token "<\|not a token\|>" is not a token/,
    );
  });
});

describe('the tokenize step printer', () => {
  it('refuses a messages binding without a chat template file', () => {
    const t = (name: string) => ({ name, dataType: 'STRING' as const, dims: [1] });
    const model: TokenizeStepModel = {
      kind: 'tokenize',
      modelName: 'pre',
      maxBatchSize: 8,
      tokenizerFile: 'tokenizer.json',
      addSpecialTokens: true,
      inputs: { text: t('QUERY'), messages: t('MESSAGES') },
      outputs: { inputIds: { name: 'INPUT_ID', dataType: 'INT32', dims: [-1] } },
    };
    expect(() => renderNativeStep(model)).toThrow(NativeStepCodegenError);
    expect(
      renderNativeStep({ ...model, chatTemplateFile: 'tokenizer_config.json', endIds: [2, 7] })['step.cc'],
    ).toContain('s.end_ids = {2, 7};');
  });
});

function chatModel(textOptional: boolean): ModelConfig {
  const s = (name: string, optional = true) => ({ name, data_type: 'TYPE_STRING', dims: [1], optional });
  return {
    name: 'llama3_1',
    platform: '',
    backend: 'llama3_1',
    runtime: '',
    max_batch_size: 64,
    input: [
      s('text_input', textOptional),
      s('messages'),
      s('tools'),
      s('chat_template_kwargs'),
      { name: 'max_tokens', data_type: 'TYPE_INT32', dims: [1] },
      { name: 'temperature', data_type: 'TYPE_FP32', dims: [1], optional: true },
      { name: 'seed', data_type: 'TYPE_UINT64', dims: [1], optional: true },
      { name: 'stop_words', data_type: 'TYPE_STRING', dims: [-1], optional: true },
    ],
    output: [{ name: 'text_output', data_type: 'TYPE_STRING', dims: [-1] }],
    instance_group: [],
    dynamic_batching: null,
    ensemble_scheduling: null,
    parameters: {},
    model_transaction_policy: null,
  };
}

describe('openai-serve: a chat for a pipeline that renders its template', () => {
  const body = {
    model: 'llama3_1',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
    ],
    tools: [{ type: 'function', function: { name: 'f', parameters: {} } }],
    chat_template_kwargs: { enable_thinking: false },
    temperature: 0.5,
    seed: 7,
    stop: 'END',
    max_tokens: 9,
  };

  it('keeps the conversation as sent and names the sampling fields as TensorRT-LLM does', () => {
    const r = parseRequest('chat', body);
    expect(r.chat).toEqual({
      messages: body.messages,
      tools: body.tools,
      chatTemplateKwargs: { enable_thinking: false },
    });
    expect(r.sampling).toEqual({ temperature: 0.5, random_seed: 7, stop_words: ['END'] });
    expect(() => parseRequest('chat', { ...body, chat_template_kwargs: [1] })).toThrow(ApiError);
    expect(() => parseRequest('chat', { ...body, temperature: 'hot' })).toThrow(
      /'temperature' must be a number/,
    );
  });

  it('sends messages, tools and chat_template_kwargs as JSON, no prompt where it is optional, and the inputs the model has', () => {
    const r = parseRequest('chat', body);
    const inputs = promptInputs(chatModel(true), {
      text: r.prompt,
      maxTokens: r.maxTokens,
      chat: r.chat,
      extra: { temperature: 0.5, seed: 7, stop_words: ['END', 'STOP'], top_k: 3 },
    });
    const byName = new Map(inputs.map((i) => [i.name, i]));
    expect([...byName.keys()].sort()).toEqual(
      ['chat_template_kwargs', 'max_tokens', 'messages', 'seed', 'stop_words', 'temperature', 'tools'].sort(),
    );
    expect(JSON.parse(String(decodeBytesTensor(byName.get('messages')!.raw)[0]))).toEqual(body.messages);
    expect(byName.get('stop_words')!.shape).toEqual([1, 2]);
    expect(byName.get('seed')!.datatype).toBe('UINT64');
  });

  it('flattens the conversation for a pipeline without a messages input', () => {
    const config = chatModel(false);
    config.input = config.input.filter(
      (i) => !['messages', 'tools', 'chat_template_kwargs'].includes(i.name),
    );
    const r = parseRequest('chat', body);
    const [text] = promptInputs(config, { text: r.prompt, maxTokens: 9, chat: r.chat });
    expect(text!.name).toBe('text_input');
    expect(String(decodeBytesTensor(text!.raw)[0])).toBe('system: Be brief.\nuser: Hi\nassistant:');
  });
});
