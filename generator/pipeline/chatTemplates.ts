/**
 * Where a tokenize step's chat template comes from, and the model's end tokens: what a step that
 * takes conversations (a port with role `messages`) ships in its version folder. The template is
 * the step's `chatTemplate` (a tokenizer_config.json or a Jinja file) or the tokenizer_config.json
 * beside its tokenizer.json, as Hugging Face keeps them in one model folder; the end tokens are
 * read from that config's `eos_token` and, where the folder has one, generation_config.json's
 * `eos_token_id` (Llama-3.x lists three there), never typed into the pipeline.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';

export interface ChatTemplateFiles {
  /** The template: a tokenizer_config.json (its `chat_template`) or a Jinja file. */
  template: string;
  /** The tokenizer_config.json with the special tokens (bos_token…), when there is one. */
  tokenizerConfig?: string;
  /** generation_config.json beside the tokenizer config, when there is one. */
  generationConfig?: string;
}

export type ChatTemplateLookup =
  | { ok: true; files: ChatTemplateFiles }
  | { ok: false; message: string; field: 'chatTemplate' | 'generationConfig' | 'tokenizer' };

/** The files a tokenize step renders conversations with; `exists` is the environment's. */
export function findChatTemplate(
  step: { chatTemplate?: string; generationConfig?: string },
  tokenizerFile: string,
  pipelineFile: string,
  exists: (path: string) => boolean,
): ChatTemplateLookup {
  const besideTokenizer = join(dirname(tokenizerFile), 'tokenizer_config.json');
  const fromFile = (ref: string) => (isAbsolute(ref) ? ref : resolve(dirname(resolve(pipelineFile)), ref));
  const withGeneration = (files: ChatTemplateFiles): ChatTemplateFiles => {
    const config = files.tokenizerConfig;
    const generation =
      step.generationConfig !== undefined
        ? fromFile(step.generationConfig)
        : config
          ? join(dirname(config), 'generation_config.json')
          : undefined;
    return generation && exists(generation) ? { ...files, generationConfig: generation } : files;
  };
  if (step.generationConfig !== undefined && !exists(fromFile(step.generationConfig))) {
    return {
      ok: false,
      field: 'generationConfig',
      message: `${fromFile(step.generationConfig)} not found: give the model's generation_config.json (path relative to the pipeline file).`,
    };
  }
  const chatTemplate = step.chatTemplate;
  if (chatTemplate !== undefined) {
    const path = fromFile(chatTemplate);
    if (!exists(path)) {
      return {
        ok: false,
        field: 'chatTemplate',
        message: `Chat template ${path} not found: give a tokenizer_config.json or a Jinja file (path relative to the pipeline file).`,
      };
    }
    if (path.endsWith('.json'))
      return checked(withGeneration({ template: path, tokenizerConfig: path }), 'chatTemplate');
    const beside = join(dirname(path), 'tokenizer_config.json');
    const config = exists(beside) ? beside : exists(besideTokenizer) ? besideTokenizer : undefined;
    return {
      ok: true,
      files: withGeneration({ template: path, ...(config && { tokenizerConfig: config }) }),
    };
  }
  if (!exists(besideTokenizer)) {
    return {
      ok: false,
      field: 'tokenizer',
      message:
        `The step takes conversations (a "messages" port) but ${besideTokenizer} does not exist: ` +
        'put the model\'s tokenizer_config.json beside its tokenizer.json, or name a template with "chatTemplate".',
    };
  }
  return checked(
    withGeneration({ template: besideTokenizer, tokenizerConfig: besideTokenizer }),
    'tokenizer',
  );
}

function checked(files: ChatTemplateFiles, field: 'chatTemplate' | 'tokenizer'): ChatTemplateLookup {
  let config: unknown;
  try {
    config = JSON.parse(readFileSync(files.template, 'utf8'));
  } catch (e) {
    return { ok: false, field, message: `${files.template} cannot be read as JSON: ${(e as Error).message}` };
  }
  const template = (config as { chat_template?: unknown } | null)?.chat_template;
  if (typeof template !== 'string' && !Array.isArray(template)) {
    return {
      ok: false,
      field,
      message: `${files.template} has no "chat_template": name a Jinja template file with the step's "chatTemplate".`,
    };
  }
  return { ok: true, files };
}

/** The files a model's end tokens are read from. */
export type EndTokenFiles = Pick<ChatTemplateFiles, 'tokenizerConfig' | 'generationConfig'>;

/**
 * The tokenizer_config.json and generation_config.json beside a tokenizer.json, where they exist:
 * the end tokens of a tokenize step that takes no conversations (its END_ID output, and what
 * stops generation), so a plain prompt ends where the model does (SmolLM2: `<|im_end|>`, not the
 * first `<|endoftext|>`-like name the tokenizer happens to hold).
 */
export function endTokenFilesBeside(tokenizerJson: string, exists = existsSync): EndTokenFiles | undefined {
  const config = join(dirname(tokenizerJson), 'tokenizer_config.json');
  const generation = join(dirname(tokenizerJson), 'generation_config.json');
  const files: EndTokenFiles = {
    ...(exists(config) && { tokenizerConfig: config }),
    ...(exists(generation) && { generationConfig: generation }),
  };
  return files.tokenizerConfig || files.generationConfig ? files : undefined;
}

/**
 * Every end token of the model, as ids of `tokenizerJson`: the tokenizer config's `eos_token` and
 * generation_config.json's `eos_token_id` (a number or a list), in that order, without repeats.
 * A token string the tokenizer does not know is an error naming it.
 */
export function endTokenIds(tokenizerJson: string, files: EndTokenFiles | ChatTemplateFiles): number[] {
  const ids: number[] = [];
  const add = (id: number) => {
    if (!ids.includes(id)) ids.push(id);
  };
  if (files.tokenizerConfig) {
    const config = JSON.parse(readFileSync(files.tokenizerConfig, 'utf8')) as { eos_token?: unknown };
    const eos = tokenContent(config.eos_token);
    if (eos !== undefined) {
      const id = tokenId(tokenizerJson, eos);
      if (id === undefined) {
        throw new Error(
          `${files.tokenizerConfig}: its eos_token ${JSON.stringify(eos)} is not a token of ${tokenizerJson}`,
        );
      }
      add(id);
    }
  }
  if (files.generationConfig) {
    const generation = JSON.parse(readFileSync(files.generationConfig, 'utf8')) as { eos_token_id?: unknown };
    const listed = generation.eos_token_id;
    for (const id of Array.isArray(listed)
      ? listed
      : listed === undefined || listed === null
        ? []
        : [listed]) {
      if (!Number.isInteger(id) || (id as number) < 0) {
        throw new Error(
          `${files.generationConfig}: eos_token_id holds ${JSON.stringify(id)}, not a token id`,
        );
      }
      add(id as number);
    }
  }
  return ids;
}

/** A special token as tokenizer_config.json writes it: a string or an AddedToken object. */
function tokenContent(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && typeof (value as { content?: unknown }).content === 'string')
    return (value as { content: string }).content;
  return undefined;
}

function tokenId(tokenizerJson: string, token: string): number | undefined {
  const json = JSON.parse(readFileSync(tokenizerJson, 'utf8')) as {
    added_tokens?: { id: number; content: string }[];
    model?: { vocab?: Record<string, number> | unknown[] };
  };
  const added = json.added_tokens?.find((t) => t.content === token);
  if (added) return added.id;
  const vocab = json.model?.vocab;
  return vocab && !Array.isArray(vocab) && Object.hasOwn(vocab, token) ? vocab[token] : undefined;
}
