/**
 * Sentence embedder (BGE / E5 small: bge-small-en-v1.5, e5-small-v2; BERT with WordPiece) on ONNX
 * Runtime: TEXT → `input_ids`, `attention_mask`, `token_type_ids` INT64[-1] → `sentence_embedding`
 * FP32[384], the tensors of sentence-transformers' ONNX export (pooling and normalising inside the
 * graph). Rows are cut at the model's 512 positions unless the tokenizer or the step says otherwise.
 */
import { MAX_POSITION_PARAMETER } from '../model/encoderParameters.js';
import { port, type Preset } from './types.js';

const ENCODER_INPUTS = ['input_ids', 'attention_mask', 'token_type_ids'] as const;

export const embeddingPresets: Preset[] = [
  {
    id: 'embedding-onnx/tokenize',
    kind: 'tokenize',
    title: 'BERT WordPiece tokenize: TEXT → input_ids, attention_mask, token_type_ids (INT64)',
    template: {
      maxBatchSize: 64,
      dynamicBatching: true,
      instanceGroups: [{ count: 1, kind: 'CPU' }],
      addSpecialTokens: true,
      inputs: [port('TEXT', 'STRING', [1], { role: 'text' })],
      outputs: [
        port('input_ids', 'INT64', [-1], { role: 'inputIds' }),
        port('attention_mask', 'INT64', [-1], { role: 'attentionMask' }),
        port('token_type_ids', 'INT64', [-1], { role: 'tokenTypeIds' }),
      ],
    },
  },
  {
    id: 'embedding-onnx/model',
    kind: 'model',
    title: 'BGE/E5-style sentence embedder on ONNX Runtime → sentence_embedding FP32[384]',
    template: {
      platform: 'onnxruntime_onnx',
      maxBatchSize: 64,
      dynamicBatching: { preferredBatchSizes: [16, 32, 64], maxQueueDelayMicroseconds: 100 },
      inputs: ENCODER_INPUTS.map((name) => port(name, 'INT64', [-1])),
      outputs: [port('sentence_embedding', 'FP32', [384])],
      parameters: { [MAX_POSITION_PARAMETER]: '512' },
    },
  },
];
