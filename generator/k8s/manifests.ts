/**
 * Kubernetes objects that serve a generated model repository with NVIDIA's own Triton image: the
 * Deployment, its Service, a PodMonitor, a HorizontalPodAutoscaler on Triton's queue time through
 * the Prometheus adapter (the convention of Triton's Helm chart: the pods metric
 * `avg_time_queue_us`), and optionally a KServe InferenceService on the Triton runtime. Objects
 * only, typed by the models packages; writing them out is `write.ts`. The packages' classes (with
 * their schema validators, ~1.2 MB in the CLI bundle) are used by the tests, not at run time.
 */
import type { Architecture } from '../build/architectures.js';
import type { IPodMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor' with {
  'resolution-mode': 'import',
};
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import type { IAffinity } from 'kubernetes-models/v1/Affinity';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IVolume } from 'kubernetes-models/v1/Volume';

/** Where the pods get the model repository (generated and built, with its `.so` files). */
export type RepositorySource =
  /** A PersistentVolumeClaim holding the repository at its root, mounted read-only. */
  | { kind: 'volume'; claimName: string }
  /** `s3://…` or `gs://…`: an init container copies it into an emptyDir before Triton starts. */
  | { kind: 'object-storage'; url: string; credentialsSecret?: string; image?: string };

export interface KubernetesOptions {
  /** Base name of every object (a DNS-1123 label). */
  name: string;
  namespace: string;
  /** Models to load at start, dependencies first (explicit model control loads nothing else). */
  models: string[];
  /** Triton image, e.g. `nvcr.io/nvidia/tritonserver:24.12-py3`. */
  image: string;
  /** GPUs per pod (`nvidia.com/gpu`); 0 for a CPU-only pod. */
  gpus: number;
  /**
   * The CPU the repository's libraries are built for (`build --arch`): pods are pinned to nodes of
   * that `kubernetes.io/arch`, where NGC's multi-platform Triton image runs its matching variant.
   */
  arch: Architecture;
  repository: RepositorySource;
  minReplicas: number;
  maxReplicas: number;
  /** Scale out when the average queue time per request exceeds this (µs). */
  queueTimeTargetUs: number;
  /** Seconds a pod may take to load its models before it is restarted. */
  startupSeconds: number;
  /** Labels the Prometheus Operator selects PodMonitors by (e.g. `release: prometheus`). */
  monitorLabels: Record<string, string>;
  /** The Prometheus the adapter queries. */
  prometheusUrl: string;
  /** Also write a KServe InferenceService (an alternative to the Deployment and Service). */
  kserve: boolean;
}

export const NGC_TRITON_IMAGE = 'nvcr.io/nvidia/tritonserver';
/** Triton's default ports, named as probes, the Service and the PodMonitor refer to them. */
export const TRITON_PORTS = { http: 8000, grpc: 8001, metrics: 8002 } as const;
/** The pods metric the autoscaler reads, as the Prometheus adapter rule names it. */
export const QUEUE_TIME_METRIC = 'avg_time_queue_us';
const MODEL_DIR = '/models';
/** Default copier images per scheme; their entrypoints are overridden, so any tag with the tool works. */
const COPIER = {
  s3: { image: 'amazon/aws-cli:latest', command: (url: string) => ['aws', 's3', 'sync', url, MODEL_DIR] },
  gs: {
    image: 'gcr.io/google.com/cloudsdktool/google-cloud-cli:stable',
    command: (url: string) => ['gcloud', 'storage', 'rsync', '--recursive', url, MODEL_DIR],
  },
} as const;

/** A bad option, with what to give instead. */
export class KubernetesOptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KubernetesOptionError';
  }
}

/** A pipeline name as a DNS-1123 label: `gpt2_sim` → `gpt2-sim`. */
export function kubernetesName(name: string): string {
  const label = name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 50);
  if (label === '') throw new KubernetesOptionError(`'${name}' gives no Kubernetes name: pass --name`);
  return label;
}

export interface KubernetesObjects {
  deployment: IDeployment;
  service: IService;
  podMonitor: IPodMonitor;
  autoscaler: IHorizontalPodAutoscaler;
  /** Values for the prometheus-community/prometheus-adapter Helm chart: the queue-time rule. */
  adapterValues: object;
  /** serving.kserve.io/v1beta1; no registry package carries KServe's schema. */
  inferenceService?: object;
}

export function kubernetesObjects(options: KubernetesOptions): KubernetesObjects {
  checkOptions(options);
  const { name, namespace } = options;
  const labels = { 'app.kubernetes.io/name': name, 'app.kubernetes.io/component': 'tritonserver' };
  const metadata = {
    name,
    namespace,
    labels: { ...labels, 'app.kubernetes.io/managed-by': 'triton-studio' },
  };
  const port = (p: keyof typeof TRITON_PORTS) => ({ name: p, containerPort: TRITON_PORTS[p] });
  const health = (path: string) => ({ httpGet: { path, port: 'http' } });
  const gpuResources =
    options.gpus > 0 ? { limits: { 'nvidia.com/gpu': options.gpus }, requests: { 'nvidia.com/gpu': options.gpus } } : undefined; // prettier-ignore

  const triton: IContainer = {
    name: 'tritonserver',
    image: options.image,
    command: ['tritonserver'],
    args: tritonArgs(options.models),
    ports: [port('http'), port('grpc'), port('metrics')],
    resources: gpuResources,
    // Loading engines can take minutes: the startup probe holds liveness off until ready once.
    startupProbe: { ...health('/v2/health/ready'), periodSeconds: 10, failureThreshold: Math.ceil(options.startupSeconds / 10) }, // prettier-ignore
    livenessProbe: { ...health('/v2/health/live'), periodSeconds: 10, failureThreshold: 3 },
    readinessProbe: { ...health('/v2/health/ready'), periodSeconds: 5, failureThreshold: 3 },
    volumeMounts: [
      { name: 'models', mountPath: MODEL_DIR, readOnly: true },
      { name: 'dshm', mountPath: '/dev/shm' },
    ],
  };
  const volumes: IVolume[] = [
    options.repository.kind === 'volume'
      ? { name: 'models', persistentVolumeClaim: { claimName: options.repository.claimName, readOnly: true } }
      : { name: 'models', emptyDir: {} },
    // Triton's backends share tensors through /dev/shm; the default 64 MiB is too small.
    { name: 'dshm', emptyDir: { medium: 'Memory' } },
  ];

  const deployment: IDeployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata,
    spec: {
      replicas: options.minReplicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          initContainers:
            options.repository.kind === 'object-storage' ? [copier(options.repository)] : undefined,
          containers: [triton],
          volumes,
          affinity: archAffinity(options.arch),
          // GPU nodes are commonly tainted so that only GPU work lands there.
          tolerations:
            options.gpus > 0
              ? [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }]
              : undefined,
        },
      },
    },
  };

  const service: IService = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata,
    spec: {
      selector: labels,
      ports: (Object.keys(TRITON_PORTS) as (keyof typeof TRITON_PORTS)[]).map((p) => ({
        name: p,
        port: TRITON_PORTS[p],
        targetPort: p,
        // Lets meshes and ingresses speak HTTP/2 to the gRPC port.
        appProtocol: p === 'grpc' ? 'grpc' : 'http',
      })),
    },
  };

  const podMonitor: IPodMonitor = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PodMonitor',
    metadata: { ...metadata, labels: { ...metadata.labels, ...options.monitorLabels } },
    spec: {
      selector: { matchLabels: labels },
      podMetricsEndpoints: [{ port: 'metrics', path: '/metrics', interval: '15s' }],
    },
  };

  const autoscaler: IHorizontalPodAutoscaler = {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata,
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
      minReplicas: options.minReplicas,
      maxReplicas: options.maxReplicas,
      metrics: [
        {
          type: 'Pods',
          pods: {
            metric: { name: QUEUE_TIME_METRIC },
            target: { type: 'AverageValue', averageValue: options.queueTimeTargetUs },
          },
        },
      ],
    },
  };

  return {
    deployment,
    service,
    podMonitor,
    autoscaler,
    adapterValues: adapterValues(options),
    inferenceService: options.kserve ? inferenceService(options, gpuResources) : undefined,
  };
}

function tritonArgs(models: string[]): string[] {
  return [
    `--model-repository=${MODEL_DIR}`,
    // Only the pipeline's models, never whatever else the repository holds.
    '--model-control-mode=explicit',
    ...models.map((m) => `--load-model=${m}`),
    `--http-port=${TRITON_PORTS.http}`,
    `--grpc-port=${TRITON_PORTS.grpc}`,
    `--metrics-port=${TRITON_PORTS.metrics}`,
  ];
}

function copier(source: Extract<RepositorySource, { kind: 'object-storage' }>): IContainer {
  const scheme = schemeOf(source.url);
  const tool = COPIER[scheme];
  return {
    name: 'fetch-models',
    image: source.image ?? tool.image,
    command: [...tool.command(source.url)],
    envFrom: source.credentialsSecret ? [{ secretRef: { name: source.credentialsSecret } }] : undefined,
    volumeMounts: [{ name: 'models', mountPath: MODEL_DIR }],
  };
}

function schemeOf(url: string): keyof typeof COPIER {
  const scheme = /^([a-z0-9]+):\/\/[^/]+/.exec(url)?.[1];
  if (scheme === 's3' || scheme === 'gs') return scheme;
  throw new KubernetesOptionError(
    `--repository-url '${url}' is not an object-storage URL: give s3://BUCKET/PATH or gs://BUCKET/PATH (or --repository-pvc CLAIM)`,
  );
}

/**
 * The Prometheus adapter rule that makes `avg_time_queue_us` a pods metric: the queue time Triton
 * added over 30 s divided by the requests that succeeded in it (1 + so an idle pod reads 0).
 */
function adapterValues(options: KubernetesOptions): object {
  const url = new URL(options.prometheusUrl);
  return {
    prometheus: { url: `${url.protocol}//${url.hostname}`, port: Number(url.port || 9090) },
    rules: {
      custom: [
        {
          seriesQuery: `nv_inference_queue_duration_us{namespace="${options.namespace}",pod!=""}`,
          resources: { overrides: { namespace: { resource: 'namespace' }, pod: { resource: 'pod' } } },
          name: { matches: 'nv_inference_queue_duration_us', as: QUEUE_TIME_METRIC },
          metricsQuery:
            'avg(delta(nv_inference_queue_duration_us{<<.LabelMatchers>>}[30s]) / ' +
            '(1 + delta(nv_inference_request_success{<<.LabelMatchers>>}[30s]))) by (<<.GroupBy>>)',
        },
      ],
    },
  };
}

/**
 * KServe's Triton runtime (`kserve-tritonserver`) serves `storageUri` from /mnt/models; the args
 * are added to the runtime's own, so model control and the models to load carry over.
 */
function inferenceService(options: KubernetesOptions, resources: IContainer['resources']): object {
  const tag = /:([^/:]+)$/.exec(options.image)?.[1];
  const storageUri =
    options.repository.kind === 'volume' ? `pvc://${options.repository.claimName}` : options.repository.url;
  return {
    apiVersion: 'serving.kserve.io/v1beta1',
    kind: 'InferenceService',
    metadata: { name: options.name, namespace: options.namespace },
    spec: {
      predictor: {
        affinity: archAffinity(options.arch),
        minReplicas: options.minReplicas,
        maxReplicas: options.maxReplicas,
        model: {
          modelFormat: { name: 'triton' },
          runtime: 'kserve-tritonserver',
          ...(tag && { runtimeVersion: tag }),
          storageUri,
          args: ['--model-control-mode=explicit', ...options.models.map((m) => `--load-model=${m}`)],
          ...(resources && { resources }),
        },
      },
    },
  };
}

/** The step libraries load only on the CPU they were built for (Grace nodes are arm64). */
function archAffinity(arch: Architecture): IAffinity {
  return {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [
          {
            matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In', values: [arch.kubernetesArch] }],
          },
        ],
      },
    },
  };
}

function checkOptions(options: KubernetesOptions): void {
  const label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
  if (!label.test(options.name) || options.name.length > 63) {
    throw new KubernetesOptionError(
      `--name '${options.name}' is not a Kubernetes name: lower-case letters, digits and '-', at most 63`,
    );
  }
  if (!label.test(options.namespace)) {
    throw new KubernetesOptionError(`--namespace '${options.namespace}' is not a Kubernetes namespace name`);
  }
  if (options.minReplicas < 1 || options.maxReplicas < options.minReplicas) {
    throw new KubernetesOptionError(
      `--min-replicas ${options.minReplicas} and --max-replicas ${options.maxReplicas}: need 1 ≤ min ≤ max`,
    );
  }
  if (options.repository.kind === 'object-storage') schemeOf(options.repository.url);
  try {
    new URL(options.prometheusUrl);
  } catch {
    throw new KubernetesOptionError(
      `--prometheus-url '${options.prometheusUrl}' is not a URL: e.g. http://prometheus-operated.monitoring.svc:9090`,
    );
  }
}
