/** `triton-studio k8s`: Kubernetes manifests that serve a generated repository. */
import { Command } from 'commander';
import {
  DEFAULT_TRITON_TAG,
  hasErrors,
  KubernetesOptionError,
  writeKubernetesManifests,
} from '../../generator/index.js';
import { containerTagWarning } from '../../client/index.js';
import { action } from '../action.js';
import { CliError, type Output } from '../io.js';
import { header, positiveNumber, targetArch, wholeNumber } from '../options.js';
import type { Architecture } from '../../generator/index.js';

interface K8sCliOptions {
  out: string;
  arch?: Architecture;
  repositoryPvc?: string;
  repositoryUrl?: string;
  storageSecret?: string;
  storageImage?: string;
  name?: string;
  namespace: string;
  tritonTag: string;
  image?: string;
  gpus: number;
  minReplicas: number;
  maxReplicas: number;
  queueTimeUs: number;
  startupSeconds: number;
  monitorLabel?: Record<string, string>;
  prometheusUrl?: string;
  kserve?: boolean;
}

export function k8sCommand(): Command {
  return new Command('k8s')
    .description(
      "write Kubernetes manifests that serve a pipeline's built repository with NVIDIA's Triton image: " +
        'Deployment, Service, PodMonitor, queue-time HorizontalPodAutoscaler (+ its Prometheus adapter rule), optionally a KServe InferenceService',
    )
    .argument('<pipeline>', 'the *.pipeline.json file (its repository generated and built)')
    .requiredOption('--out <dir>', 'folder for the manifests')
    .option('--repository-pvc <claim>', 'the repository from a PersistentVolumeClaim (mounted read-only)')
    .option(
      '--repository-url <url>',
      'the repository from object storage (s3://… or gs://…), copied by an init container',
    )
    .option('--storage-secret <name>', 'Secret with the object-storage credentials, as environment variables')
    .option('--storage-image <image>', 'image of the init container that copies the repository')
    .option('--name <name>', "objects' name (default: the pipeline's name)")
    .option('--namespace <ns>', 'namespace', 'default')
    .option('--triton-tag <tag>', 'NGC tag of nvcr.io/nvidia/tritonserver', DEFAULT_TRITON_TAG)
    .option('--image <image>', 'a whole Triton image reference instead of the NGC one')
    .option('--gpus <n>', 'GPUs per pod (0: CPU only)', wholeNumber(0), 1)
    .option('--min-replicas <n>', 'autoscaler minimum', wholeNumber(1), 1)
    .option('--max-replicas <n>', 'autoscaler maximum', wholeNumber(1), 3)
    .option('--queue-time-us <us>', 'scale out above this average queue time per request', positiveNumber, 50)
    .option('--startup-seconds <s>', 'time a pod may take to load its models', wholeNumber(10), 600)
    .option(
      '--monitor-label <key=value>',
      'label the Prometheus Operator selects PodMonitors by; repeatable',
      header,
    )
    .option('--prometheus-url <url>', 'the Prometheus the adapter queries')
    .option(
      '--arch <arch>',
      "the CPU the repository is built for (`build --arch`): pods run on nodes of that kubernetes.io/arch (default: this machine's)",
      targetArch,
    )
    .option('--kserve', 'also write a KServe InferenceService on the Triton runtime')
    .option('--json', 'print the result as JSON')
    .action(action(writeManifests));
}

/** Writes the manifests, or says which option is wrong (exit 2) or what the pipeline lacks (exit 1). */
async function writeManifests(out: Output, pipeline: string, opts: K8sCliOptions): Promise<number | void> {
  if ((opts.repositoryPvc === undefined) === (opts.repositoryUrl === undefined)) {
    throw new CliError(
      'give where the pods get the repository: --repository-pvc CLAIM or --repository-url s3://…|gs://…',
      2,
    );
  }
  try {
    const result = writeKubernetesManifests({
      pipelinePath: pipeline,
      outDir: opts.out,
      repository: opts.repositoryPvc
        ? { kind: 'volume', claimName: opts.repositoryPvc }
        : {
            kind: 'object-storage',
            url: opts.repositoryUrl!,
            credentialsSecret: opts.storageSecret,
            image: opts.storageImage,
          },
      name: opts.name,
      namespace: opts.namespace,
      tritonTag: opts.tritonTag,
      image: opts.image,
      gpus: opts.gpus,
      arch: opts.arch,
      minReplicas: opts.minReplicas,
      maxReplicas: opts.maxReplicas,
      queueTimeTargetUs: opts.queueTimeUs,
      startupSeconds: opts.startupSeconds,
      monitorLabels: opts.monitorLabel,
      prometheusUrl: opts.prometheusUrl,
      kserve: opts.kserve,
    });
    out.diagnostics(result.diagnostics);
    const tagWarning = opts.image === undefined ? containerTagWarning(opts.tritonTag) : undefined;
    if (tagWarning) out.progress(`warning: ${tagWarning}`);
    const ok = !hasErrors(result.diagnostics);
    out.result({ ok, ...result });
    if (!ok) return 1;
    out.info(`wrote ${result.files.join(', ')} to ${result.outDir} (loading ${result.models.join(', ')})`);
    out.info(`apply: kubectl apply -f ${opts.out}   (see docs/KUBERNETES.md for the adapter and KServe)`);
  } catch (error) {
    if (error instanceof KubernetesOptionError) throw new CliError(error.message, 2);
    throw error;
  }
}
