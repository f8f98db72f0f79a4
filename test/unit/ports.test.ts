/** freePorts: the distinct loopback ports a local tritonserver is started on. */
import { describe, expect, it } from 'vitest';
import { freePorts } from '../../client/server/ports.js';

describe('freePorts: the ports a local tritonserver listens on', () => {
  it('draws distinct ports, each bound until all are (one at a time, the OS may repeat one)', async () => {
    const ports = await freePorts(200);
    expect(new Set(ports).size).toBe(200);
    for (const port of ports) expect(port).toBeGreaterThan(0);
  });

  it('never returns a port the caller fixed for another of the server’s listeners', async () => {
    const fixed = await freePorts(100);
    const drawn = await freePorts(100, fixed);
    expect(drawn.filter((port) => fixed.includes(port))).toEqual([]);
  });

  it('draws nothing when every port is fixed', async () => {
    expect(await freePorts(0, [8000, 8001, 8002])).toEqual([]);
  });
});
