/**
 * A GGUF model's tokenizer as Hugging Face files: `tokenizer.json` (the pipeline the native
 * tokenize/detokenize steps run) and `tokenizer_config.json` (special tokens and the chat
 * template), so the native steps feed the model exactly the ids llama.cpp would. Byte-level BPE
 * (`tokenizer.ggml.model = gpt2`) is covered; its pre-tokenizer comes from `tokenizer.ggml.pre`,
 * the name llama.cpp gives each model family's regexes, through the table below.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GgufError, readGgufMetadata, type GgufValue } from './gguf.js';

type Json = Record<string, unknown>;

const BYTE_LEVEL = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true };

/**
 * llama.cpp's `tokenizer.ggml.pre` → the Hugging Face pre-tokenizer with the same splits
 * (llama-vocab.cpp's regexes per name; the originals' tokenizer.json files).
 */
const PRE_TOKENIZERS: Record<string, Json> = {
  // GPT-2's regex alone.
  'gpt-2': BYTE_LEVEL,
  default: BYTE_LEVEL,
  // SmolLM / StarCoder: every digit its own piece, then GPT-2's regex.
  smollm: {
    type: 'Sequence',
    pretokenizers: [{ type: 'Digits', individual_digits: true }, BYTE_LEVEL],
  },
  starcoder: {
    type: 'Sequence',
    pretokenizers: [{ type: 'Digits', individual_digits: true }, BYTE_LEVEL],
  },
};

// llama.cpp's token types (llama_token_type in llama.h).
const CONTROL = 3;
const USER_DEFINED = 4;

export interface GgufTokenizer {
  tokenizer: Json;
  config: Json;
}

function need<T extends GgufValue>(meta: Map<string, GgufValue>, key: string, file: string): T {
  const v = meta.get(key);
  if (v === undefined) throw new GgufError(`${file} has no ${key}: it carries no tokenizer to import`);
  return v as T;
}

function optionalId(meta: Map<string, GgufValue>, key: string): number | undefined {
  const v = meta.get(key);
  return typeof v === 'number' || typeof v === 'bigint' ? Number(v) : undefined;
}

/** The pre-tokenizer for `tokenizer.ggml.pre`, or a GgufError for a model or name not covered. */
function preTokenizerOf(meta: Map<string, GgufValue>, file: string): Json {
  const model = need<string>(meta, 'tokenizer.ggml.model', file);
  if (model !== 'gpt2') {
    throw new GgufError(
      `${file}: tokenizer.ggml.model "${model}" is not imported yet (byte-level BPE, "gpt2", is); ` +
        'use the model’s own tokenizer.json instead',
    );
  }
  const preName = (meta.get('tokenizer.ggml.pre') as string | undefined) ?? 'default';
  const pre = PRE_TOKENIZERS[preName];
  if (!pre) {
    throw new GgufError(
      `${file}: tokenizer.ggml.pre "${preName}" (llama.cpp's name for its pre-tokenizer) has no Hugging Face ` +
        `equivalent here yet (known: ${Object.keys(PRE_TOKENIZERS).join(', ')}); use the model’s own tokenizer.json`,
    );
  }
  return pre;
}

/** Control tokens become special added tokens, user-defined ones plain added tokens. */
function addedTokens(tokens: string[], types: number[]) {
  return tokens.flatMap((content, id) =>
    types[id] === CONTROL || types[id] === USER_DEFINED
      ? [
          {
            id,
            content,
            single_word: false,
            lstrip: false,
            rstrip: false,
            normalized: types[id] !== CONTROL,
            special: types[id] === CONTROL,
          },
        ]
      : [],
  );
}

/** BOS in front when the GGUF asks for it (TemplateProcessing), else GPT-2's ByteLevel (adds nothing). */
function postProcessor(bos: { id: number; token: string } | undefined): Json {
  if (!bos) return { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true };
  const special = (typeId: number) => ({ SpecialToken: { id: bos.token, type_id: typeId } });
  return {
    type: 'TemplateProcessing',
    single: [special(0), { Sequence: { id: 'A', type_id: 0 } }],
    pair: [
      special(0),
      { Sequence: { id: 'A', type_id: 0 } },
      special(1),
      { Sequence: { id: 'B', type_id: 1 } },
    ],
    special_tokens: { [bos.token]: { id: bos.token, ids: [bos.id], tokens: [bos.token] } },
  };
}

/** The Hugging Face tokenizer files for a GGUF file's metadata; GgufError for what is not covered. */
export function tokenizerFromGguf(meta: Map<string, GgufValue>, file = 'the GGUF file'): GgufTokenizer {
  const pre = preTokenizerOf(meta, file);
  const tokens = need<string[]>(meta, 'tokenizer.ggml.tokens', file);
  const types = (meta.get('tokenizer.ggml.token_type') as number[] | undefined) ?? [];
  const merges = need<string[]>(meta, 'tokenizer.ggml.merges', file);
  const vocab = Object.fromEntries(tokens.map((t, id) => [t, id]));
  const added = addedTokens(tokens, types);
  const name = (key: string) => {
    const id = optionalId(meta, key);
    return id === undefined ? null : (tokens[id] ?? null);
  };
  const bosId = optionalId(meta, 'tokenizer.ggml.bos_token_id');
  const addBos = meta.get('tokenizer.ggml.add_bos_token') === true && bosId !== undefined;

  const tokenizer: Json = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added,
    normalizer: null,
    pre_tokenizer: pre,
    post_processor: postProcessor(addBos ? { id: bosId, token: tokens[bosId]! } : undefined),
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab,
      merges,
    },
  };
  const context = [...meta.entries()].find(([k]) => k.endsWith('.context_length'))?.[1];
  const config: Json = {
    add_bos_token: addBos,
    add_prefix_space: false,
    bos_token: name('tokenizer.ggml.bos_token_id'),
    eos_token: name('tokenizer.ggml.eos_token_id'),
    pad_token: name('tokenizer.ggml.padding_token_id'),
    unk_token: name('tokenizer.ggml.unknown_token_id'),
    clean_up_tokenization_spaces: false,
    model_max_length: context === undefined ? undefined : Number(context),
    tokenizer_class: 'GPT2Tokenizer',
    additional_special_tokens: added.filter((t) => t.special).map((t) => t.content),
    chat_template: meta.get('tokenizer.chat_template') ?? undefined,
  };
  return { tokenizer, config };
}

/** Reads `ggufFile`'s tokenizer and writes tokenizer.json + tokenizer_config.json into `outDir`. */
export function importGgufTokenizer(
  ggufFile: string,
  outDir: string,
): { tokenizerFile: string; configFile: string } {
  const { tokenizer, config } = tokenizerFromGguf(readGgufMetadata(ggufFile), ggufFile);
  mkdirSync(outDir, { recursive: true });
  const write = (name: string, value: Json) => {
    const file = join(outDir, name);
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(value, null, 2)}\n`);
    renameSync(temp, file);
    return file;
  };
  return {
    tokenizerFile: write('tokenizer.json', tokenizer),
    configFile: write('tokenizer_config.json', config),
  };
}
