// What the model is told after answers are accepted in the form widget: the form, how far it got, the answers.

import type { ModelContext } from "../shared/model-context";
import type { Answered } from "./app";

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
