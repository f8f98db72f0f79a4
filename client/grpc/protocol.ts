/** Where the .proto files are, and the gRPC service client loaded from them. */
import { credentials, loadPackageDefinition, type Client, type ChannelOptions } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { existsSync } from 'node:fs';
import { fromPackageRoot } from '../paths.js';

/**
 * The project's .proto files ship with the package: the service under client/proto/, the model
 * configuration it imports beside the pbtxt reader that shares it (generator/pbtxt/).
 */
export function protoDirectory(): string {
  return fromPackageRoot('client', 'proto');
}

export function modelConfigProtoDirectory(): string {
  return fromPackageRoot('generator', 'pbtxt');
}

type ClientConstructor = new (
  address: string,
  creds: ReturnType<typeof credentials.createInsecure>,
  options?: ChannelOptions,
) => Client;

let serviceConstructor: ClientConstructor | undefined;

/**
 * The `inference.GRPCInferenceService` client class, built once from the shipped .proto files.
 * Field names stay snake_case as on the wire (and as Triton's JSON uses them); 64-bit integers
 * become numbers (shapes, counts and nanosecond totals stay far below 2^53); enums are names.
 */
export function inferenceServiceClient(): ClientConstructor {
  if (serviceConstructor) return serviceConstructor;
  const dir = protoDirectory();
  if (!existsSync(`${dir}/grpc_service.proto`)) {
    throw new Error(`Triton Studio's protocol files are missing from ${dir}: reinstall the package`);
  }
  const definition = loadSync('grpc_service.proto', {
    includeDirs: [dir, modelConfigProtoDirectory()],
    keepCase: true,
    longs: Number,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  const loaded = loadPackageDefinition(definition) as unknown as {
    inference: { GRPCInferenceService: ClientConstructor };
  };
  serviceConstructor = loaded.inference.GRPCInferenceService;
  return serviceConstructor;
}
