/** What the step form's sections share: the step's own fields and how a field is set. */
import type { Step } from '../../../../generator/index.js';
import type { StepNodeView } from '../../host/graphModel.js';

/** Sets one field of the step in the text (undefined removes it). */
export type SetField = (field: keyof Step, value: unknown) => void;

export interface SectionProps {
  step: StepNodeView;
  set: SetField;
}
