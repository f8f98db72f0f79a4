/**
 * Facts shared by every layer of the generator (and the client): Triton's data types and the
 * roles of native step ports. Below both the pipeline and the pbtxt modules; imports nothing else.
 */
export * from './dataTypes.js';
export * from './portRoles.js';
