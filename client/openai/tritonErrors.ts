/** Triton's failures in OpenAI's terms: which of them are the client's to fix, and with what status. */
import { status } from '@grpc/grpc-js';
import { TritonError } from '../grpc/errors.js';
import { ApiError } from './protocol.js';

const STEP_PROMPT_LIMIT = /over this step's limit of \d+.*\(parameter max_input_(bytes|tokens)\)/;

/** An unknown model is 404, a request the pipeline refused 400, the rest 502. */
export function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof TritonError) {
    if (error.code === status.NOT_FOUND || /unknown model|not found/i.test(error.serverMessage)) {
      return new ApiError(
        404,
        `${message} (deploy the ensemble, or list models at /v1/models)`,
        'not_found_error',
        'model',
        'model_not_found',
      );
    }
    if (error.code === status.INVALID_ARGUMENT) return new ApiError(400, message, 'invalid_request_error');
    // A stream's error carries no code, only the words: the native steps' prompt limits
    // (backends/triton tokenize_runner.h) are the client's to fix.
    if (STEP_PROMPT_LIMIT.test(error.serverMessage))
      return new ApiError(400, message, 'invalid_request_error', null, 'context_length_exceeded');
    // The pipeline answered this request with an error (its chat template's raise_exception, a
    // conversation it cannot render): Triton's stream carries no status code for those, and the
    // server itself is fine, so it is the request OpenAI's clients should see refused.
    if (error.code === undefined && error.serverMessage)
      return new ApiError(400, error.serverMessage, 'invalid_request_error');
    if (error.code === status.UNAVAILABLE) return new ApiError(503, message, 'server_error');
  }
  return new ApiError(502, message, 'server_error');
}
