/**
 * Which chat template a pipeline's preview renders with: that of its first tokenize step taking
 * conversations, as validation resolved it. No VS Code, so unit tests use it.
 */
import { validatePipeline, type PipelineGraph } from '../../generator/index.js';

/** What the preview renders with: the first tokenize step that takes conversations. */
export interface ChatTemplateTarget {
  step: string;
  tokenizerConfig: string;
  chatTemplate?: string;
  tokenizer: string;
}

/** The pipeline's chat template, or why it has none (a message for the user). */
export function chatTemplateTarget(text: string, file: string): ChatTemplateTarget | { problem: string } {
  const result = validatePipeline(text, file);
  const graph = result.graph as PipelineGraph | undefined;
  if (!graph || !('chatTemplates' in graph)) {
    const first = result.diagnostics.find((d) => d.severity === 'error');
    return { problem: `the pipeline has errors${first ? `: ${first.message}` : ''}` };
  }
  for (const [step, files] of graph.chatTemplates) {
    const tokenizer = graph.tokenizerFiles.get(step)!;
    const tokenizerConfig = files.tokenizerConfig;
    if (!tokenizerConfig)
      return {
        problem: `step "${step}" has a Jinja template but no tokenizer_config.json for its special tokens`,
      };
    return {
      step,
      tokenizer,
      tokenizerConfig,
      ...(files.template !== tokenizerConfig && { chatTemplate: files.template }),
    };
  }
  return {
    problem:
      'no tokenize step takes conversations: give one a port with role "messages" (docs/PIPELINE.md, "Conversations")',
  };
}
