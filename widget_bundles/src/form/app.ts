// The form widget's UI: a DGUI form rendered with RJSF, answered through `submit_form` (the server is the
// authority on validity), step after step, ending in a follow-up message to the conversation.
// No JSX (the project's tsconfig has none): createElement as `h`. Every model string is a text child.

import { createElement as h, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
// The Form itself, not the package index: that also exports a test registry importing @rjsf/validator-ajv8.
import Form, { type IChangeEvent } from "@rjsf/core/lib/components/Form.js";
import type { ErrorSchema, RJSFValidationError, UiSchema } from "@rjsf/utils";
import type { Host, ToolResult } from "../shared/bridge";
import { isRecord } from "../shared/dom";
import { drawingSteps, parseError, parseForm, summarise, toErrorSchema } from "./payload";
import type { Answered, DguiError, FormPayload, Json } from "./payload";
import { CfValidator } from "./validator";
import { formContext, notShownContext } from "./model-context";

export type Phase = "ready" | "sending" | "sent" | "error";

export interface Saved {
  formId: string;
  complete: boolean;
  step: number;
  form?: FormPayload;
  answered: Answered[];
}

export interface Props {
  host: Host;
  initial: FormPayload;
  saved: Saved | null;
  /** The server's bound per level the first step was drawn to (payload.ts, drawingSteps). */
  valueSteps: number;
  /** The form's answer key, from its result's `_meta` (payload.ts, answerKeyOf); undefined: none was given. */
  answerKey?: string;
}

const REQUIRED = "This field is required.";
const TOO_COMPLEX: DguiError = {
  code: "too_complex",
  message: "This form is too complex to show here: answer its questions in the conversation instead.",
  fields: {},
};
const LEFT_TO_SERVER = "These answers are checked when they are sent: this form is too complex to check here.";

/** Client-side messages in the server's words, so a field reads the same whichever side caught it. */
function transformErrors(errors: RJSFValidationError[]): RJSFValidationError[] {
  return errors.map((error) => (error.name === "required" ? { ...error, message: REQUIRED, stack: REQUIRED } : error));
}

export function followUp(formTitle: string, formId: string, answered: Answered[]): string {
  const body = answered.map((a) => (answered.length > 1 && a.title ? `${a.title} — ${a.summary}` : a.summary)).join(" | ");
  return `I filled in the form${formTitle ? ` "${formTitle}"` : ""} (form ${formId}): ${body}`;
}

/** What RJSF's default templates leave out for assistive technology: a radio or checkbox group is named by its
 *  label (which points at the group's id, and a `for` cannot name a div), and a field with an error is invalid
 *  (its message is already tied to it by RJSF's aria-describedby). */
function completeSemantics(root: HTMLElement): void {
  for (const group of root.querySelectorAll<HTMLElement>('[role="radiogroup"], .checkboxes')) {
    const label = group.id ? root.querySelector<HTMLElement>(`label[for="${CSS.escape(group.id)}"]`) : null;
    if (!label) continue;
    label.id ||= `${group.id}__label`;
    if (!group.hasAttribute("role")) group.setAttribute("role", "group");
    group.setAttribute("aria-labelledby", label.id);
  }
  for (const field of root.querySelectorAll<HTMLElement>("input, select, textarea")) {
    if (field.closest(".has-error")) field.setAttribute("aria-invalid", "true");
    else field.removeAttribute("aria-invalid");
  }
}

type FocusNext = "error" | "title" | "sent" | null;

export function FormApp({ host, initial, saved, valueSteps, answerKey }: Props): ReactNode {
  const resumed = saved && saved.formId === initial.formId ? saved : null;
  const [form, setForm] = useState<FormPayload>(resumed?.form ?? initial);
  const [phase, setPhase] = useState<Phase>(resumed?.complete ? "sent" : "ready");
  const [data, setData] = useState<Json | undefined>(undefined);
  const [extraErrors, setExtraErrors] = useState<ErrorSchema | undefined>(undefined);
  const [notice, setNotice] = useState<DguiError | null>(null);
  const [answered, setAnswered] = useState<Answered[]>(resumed?.answered ?? []);
  const [leftToServer, setLeftToServer] = useState(false);
  // One checker per step: it says whether it left the last check to the server.
  const checker = useMemo(() => new CfValidator(form.checkedHere), [form]);
  const box = useRef<HTMLDivElement>(null);
  // Where the focus goes once the server has answered (the Send button it was on is disabled while sending).
  const focusNext = useRef<FocusNext>(null);

  useEffect(() => {
    // RJSF redraws fields on its own (its validation, for one): follow every change of markup or class.
    const root = box.current;
    if (!root) return;
    completeSemantics(root);
    const watch = new MutationObserver(() => completeSemantics(root));
    watch.observe(root, { subtree: true, childList: true, attributes: true, attributeFilter: ["class"] });
    return () => watch.disconnect();
  }, []);

  useEffect(() => {
    // A step not drawn is asked in the conversation: the model holds the form, and is told it was not shown.
    if (form.tooComplex) host.updateModelContext(notShownContext(form.formId, initial.title, form.step, form.steps));
  }, [form]);

  useEffect(() => {
    const root = box.current;
    if (!root) return;
    const next = focusNext.current;
    focusNext.current = null;
    const target =
      next === "error"
        ? root.querySelector<HTMLElement>(".has-error input, .has-error select, .has-error textarea, button[type=submit]")
        : next === "title"
          ? root.querySelector<HTMLElement>(".wm-form-title, input, select, textarea")
          : next === "sent"
            ? root.querySelector<HTMLElement>(".wm-form-sent")
            : null;
    target?.focus();
  });

  const save = (state: Saved): void => {
    host.setWidgetState({ ...state });
    const { complete, answered } = state;
    host.updateModelContext(formContext({ formId: form.formId, title: initial.title, complete, answered, steps: form.steps }));
  };

  const submit = async (event: IChangeEvent<Json>): Promise<void> => {
    const formData = isRecord(event.formData) ? event.formData : {};
    setData(formData);
    setLeftToServer(checker.leftToServer);
    setPhase("sending");
    setNotice(null);
    let result: ToolResult;
    try {
      // The key came with the form's own result: later results (whose `_meta` some hosts drop) need not carry it.
      const args = { formId: form.formId, data: formData, step: form.step, ...(answerKey ? { answerKey } : {}) };
      result = await host.callTool("submit_form", args);
    } catch (error) {
      setNotice({ code: "bridge", message: `Could not send the answers: ${String(error)}`, fields: {} });
      setPhase("error");
      focusNext.current = "error";
      return;
    }
    const sc = result.structuredContent ?? {};
    if (result.isError || sc.type !== "dgui_response") {
      const problem = parseError(result, result.content?.find((c) => c.text)?.text ?? "The answers were not accepted.");
      setExtraErrors(Object.keys(problem.fields).length ? (toErrorSchema(problem.fields) as ErrorSchema) : undefined);
      setNotice(problem);
      setPhase("error");
      focusNext.current = "error";
      return;
    }
    setExtraErrors(undefined);
    const answer = isRecord(sc.data) ? sc.data : formData;
    const done = [...answered, { title: form.title, summary: summarise(form.schema, answer) }];
    setAnswered(done);
    // The next step's result says its own bound; one that does not was checked by the same server as the first.
    const next = parseForm(sc.next, drawingSteps(result._meta, valueSteps));
    if (next && sc.complete !== true) {
      setForm(next);
      setData(undefined);
      setLeftToServer(false);
      setPhase("ready");
      focusNext.current = "title";
      // widgetState is shown to the model in ChatGPT: keep the next step's form there only when it is small.
      const small = JSON.stringify(next).length <= 4000;
      save({ formId: form.formId, complete: false, step: next.step, ...(small ? { form: next } : {}), answered: done });
      return;
    }
    setPhase("sent");
    focusNext.current = "sent";
    save({ formId: form.formId, complete: true, step: form.step, answered: done });
    try {
      await host.sendMessage(followUp(initial.title, form.formId, done));
    } catch (error) {
      setNotice({ code: "message", message: `Sent, but the conversation was not told: ${String(error)}`, fields: {} });
    }
  };

  const header: ReactNode[] = [];
  if (form.title) header.push(h("h2", { key: "t", className: "wm-form-title", "data-testid": "form-title", tabIndex: -1 }, form.title));
  if (form.description) {
    header.push(h("p", { key: "d", className: "wm-form-description wm-muted", "data-testid": "form-description" }, form.description));
  }
  if (form.steps > 1 && phase !== "sent") {
    header.push(h("p", { key: "s", className: "wm-form-step wm-muted", "data-testid": "form-step" }, `Step ${form.step + 1} of ${form.steps}`));
  }

  let body: ReactNode;
  if (form.tooComplex) {
    const { code, message } = TOO_COMPLEX;
    body = h("p", { className: "wm-error", role: "alert", "data-testid": "form-message", "data-code": code }, message);
  } else if (phase === "sent") {
    body = h(
      "div",
      { className: "wm-form-sent", role: "status", "data-testid": "form-sent", tabIndex: -1 },
      h("p", { className: "wm-form-thanks" }, "Thanks — sent"),
      ...answered.map((a, i) => h("p", { key: i, className: "wm-muted wm-form-summary" }, a.summary)),
    );
  } else {
    body = h(Form<Json>, {
      key: `${form.formId}:${form.step}`,
      schema: form.schema,
      uiSchema: { ...form.uiSchema, "ui:submitButtonOptions": { submitText: form.step + 1 < form.steps ? "Next" : "Send" } } as UiSchema,
      formData: data,
      validator: checker,
      extraErrors,
      transformErrors,
      showErrorList: false,
      focusOnFirstError: true,
      noHtml5Validate: true,
      disabled: phase === "sending",
      onChange: (e: IChangeEvent<Json>) => {
        setData(isRecord(e.formData) ? e.formData : undefined);
        if (extraErrors) setExtraErrors(undefined); // the server's verdict was on the old values
      },
      onError: () => undefined, // shown inline already; RJSF would also log them to the console
      onSubmit: (e: IChangeEvent<Json>) => void submit(e),
    });
  }

  return h(
    "div",
    {
      className: "wm-form",
      ref: box,
      "data-state": phase,
      "data-form-id": form.formId,
      "data-step": String(form.step),
    },
    ...header,
    notice
      ? h("p", { key: "n", className: "wm-error", role: "alert", "data-testid": "form-message", "data-code": notice.code }, notice.message)
      : null,
    leftToServer && phase !== "sent"
      ? h("p", { key: "l", className: "wm-muted wm-form-left", role: "status", "data-testid": "form-left-to-server" }, LEFT_TO_SERVER)
      : null,
    body,
  );
}
