/** What a failed prompt tells the user, and the setting that fixes it. */
import { status } from '@grpc/grpc-js';
import { SETTING, SettingError, type PromptSettings, type SettingKey } from '../settings.js';
import { TritonError } from '../../client/index.js';

/** What to tell the user about a failed prompt, and which setting (if any) fixes it. */
export interface PromptFailure {
  message: string;
  setting?: SettingKey;
  /** The server could not be reached at all (the client for that address is then dropped). */
  unreachable: boolean;
  cancelled: boolean;
}

/** Turns an error from the settings, the client or the server into a message that says what to do. */
export function describePromptFailure(
  error: unknown,
  settings: PromptSettings | undefined,
  cancelledByUser = false,
): PromptFailure {
  if (cancelledByUser) return { message: 'Prompt cancelled.', unreachable: false, cancelled: true };
  if (error instanceof SettingError) {
    return { message: error.message, setting: error.setting, unreachable: false, cancelled: false };
  }
  const where = settings ? ` at ${settings.serverUrl}` : '';
  if (error instanceof TritonError) {
    if (error.code === status.CANCELLED) {
      return { message: 'Prompt cancelled.', unreachable: false, cancelled: true };
    }
    // The client leaves serverMessage empty when no server answered (refused, no route, DNS).
    if (error.code === status.UNAVAILABLE && error.serverMessage === '') {
      const cause = /\(([^)]+)\)\s*$/.exec(error.message)?.[1];
      return {
        message:
          `Cannot reach the Triton server${where}${cause ? ` (${cause})` : ''}. Start it (\`triton-studio serve REPO\`), ` +
          `or change the setting ${SETTING.serverUrl} to the HOST:PORT of a running server's gRPC endpoint.`,
        setting: SETTING.serverUrl,
        unreachable: true,
        cancelled: false,
      };
    }
    if (error.code === status.NOT_FOUND || /unknown model/i.test(error.serverMessage)) {
      return {
        message:
          `The Triton server${where} has no model '${settings?.model ?? '?'}' ready: deploy it, ` +
          `or change the setting ${SETTING.model}. Server said: ${error.serverMessage || error.message}`,
        setting: SETTING.model,
        unreachable: false,
        cancelled: false,
      };
    }
    return { message: error.message, unreachable: false, cancelled: false };
  }
  const message = error instanceof Error ? error.message : String(error);
  // The prompt helper refuses models without the text_input / text_output interface.
  if (/has no '(text_input|text_output)'/.test(message)) {
    return {
      message: `${message}. Change the setting ${SETTING.model} to such an ensemble.`,
      setting: SETTING.model,
      unreachable: false,
      cancelled: false,
    };
  }
  return { message, unreachable: false, cancelled: false };
}
