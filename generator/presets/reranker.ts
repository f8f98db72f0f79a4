/**
 * Cross-encoder reranker (ms-marco-MiniLM-L-6-v2 style: BERT WordPiece, one relevance logit) on
 * ONNX Runtime: a query (TEXT) and a passage (TEXT_PAIR) per row, encoded with the tokenizer's
 * pair template → `input_ids`, `attention_mask`, `token_type_ids` INT64[-1] → `logits` FP32[1].
 */
import { MAX_POSITION_PARAMETER } from '../model/encoderParameters.js';
import { port, type Preset } from './types.js';

export const rerankerPresets: Preset[] = [
  {
    id: 'reranker-onnx/tokenize',
    kind: 'tokenize',
    title: 'BERT WordPiece tokenize of query/passage pairs: TEXT, TEXT_PAIR → ids, mask, type ids (INT64)',
    template: {
      maxBatchSize: 64,
      dynamicBatching: true,
      instanceGroups: [{ count: 1, kind: 'CPU' }],
      addSpecialTokens: true,
      inputs: [
        port('TEXT', 'STRING', [1], { role: 'text' }),
        port('TEXT_PAIR', 'STRING', [1], { role: 'textPair' }),
      ],
      outputs: [
        port('input_ids', 'INT64', [-1], { role: 'inputIds' }),
        port('attention_mask', 'INT64', [-1], { role: 'attentionMask' }),
        port('token_type_ids', 'INT64', [-1], { role: 'tokenTypeIds' }),
      ],
    },
  },
  {
    id: 'reranker-onnx/model',
    kind: 'model',
    title: 'Cross-encoder reranker (ms-marco-MiniLM style) on ONNX Runtime → logits FP32[1]',
    template: {
      platform: 'onnxruntime_onnx',
      maxBatchSize: 64,
      dynamicBatching: { preferredBatchSizes: [16, 32, 64], maxQueueDelayMicroseconds: 100 },
      inputs: [
        port('input_ids', 'INT64', [-1]),
        port('attention_mask', 'INT64', [-1]),
        port('token_type_ids', 'INT64', [-1]),
      ],
      outputs: [port('logits', 'FP32', [1])],
      parameters: { [MAX_POSITION_PARAMETER]: '512' },
    },
  },
];
