/**
 * `triton-studio k8s`: the manifests for two samples, byte for byte against golden files in
 * test/fixtures/k8s/<case>/, each object validated against the Kubernetes (and Prometheus
 * Operator) JSON schemas that `kubernetes-models` and `@kubernetes-models/prometheus-operator`
 * carry, and the references between objects checked: the names a probe, Service, PodMonitor and
 * autoscaler use exist where they point. `UPDATE_GOLDEN=1 npx vitest run
 * test/unit/k8s-manifests.test.ts` rewrites the golden files after an intended change.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { PodMonitor as PodMonitorModel } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor' with {
  'resolution-mode': 'import',
};
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { ResourceRequirements } from 'kubernetes-models/v1/ResourceRequirements';
import { Service } from 'kubernetes-models/v1/Service';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { runCli } from '../../cli/main.js';
import {
  generateRepository,
  KubernetesOptionError,
  QUEUE_TIME_METRIC,
  writeKubernetesManifests,
  type KubernetesManifestOptions,
  architecture,
} from '../../generator/index.js';

const ROOT = resolve(__dirname, '../..');
const GOLDEN = join(ROOT, 'test/fixtures/k8s');
const update = process.env.UPDATE_GOLDEN === '1';
const work = mkdtempSync(join(tmpdir(), 'ts-k8s-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The Prometheus Operator models are ESM only: loaded, not required. */
let PodMonitor: typeof PodMonitorModel;
beforeAll(async () => {
  ({ PodMonitor } =
    await import('@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor'));
});

const sample = (name: string) => join(ROOT, 'samples', name, `${name}.pipeline.json`);

/**
 * The two ways to get the repository: on GPU nodes of a Grace (GB200, aarch64) cluster with
 * KServe, and on x86_64 CPU nodes from a volume.
 */
const CASES: Record<string, Omit<KubernetesManifestOptions, 'outDir'>> = {
  'gpt2-tensorrt-llm': {
    pipelinePath: sample('gpt2-tensorrt-llm'),
    repository: {
      kind: 'object-storage',
      url: 's3://models/gpt2-trtllm',
      credentialsSecret: 's3-credentials',
    },
    tritonTag: '24.12-trtllm-python-py3',
    arch: architecture('aarch64'),
    namespace: 'inference',
    maxReplicas: 4,
    monitorLabels: { release: 'prometheus' },
    kserve: true,
  },
  'gpt2-sim-cpu': {
    pipelinePath: sample('gpt2-sim'),
    repository: { kind: 'volume', claimName: 'triton-models' },
    gpus: 0,
    arch: architecture('x86_64'),
  },
};

const SCHEMAS: Record<string, (data: never) => { validate(): void }> = {
  'apps/v1/Deployment': (d) => new Deployment(d),
  'v1/Service': (d) => new Service(d),
  'autoscaling/v2/HorizontalPodAutoscaler': (d) => new HorizontalPodAutoscaler(d),
  'monitoring.coreos.com/v1/PodMonitor': (d) => new PodMonitor(d),
};

function write(name: string) {
  const outDir = join(work, name);
  const result = writeKubernetesManifests({ ...CASES[name]!, outDir });
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const text = (path: string) => readFileSync(join(outDir, path), 'utf8');
  // The assertions walk the parsed YAML by path; the schemas, not TypeScript, check its shape.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { result, text, yaml: (path: string) => parse(text(path)) as Record<string, any> };
}

describe.each(Object.keys(CASES))('k8s manifests: %s', (name) => {
  const { result, text, yaml } = write(name);

  it('match the golden files', () => {
    const expected = CASES[name]!.kserve ? ['kserve/inferenceservice.yaml'] : [];
    expect(result.files).toEqual([
      'deployment.yaml',
      'service.yaml',
      'podmonitor.yaml',
      'hpa.yaml',
      'prometheus-adapter/values.yaml',
      ...expected,
    ]);
    for (const file of result.files) {
      const golden = join(GOLDEN, name, file);
      if (update || !existsSync(golden)) {
        mkdirSync(dirname(golden), { recursive: true });
        writeFileSync(golden, text(file));
      }
      expect(text(file), file).toBe(readFileSync(golden, 'utf8'));
    }
    expect(readdirSync(join(GOLDEN, name)).sort()).toEqual(
      [...new Set(result.files.map((f) => f.split('/')[0]!))].sort(),
    );
  });

  it('validate against the Kubernetes and Prometheus Operator schemas', () => {
    const kinds = [];
    for (const file of result.files.filter((f) => !f.includes('/'))) {
      for (const doc of parseAllDocuments(text(file))) {
        const object = doc.toJSON() as { apiVersion: string; kind: string };
        const key = `${object.apiVersion}/${object.kind}`;
        expect(SCHEMAS[key], `a schema for ${key}`).toBeDefined();
        expect(() => SCHEMAS[key]!(object as never).validate(), file).not.toThrow();
        kinds.push(object.kind);
      }
    }
    expect(kinds).toEqual(['Deployment', 'Service', 'PodMonitor', 'HorizontalPodAutoscaler']);
  });

  it('load exactly the pipeline’s models, dependencies first, under explicit model control', () => {
    const plan = generateRepository({ pipelinePath: CASES[name]!.pipelinePath, outDir: work, dryRun: true });
    const args = yaml('deployment.yaml').spec.template.spec.containers[0].args as string[];
    expect(args).toContain('--model-control-mode=explicit');
    const loaded = args
      .filter((a) => a.startsWith('--load-model='))
      .map((a) => a.slice('--load-model='.length));
    expect([...loaded].sort()).toEqual(plan.models.map((m) => m.name).sort());
    expect(loaded.at(-1)).toBe(plan.ensembleName);
  });

  it('refer to each other by names that exist', () => {
    const deployment = yaml('deployment.yaml');
    const pod = deployment.spec.template;
    const triton = pod.spec.containers[0];
    const ports = (triton.ports as { name: string }[]).map((p) => p.name);
    expect(ports).toEqual(['http', 'grpc', 'metrics']);
    for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe']) {
      expect(ports).toContain(triton[probe].httpGet.port);
    }
    expect(triton.livenessProbe.httpGet.path).toBe('/v2/health/live');
    expect(triton.readinessProbe.httpGet.path).toBe('/v2/health/ready');
    const volumes = (pod.spec.volumes as { name: string }[]).map((v) => v.name);
    for (const c of [...pod.spec.containers, ...(pod.spec.initContainers ?? [])]) {
      for (const m of c.volumeMounts as { name: string }[]) expect(volumes).toContain(m.name);
    }
    expect(deployment.spec.selector.matchLabels).toEqual(pod.metadata.labels);

    const service = yaml('service.yaml');
    expect(service.spec.selector).toEqual(pod.metadata.labels);
    expect((service.spec.ports as { targetPort: string }[]).map((p) => p.targetPort)).toEqual(ports);

    const monitor = yaml('podmonitor.yaml');
    expect(monitor.spec.selector.matchLabels).toEqual(pod.metadata.labels);
    expect(ports).toContain(monitor.spec.podMetricsEndpoints[0].port);
    for (const [k, v] of Object.entries(CASES[name]!.monitorLabels ?? {}))
      expect(monitor.metadata.labels[k]).toBe(v);

    const hpa = yaml('hpa.yaml');
    expect(hpa.spec.scaleTargetRef).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: deployment.metadata.name,
    });
    expect(hpa.spec.metrics[0].pods.metric.name).toBe(QUEUE_TIME_METRIC);
    const rule = yaml('prometheus-adapter/values.yaml').rules.custom[0];
    expect(rule.name.as).toBe(QUEUE_TIME_METRIC);
    expect(rule.seriesQuery).toContain(`namespace="${deployment.metadata.namespace}"`);
    // Triton's own metric names (TRITON.md): the rule must query series that exist.
    expect(rule.metricsQuery).toMatch(/nv_inference_queue_duration_us.*nv_inference_request_success/);
  });

  it('ask for the GPUs given, and gets the repository the way given', () => {
    const spec = yaml('deployment.yaml').spec.template.spec;
    const gpus = CASES[name]!.gpus ?? 1;
    expect(spec.containers[0].resources?.limits?.['nvidia.com/gpu']).toBe(gpus === 0 ? undefined : gpus);
    const repository = CASES[name]!.repository;
    if (repository.kind === 'volume') {
      expect(spec.volumes[0].persistentVolumeClaim.claimName).toBe(repository.claimName);
      expect(spec.initContainers).toBeUndefined();
    } else {
      expect(spec.initContainers[0].command).toEqual(['aws', 's3', 'sync', repository.url, '/models']);
      expect(spec.initContainers[0].envFrom[0].secretRef.name).toBe(repository.credentialsSecret);
    }
  });

  it.runIf(CASES[name]!.kserve)(
    'a KServe InferenceService on the Triton runtime, with the same models and GPUs',
    () => {
      const isvc = yaml('kserve/inferenceservice.yaml');
      expect(isvc).toMatchObject({ apiVersion: 'serving.kserve.io/v1beta1', kind: 'InferenceService' });
      const model = isvc.spec.predictor.model;
      expect(model).toMatchObject({
        modelFormat: { name: 'triton' },
        runtime: 'kserve-tritonserver',
        runtimeVersion: '24.12-trtllm-python-py3',
      });
      expect(model.storageUri).toBe('s3://models/gpt2-trtllm');
      const args = yaml('deployment.yaml').spec.template.spec.containers[0].args as string[];
      expect(model.args).toEqual(args.filter((a) => /^--(model-control-mode|load-model)=/.test(a)));
      // No registry package carries KServe's CRD schema; its resources are core ones.
      expect(() => new ResourceRequirements(model.resources).validate()).not.toThrow();
    },
  );
});

describe('k8s manifests: the schemas catch a broken object', () => {
  it('rejects a Deployment whose container port is not a number and a PodMonitor without a selector', () => {
    const { yaml } = write('gpt2-sim-cpu');
    const deployment = yaml('deployment.yaml');
    deployment.spec.template.spec.containers[0].ports[0].containerPort = 'eight thousand';
    expect(() => new Deployment(deployment as never).validate()).toThrow(/containerPort/);
    const monitor = yaml('podmonitor.yaml');
    delete monitor.spec.selector;
    expect(() => new PodMonitor(monitor as never).validate()).toThrow(/selector/);
  });
});

describe('k8s manifests: bad input', () => {
  const outDir = join(work, 'bad');

  it('refuses a repository URL that is not object storage, saying what to give', () => {
    expect(() =>
      writeKubernetesManifests({
        pipelinePath: sample('gpt2-sim'),
        outDir,
        repository: { kind: 'object-storage', url: 'https://example.com/models' },
      }),
    ).toThrow(new KubernetesOptionError(
      "--repository-url 'https://example.com/models' is not an object-storage URL: give s3://BUCKET/PATH or gs://BUCKET/PATH (or --repository-pvc CLAIM)",
    )); // prettier-ignore
    expect(existsSync(outDir)).toBe(false);
  });

  it('refuses replicas out of order and a name Kubernetes cannot take', () => {
    const base = {
      pipelinePath: sample('gpt2-sim'),
      outDir,
      repository: { kind: 'volume', claimName: 'm' },
    } as const;
    expect(() => writeKubernetesManifests({ ...base, minReplicas: 3, maxReplicas: 2 })).toThrow(
      /need 1 ≤ min ≤ max/,
    );
    expect(() => writeKubernetesManifests({ ...base, name: 'GPT2_Sim' })).toThrow(/is not a Kubernetes name/);
    expect(existsSync(outDir)).toBe(false);
  });

  it("pins pods to the pipeline's target.arch unless --arch says otherwise", () => {
    const pipeline = JSON.parse(readFileSync(sample('gpt2-sim'), 'utf8'));
    const file = join(work, 'grace.pipeline.json');
    writeFileSync(file, JSON.stringify({ ...pipeline, $schema: undefined, target: { arch: 'aarch64' } }));
    const nodeArch = (arch?: 'x86_64' | 'aarch64') => {
      const dir = join(work, `grace-${arch ?? 'default'}`);
      writeKubernetesManifests({
        pipelinePath: file,
        outDir: dir,
        repository: { kind: 'volume', claimName: 'm' },
        ...(arch && { arch: architecture(arch) }),
      });
      return JSON.stringify(parse(readFileSync(join(dir, 'deployment.yaml'), 'utf8'))).match(
        /"kubernetes\.io\/arch","operator":"In","values":\["(\w+)"\]/,
      )?.[1];
    };
    expect(nodeArch()).toBe('arm64');
    expect(nodeArch('x86_64')).toBe('amd64');
  });

  it('writes nothing for a pipeline with errors, and returns them', () => {
    const broken = join(work, 'broken.pipeline.json');
    writeFileSync(broken, '{"version": 1, "name": "x", "steps": []');
    const result = writeKubernetesManifests({
      pipelinePath: broken,
      outDir,
      repository: { kind: 'volume', claimName: 'm' },
    });
    expect(result.diagnostics.some((d) => d.severity === 'error')).toBe(true);
    expect(result.files).toEqual([]);
    expect(existsSync(outDir)).toBe(false);
  });
});

describe('triton-studio k8s (the command)', () => {
  it('writes the manifests, and exits 2 naming the options when the repository source is missing or wrong', async () => {
    const outDir = join(work, 'cli');
    const pipeline = sample('gpt2-sim');
    expect(await runCli(['k8s', pipeline, '--out', outDir, '--json'])).toBe(2);
    expect(await runCli(['k8s', pipeline, '--out', outDir, '--repository-url', 'ftp://x/y', '--json'])).toBe(
      2,
    );
    expect(existsSync(outDir)).toBe(false);
    const args = [
      'k8s',
      pipeline,
      '--out',
      outDir,
      '--repository-pvc',
      'triton-models',
      '--gpus',
      '0',
      '--arch',
      'x86_64',
      '--json',
    ];
    expect(await runCli(args)).toBe(0);
    expect(readFileSync(join(outDir, 'deployment.yaml'), 'utf8')).toBe(
      readFileSync(join(GOLDEN, 'gpt2-sim-cpu', 'deployment.yaml'), 'utf8'),
    );
  });
});
