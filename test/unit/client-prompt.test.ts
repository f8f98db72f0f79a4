/** promptInputs: the request tensors of a prompt, from the ensemble's config (client/prompt). */
import { describe, expect, it } from 'vitest';
import { decodeBytesTensor, decodeNumericTensor } from '../../client/grpc/tensors.js';
import type { ModelConfig } from '../../client/grpc/types.js';
import { promptInputs } from '../../client/prompt.js';

function ensemble(maxBatchSize: number, extra: ModelConfig['input'] = []): ModelConfig {
  return {
    name: 'gpt2_sim',
    platform: 'ensemble',
    backend: '',
    runtime: '',
    max_batch_size: maxBatchSize,
    input: [
      { name: 'text_input', data_type: 'TYPE_STRING', dims: [1] },
      { name: 'max_tokens', data_type: 'TYPE_INT32', dims: [1] },
      ...extra,
    ],
    output: [{ name: 'text_output', data_type: 'TYPE_STRING', dims: [-1] }],
    instance_group: [],
    dynamic_batching: null,
    ensemble_scheduling: null,
    parameters: {},
    model_transaction_policy: null,
  };
}

describe('promptInputs (request tensors from the ensemble config)', () => {
  it('adds the batch dimension when max_batch_size > 0: text_input [1,1], max_tokens [1,1]', () => {
    const [text, tokens] = promptInputs(ensemble(8), { text: 'Hello', maxTokens: 16 });
    expect(text).toMatchObject({ name: 'text_input', datatype: 'BYTES', shape: [1, 1] });
    expect(decodeBytesTensor(text!.raw).map(String)).toEqual(['Hello']);
    expect(tokens).toMatchObject({ name: 'max_tokens', datatype: 'INT32', shape: [1, 1] });
    expect(decodeNumericTensor('INT32', tokens!.raw)).toEqual([16]);
  });

  it('uses the config dims alone when the model does not batch', () => {
    const inputs = promptInputs(ensemble(0), { text: 'Hi', maxTokens: 4 });
    expect(inputs.map((i) => i.shape)).toEqual([[1], [1]]);
  });

  it('sets the optional stream input when the model has one', () => {
    const inputs = promptInputs(
      ensemble(1, [{ name: 'stream', data_type: 'TYPE_BOOL', dims: [1], optional: true }]),
      {
        text: 'Hi',
        maxTokens: 4,
        stream: true,
      },
    );
    const stream = inputs.find((i) => i.name === 'stream')!;
    expect(stream).toMatchObject({ datatype: 'BOOL', shape: [1, 1] });
    expect(decodeNumericTensor('BOOL', stream.raw)).toEqual([1]);
  });

  it('follows the declared integer type of max_tokens', () => {
    const config = ensemble(0);
    config.input[1]!.data_type = 'TYPE_UINT32';
    expect(promptInputs(config, { text: 'x', maxTokens: 3 })[1]!.datatype).toBe('UINT32');
  });

  it('explains a model without the text interface', () => {
    const config = ensemble(0);
    config.input = [{ name: 'INPUT_0', data_type: 'TYPE_STRING', dims: [1] }];
    expect(() => promptInputs(config, { text: 'x' })).toThrow(
      /model 'gpt2_sim' has no 'text_input' input \(its inputs: INPUT_0\)/,
    );
  });

  it('leaves optional inputs out and names required ones a prompt cannot fill', () => {
    const optional = ensemble(1, [
      { name: 'bad_words', data_type: 'TYPE_STRING', dims: [-1], optional: true },
    ]);
    expect(promptInputs(optional, { text: 'x', maxTokens: 2 }).map((i) => i.name)).toEqual([
      'text_input',
      'max_tokens',
    ]);
    const required = ensemble(1, [{ name: 'temperature', data_type: 'TYPE_FP32', dims: [1] }]);
    expect(() => promptInputs(required, { text: 'x', maxTokens: 2 })).toThrow(
      /model 'gpt2_sim' also requires 'temperature', which a prompt does not provide: mark those ensemble inputs optional/,
    );
  });

  it('asks for max_tokens when the model requires it', () => {
    expect(() => promptInputs(ensemble(0), { text: 'x' })).toThrow(/requires 'max_tokens'/);
  });
});
