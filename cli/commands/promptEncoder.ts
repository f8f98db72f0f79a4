/** `triton-studio prompt` on an encoder pipeline: the request its kind takes, and its numbers printed. */
import {
  sendClassify,
  sendEmbed,
  sendRerank,
  type EncoderKind,
  type ModelConfig,
  type TritonClient,
} from '../../client/index.js';
import { CliError, type Output } from '../io.js';

interface EncoderPrompt {
  kind: EncoderKind;
  config: ModelConfig;
  model: string;
  text: string;
  pairs: string[];
}

const fixed = (values: number[]) => values.map((v) => v.toFixed(4)).join(', ');

export async function sendToEncoder(out: Output, client: TritonClient, p: EncoderPrompt): Promise<void> {
  if (p.kind !== 'reranker' && p.pairs.length > 0) {
    throw new CliError(`--pair is for reranker pipelines; '${p.model}' is a ${p.kind} pipeline`, 2);
  }
  if (p.kind === 'classifier') {
    const r = await sendClassify(client, { model: p.model, text: p.text, config: p.config });
    out.result({ ok: true, model: p.model, kind: p.kind, ...r });
    out.info(`label ${r.label} (p ${r.probabilities[r.label]!.toFixed(4)}), logits [${fixed(r.logits)}]`);
    out.progress(`latency ${r.latencyMs.toFixed(1)} ms`);
  } else if (p.kind === 'reranker') {
    if (p.pairs.length === 0) {
      throw new CliError(
        `'${p.model}' is a reranker: it scores passages against the query; give each with --pair PASSAGE`,
        2,
      );
    }
    const r = await sendRerank(client, {
      model: p.model,
      query: p.text,
      passages: p.pairs,
      config: p.config,
    });
    out.result({ ok: true, model: p.model, kind: p.kind, ...r });
    for (const i of r.ranking) out.info(`${r.scores[i]!.toFixed(4)}  ${p.pairs[i]}`);
    out.progress(`latency ${r.latencyMs.toFixed(1)} ms for ${p.pairs.length} pair(s)`);
  } else {
    const r = await sendEmbed(client, { model: p.model, texts: [p.text], config: p.config });
    const vector = r.embeddings[0]!;
    const norm = Math.sqrt(vector.reduce((s, v) => s + v * v, 0));
    out.result({ ok: true, model: p.model, kind: p.kind, embedding: vector, latencyMs: r.latencyMs });
    const head = fixed(vector.slice(0, 6)) + (vector.length > 6 ? ', …' : '');
    out.info(`${vector.length} dims, L2 norm ${norm.toFixed(4)}: [${head}]`);
    out.progress(`latency ${r.latencyMs.toFixed(1)} ms`);
  }
}
