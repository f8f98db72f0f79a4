/**
 * The wired graph is complete and flows one way: every required step input has a wire, every
 * ensemble output a producer, every ensemble input a consumer (Triton rejects unused ones), step
 * outputs nobody uses are noted, and the steps form no cycle. Ends of wires already reported as
 * broken are not reported again.
 */
import type { Wiring } from '../graph.js';
import type { CheckContext } from './context.js';

export function checkWiring(ctx: CheckContext, wiring: Wiring): void {
  const { report } = ctx;
  const { connections, wiredInto, halfWired, stepsWithBrokenWires, byProducer } = wiring;
  for (const step of ctx.steps) {
    for (const p of step.inputs) {
      const key = `${step.name}.${p.name}`;
      const excused = halfWired.has(key) || stepsWithBrokenWires.has(step) || ctx.presetProblem.has(step);
      if (!p.optional && !wiredInto.has(key) && !excused) {
        report(
          p.path,
          'TS-E014',
          `Input "${p.name}" of step "${step.name}" is not wired; add a wire { "from": …, "to": "${step.name}.${p.name}" } or mark it optional.`,
        );
      }
    }
  }
  for (const o of ctx.outputs) {
    if (!wiredInto.has(`<out>${o.name}`) && !halfWired.has(`<out>${o.name}`)) {
      report(o.path, 'TS-E018', `No step produces ensemble output "${o.name}"; wire a step output to it.`);
    }
  }
  for (const i of ctx.inputs) {
    const used = connections.some((c) => c.from.kind === 'ensemble' && c.from.port.name === i.name);
    if (!used && !halfWired.has(`<in>${i.name}`)) {
      report(
        i.path,
        'TS-E021',
        `Ensemble input "${i.name}" is used by no step; Triton rejects unused ensemble inputs. Wire it or remove it.`,
      );
    }
  }
  for (const step of ctx.steps) {
    for (const o of step.outputs) {
      if (!byProducer.has(`${step.name}.${o.name}`) && !halfWired.has(`${step.name}.${o.name}`)) {
        report(o.path, 'TS-W001', `Output "${o.name}" of step "${step.name}" is not used.`, 'info');
      }
    }
  }
  // Cycles: Triton runs steps as their inputs arrive; a loop never starts.
  if (!wiring.order.ok) {
    const cycle = wiring.order.cycle;
    const wire = connections.find(
      (c) =>
        c.from.kind === 'step' &&
        c.to.kind === 'step' &&
        c.from.step === cycle[cycle.length - 1] &&
        c.to.step === cycle[0],
    );
    report(
      wire ? ['wires', wire.index] : cycle[0]!.path,
      'TS-E017',
      `The steps form a cycle (${[...cycle, cycle[0]!].map((s) => s.name).join(' → ')}); an ensemble must flow one way. Remove a wire.`,
    );
  }
}
