/**
 * Encoder classifier (DistilBERT fine-tuned on SST-2) on ONNX Runtime: WordPiece tokenizer →
 * `input_ids`, `attention_mask` INT64[-1] → `logits` FP32[2].
 */
import { port, type Preset } from './types.js';

export const distilbertPresets: Preset[] = [
  {
    id: 'distilbert-onnx/tokenize',
    kind: 'tokenize',
    title: 'BERT WordPiece tokenize: TEXT → input_ids + attention_mask (INT64)',
    template: {
      maxBatchSize: 32,
      dynamicBatching: true,
      instanceGroups: [{ count: 1, kind: 'CPU' }],
      addSpecialTokens: true,
      inputs: [port('TEXT', 'STRING', [1], { role: 'text' })],
      outputs: [
        port('input_ids', 'INT64', [-1], { role: 'inputIds' }),
        port('attention_mask', 'INT64', [-1], { role: 'attentionMask' }),
      ],
    },
  },
  {
    id: 'distilbert-onnx/model',
    kind: 'model',
    title: 'DistilBERT sequence classifier on ONNX Runtime (platform onnxruntime_onnx)',
    template: {
      platform: 'onnxruntime_onnx',
      maxBatchSize: 32,
      dynamicBatching: { preferredBatchSizes: [8, 16, 32], maxQueueDelayMicroseconds: 100 },
      inputs: [port('input_ids', 'INT64', [-1]), port('attention_mask', 'INT64', [-1])],
      outputs: [port('logits', 'FP32', [2])],
    },
  },
];
