// Stands in for markdown-to-jsx, which RJSF uses for `ui:enableMarkdownIn*` descriptions and for file names in
// its file widget. Text from the model or the user is only ever shown as text here, so "markdown" renders as
// the literal string — and the form bundle sheds markdown-to-jsx's ~80 KB of parser and entity tables.

import { createElement, type ReactNode } from "react";

export function Markdown({ children }: { children?: ReactNode }): ReactNode {
  return createElement("span", null, typeof children === "string" ? children : String(children ?? ""));
}

export default Markdown;
