// The playground's argument editor: a form generated from the tool's inputSchema, rendered by the form widget's
// renderer (RJSF with its CSP-safe validator), beside the raw JSON (`[data-testid="tool-args"]`, which the
// `?tool=&args=` links fill). Either view can be edited; the other follows. The JSON is what a call sends.

import "./args.css";
import { createElement as h } from "react";
import { createRoot, type Root } from "react-dom/client";
import Form, { type IChangeEvent } from "@rjsf/core/lib/components/Form.js";
import type { RJSFSchema, UiSchema } from "@rjsf/utils";
import { el, isRecord } from "../shared/dom";
import { validator } from "../form/validator";
import { argsForm, fromFormData, toFormData, type Args, type ArgsForm } from "./args-schema";

/** The raw JSON as arguments, or a sentence saying why it cannot be sent. */
export function parseArgs(text: string): Args {
  let value: unknown;
  try {
    value = text.trim() ? JSON.parse(text) : {};
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`The arguments are not valid JSON (${reason}): fix the raw JSON, or edit them in the form.`);
  }
  if (!isRecord(value)) throw new Error('The arguments must be a JSON object, such as {"message": "hi"}.');
  return value;
}

export class ArgsPanel {
  readonly textarea = el("textarea", { "data-testid": "tool-args", rows: 6, spellcheck: "false", "aria-label": "arguments (JSON)" });
  readonly element: HTMLElement;
  private readonly formBox = el("div", { class: "args-form", "data-testid": "args-form" });
  private readonly problem = el("p", { class: "args-problem", role: "alert", "data-testid": "args-error", hidden: true });
  private readonly toggle = el("button", { type: "button", "data-testid": "args-json-toggle", "aria-pressed": "true" }, "Raw JSON");
  private root: Root | null = null;
  private form: ArgsForm = argsForm({});
  private current: Args = {};
  private generation = 0;

  constructor() {
    const json = el("div", { class: "args-json" }, this.textarea, this.problem);
    this.element = el("div", { class: "args", "data-testid": "args", "data-view": "both" }, el("div", { class: "args-bar" }, this.toggle), el("div", { class: "args-views" }, this.formBox, json));
    this.textarea.addEventListener("input", () => this.fromJson());
    // The raw JSON can be hidden, never the form: a call always sends what the JSON says, shown or not.
    this.toggle.addEventListener("click", () => {
      const shown = this.element.dataset.view !== "form";
      this.element.dataset.view = shown ? "form" : "both";
      this.toggle.setAttribute("aria-pressed", String(!shown));
    });
  }

  /** A new tool: its form, holding `args`. */
  show(tool: string, inputSchema: unknown, args: Args): void {
    this.element.dataset.tool = tool;
    this.form = argsForm(inputSchema);
    this.setArgs(args);
  }

  /** Arguments given as text (a link's `args=`): the JSON keeps them as written. */
  showText(tool: string, inputSchema: unknown, text: string): void {
    this.element.dataset.tool = tool;
    this.form = argsForm(inputSchema);
    this.textarea.value = text;
    this.fromJson();
    this.renderForm();
  }

  setArgs(args: Args): void {
    this.current = args;
    this.textarea.value = JSON.stringify(args, null, 2);
    this.say(null);
    this.renderForm();
  }

  /** What a call sends: the raw JSON, parsed. */
  value(): Args {
    return parseArgs(this.textarea.value);
  }

  set disabled(value: boolean) {
    this.textarea.disabled = value;
    this.element.toggleAttribute("data-busy", value);
  }

  private fromJson(): void {
    try {
      this.current = parseArgs(this.textarea.value);
    } catch (error) {
      this.say(`${error instanceof Error ? error.message : String(error)} The form shows the last valid arguments.`);
      return;
    }
    this.say(null);
    this.renderForm();
  }

  private fromForm(data: unknown, field: string | undefined): void {
    // Only an edit of a field counts: RJSF also reports the defaults it derives for data shown from the JSON, which
    // would rewrite the JSON being typed (and move its caret).
    if (field === undefined) return;
    const next = fromFormData(this.form, isRecord(data) ? data : {}, this.current);
    if (JSON.stringify(next) === JSON.stringify(this.current)) return;
    this.current = next;
    this.textarea.value = JSON.stringify(next, null, 2);
    this.say(null);
  }

  private say(problem: string | null): void {
    this.problem.hidden = problem === null;
    this.problem.textContent = problem ?? "";
    this.textarea.toggleAttribute("aria-invalid", problem !== null);
  }

  /** A fresh form for every change from outside it, so it never reports data it did not edit as an edit. */
  private renderForm(): void {
    this.root ??= createRoot(this.formBox);
    if (!this.form.fields.length) {
      this.root.render(h("p", { className: "wm-muted", "data-testid": "args-none" }, "This tool takes no arguments."));
      return;
    }
    this.generation += 1;
    this.root.render(
      h(Form<Args>, {
        key: this.generation,
        schema: this.form.schema as RJSFSchema,
        uiSchema: this.form.uiSchema as UiSchema,
        formData: toFormData(this.form, this.current),
        validator,
        liveValidate: "onChange",
        showErrorList: false,
        noHtml5Validate: true,
        onChange: (event: IChangeEvent<Args>, field?: string) => this.fromForm(event.formData, field),
        onSubmit: () => undefined,
      }),
    );
  }
}
