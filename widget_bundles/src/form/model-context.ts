// What the model is told after answers are accepted in the form widget (the form, how far it got, the answers),
// or when the widget could not draw a step (complexity.ts), so that the model asks its questions itself.

import type { ModelContext } from "../shared/model-context";
import type { Answered } from "./payload";

export interface FormProgress {
  formId: string;
  title: string;
  complete: boolean;
  /** Steps answered so far, and in all. */
  answered: Answered[];
  steps: number;
}

export function formContext({ formId, title, complete, answered, steps }: FormProgress): ModelContext {
  const named = title ? ` "${title}"` : "";
  const progress = complete ? "sent" : `step ${answered.length} of ${steps} answered`;
  const answers = answered.map((a) => (answered.length > 1 && a.title ? `${a.title} — ${a.summary}` : a.summary));
  return {
    text: `Form ${formId}${named}, answered in the widget: ${progress}. Answers: ${answers.join(" | ")}`,
    fields: { formId, title, complete, step: answered.length, steps, answers },
  };
}

/** The step the widget would not draw: the model is to ask its questions in the conversation (it holds the form). */
export function notShownContext(formId: string, title: string, step: number, steps: number): ModelContext {
  const named = title ? ` "${title}"` : "";
  const which = steps > 1 ? ` (step ${step + 1} of ${steps})` : "";
  return {
    text:
      `Form ${formId}${named}${which} is too complex for the widget to show: nothing was drawn or answered there. ` +
      "Ask the user its questions in the conversation.",
    fields: { formId, title, shown: false, step, steps },
  };
}
