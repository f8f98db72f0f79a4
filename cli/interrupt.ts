/**
 * Ctrl-C / SIGTERM handling for the whole CLI. By default an interrupt exits through
 * process.exit, so the local-server manager's exit hook still kills any tritonserver this
 * process started. A command that can stop more gently (serve) takes the interrupt over while
 * it runs.
 */
type Handler = (signal: NodeJS.Signals) => void;

const handlers: Handler[] = [];

function dispatch(signal: NodeJS.Signals): void {
  const handler = handlers[handlers.length - 1];
  if (handler) handler(signal);
  else process.exit(signal === 'SIGINT' ? 130 : 143);
}

/** Installs the process signal handlers; returns a function that removes them. */
export function installInterruptHandling(): () => void {
  process.on('SIGINT', dispatch);
  process.on('SIGTERM', dispatch);
  return () => {
    process.off('SIGINT', dispatch);
    process.off('SIGTERM', dispatch);
  };
}

/** Routes interrupts to `handler` until the returned function is called. */
export function onInterrupt(handler: Handler): () => void {
  handlers.push(handler);
  return () => {
    const at = handlers.lastIndexOf(handler);
    if (at >= 0) handlers.splice(at, 1);
  };
}
