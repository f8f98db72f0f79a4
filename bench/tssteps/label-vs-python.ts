/**
 * The compiled DistilBERT label step (samples/distilbert-onnx/steps/label.ts → libtriton_label.so)
 * against the same logic as a Python-backend step (numpy softmax, the usual model.py) on the same
 * tritonserver: server-side compute time per request from Triton's statistics
 * (compute_input + compute_infer + compute_output). Goal (issue 9): ≥ 10× lower for the compiled step.
 * Needs a Python for the stub (see bench/pythonBackend.ts): /usr/bin/python3.11 -m venv
 * build/ts-py-venv && build/ts-py-venv/bin/pip install "numpy<2". Bench-only: no Python in the product.
 * Run: node --import tsx bench/tssteps/label-vs-python.ts [requests]
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { numericInput, TritonClient } from '../../client/grpc/client.js';
import { startLocalServer } from '../../client/server/localServer.js';
import { buildRepository } from '../../generator/build/index.js';
import { configText, writeCustomStep } from '../../test/tscompile/customStepRepo.js';
import { benchVenv, pythonBackendServer } from '../pythonBackend.js';

const ROOT = path.resolve(__dirname, '../..');
const requests = Number(process.argv[2] ?? 2000);
const work = path.join(ROOT, 'build/bench-label');
const venv = benchVenv(path.join(ROOT, 'build/ts-py-venv'), '"numpy<2"');
const tritonserver = pythonBackendServer(work);

const repo = path.join(work, 'repo');
rmSync(repo, { recursive: true, force: true });
const labels = 'NEGATIVE, POSITIVE';
const step = writeCustomStep(repo, 'label', path.join(ROOT, 'samples/distilbert-onnx/steps/label.ts'), {
  labels,
});
mkdirSync(path.join(repo, 'label_py/1'), { recursive: true });
writeFileSync(
  path.join(repo, 'label_py/config.pbtxt'),
  configText('label_py', 'python', step, { labels, EXECUTION_ENV_PATH: venv }, 'dynamic_batching { }'),
);
writeFileSync(
  path.join(repo, 'label_py/1/model.py'),
  `import json
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        params = json.loads(args["model_config"])["parameters"]
        self.labels = [s.strip() for s in params["labels"]["string_value"].split(",")]

    def execute(self, requests):
        responses = []
        for request in requests:
            logits = pb_utils.get_input_tensor_by_name(request, "logits").as_numpy().astype(np.float64)
            e = np.exp(logits - logits.max(axis=1, keepdims=True))
            p = e / e.sum(axis=1, keepdims=True)
            best = p.argmax(axis=1)
            names = np.array([[(self.labels[i] if i < len(self.labels) else f"LABEL_{i}").encode()] for i in best], dtype=object)
            scores = p[np.arange(len(best)), best].astype(np.float32).reshape(-1, 1)
            responses.append(pb_utils.InferenceResponse(output_tensors=[
                pb_utils.Tensor("label", names), pb_utils.Tensor("score", scores)]))
        return responses
`,
);

async function main(): Promise<void> {
  await buildRepository(repo, { stepsBuildDir: path.join(work, 'steps'), models: ['label'] });
  const server = await startLocalServer({
    modelRepository: repo,
    tritonserver,
    loadModels: ['label', 'label_py'],
  });
  const client = new TritonClient(server.grpcUrl);
  try {
    const out: string[] = [];
    for (const model of ['label', 'label_py']) {
      for (let i = 0; i < 50; i++)
        await client.infer(model, [numericInput('logits', 'FP32', [1, 2], [i / 10, 1 - i / 7])]);
      const [before] = await client.modelStatistics(model);
      const t0 = performance.now();
      for (let i = 0; i < requests; i++)
        await client.infer(model, [numericInput('logits', 'FP32', [1, 2], [Math.sin(i), Math.cos(i)])]);
      const wall = performance.now() - t0;
      const [after] = await client.modelStatistics(model);
      const ns = (k: 'compute_input' | 'compute_infer' | 'compute_output'): number =>
        Number(after!.inference_stats![k]!.ns) - Number(before!.inference_stats![k]!.ns);
      const count =
        Number(after!.inference_stats!.success!.count) - Number(before!.inference_stats!.success!.count);
      const compute = (ns('compute_input') + ns('compute_infer') + ns('compute_output')) / count / 1000;
      const us = (k: 'compute_input' | 'compute_infer' | 'compute_output'): string =>
        (ns(k) / count / 1000).toFixed(1);
      out.push(
        `${model}: ${count} requests, compute ${compute.toFixed(1)} µs/request ` +
          `(input ${us('compute_input')}, infer ${us('compute_infer')}, output ${us('compute_output')}), ` +
          `client round trip ${((wall / requests) * 1000).toFixed(0)} µs`,
      );
    }
    console.log(out.join('\n'));
  } finally {
    client.close();
    await server.stop();
  }
}

void main();
