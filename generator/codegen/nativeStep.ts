/**
 * The model a native step (tokenize / detokenize) is generated from. The generator's pipeline
 * layer builds it from a validated pipeline step; the C++ code generator renders it into
 * `<model>/src/step.cc` + `<model>/src/CMakeLists.txt`. Kept free of pipeline-file details so the
 * printer can be tested on its own (protobuf-es style: model -> printer).
 */

/** Triton data types as written in config.pbtxt, without the `TYPE_` prefix. */
export type TritonDataType =
  | 'BOOL'
  | 'UINT8'
  | 'UINT16'
  | 'UINT32'
  | 'UINT64'
  | 'INT8'
  | 'INT16'
  | 'INT32'
  | 'INT64'
  | 'FP16'
  | 'FP32'
  | 'FP64'
  | 'STRING'
  | 'BF16';

export interface TensorBinding {
  /** Tensor name as the model's config.pbtxt declares it, e.g. "QUERY". */
  name: string;
  dataType: TritonDataType;
  /** Dims without the implicit batch dimension, e.g. [-1]. */
  dims: number[];
  optional?: boolean;
}

export interface TokenizeStepModel {
  kind: 'tokenize';
  /** Model name; also the backend name, so the library is `libtriton_<modelName>.so`. */
  modelName: string;
  maxBatchSize: number;
  /** File name of the tokenizer inside the model version folder, normally "tokenizer.json". */
  tokenizerFile: string;
  addSpecialTokens: boolean;
  inputs: {
    text: TensorBinding; // STRING prompt, e.g. QUERY
    requestOutputLen?: TensorBinding; // passed through, e.g. REQUEST_OUTPUT_LEN
    badWords?: TensorBinding; // STRING word lists
    stopWords?: TensorBinding;
    endId?: TensorBinding; // e.g. END_ID: passed through to outputs.endId when the request has it
    padId?: TensorBinding; // e.g. PAD_ID: passed through to outputs.padId
    embeddingBiasWords?: TensorBinding; // STRING words, e.g. EMBEDDING_BIAS_WORDS
    embeddingBiasWeights?: TensorBinding; // FP32/FP64, one weight per word
  };
  outputs: {
    inputIds: TensorBinding; // e.g. INPUT_ID
    inputLength?: TensorBinding; // e.g. REQUEST_INPUT_LEN
    requestOutputLen?: TensorBinding; // pass-through copy of inputs.requestOutputLen
    badWordsIds?: TensorBinding; // [2,-1] flattened ids + offsets
    stopWordsIds?: TensorBinding;
    endId?: TensorBinding; // inputs.endId when sent, else the tokenizer's end-of-sequence id
    padId?: TensorBinding; // inputs.padId when sent, else its pad id (or the end id)
    /** FP32/FP64 [vocab] per row: the words' weights summed at their token ids ([0] without words). */
    embeddingBias?: TensorBinding;
    /** Encoder models (BERT): 1 for each real token, 0 for padding, same shape as inputIds. */
    attentionMask?: TensorBinding;
  };
}

export interface DetokenizeStepModel {
  kind: 'detokenize';
  modelName: string;
  maxBatchSize: number;
  tokenizerFile: string;
  skipSpecialTokens: boolean;
  inputs: {
    tokens: TensorBinding; // e.g. TOKENS_BATCH [-1,-1] (beam, seq) or [-1]
    sequenceLength?: TensorBinding; // e.g. SEQUENCE_LENGTH [-1]
  };
  outputs: {
    text: TensorBinding; // STRING, e.g. OUTPUT
  };
}

export type NativeStepModel = TokenizeStepModel | DetokenizeStepModel;
