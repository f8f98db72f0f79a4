/** The side panel: the selected step's form, or the selected wire's details; nothing otherwise. */
import type { GraphModel, NodeView, WireView } from '../host/graphModel.js';
import type { GraphEdit } from '../host/textEdits.js';
import type { InitialPage } from './initialPage.js';
import { StepForm } from './stepForm/StepForm.js';
import { post } from './vscodeApi.js';
import { WireInfo } from './WireInfo.js';

export function SidePanel({
  model,
  init,
  step,
  wire,
  onEdit,
}: {
  model: GraphModel | undefined;
  init: InitialPage['init'] | undefined;
  step: NodeView | undefined;
  wire: WireView | undefined;
  onEdit: (edit: GraphEdit) => void;
}) {
  if (step?.kind === 'step' && init)
    return (
      <aside className="side">
        <StepForm
          step={step}
          schema={init.schema}
          onEdit={onEdit}
          onOpenModule={(ref) => post({ type: 'openModule', ref })}
        />
      </aside>
    );
  if (wire && model)
    return (
      <aside className="side">
        <WireInfo wire={wire} model={model} onEdit={onEdit} />
      </aside>
    );
  return null;
}
