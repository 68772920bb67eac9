// The move list ("1. e4 e5 2. Nf3 …") and captured pieces: shared by the board widget and the display host.

import { el } from "../shared/dom";
import { glyph } from "./fen";

export function renderMoveList(moves: readonly string[]): HTMLElement {
  const list = el("ol", { class: "wm-moves", "data-testid": "move-list" });
  for (let i = 0; i < moves.length; i += 2) {
    list.appendChild(
      el("li", {}, el("span", { class: "san" }, moves[i]), " ", moves[i + 1] ? el("span", { class: "san" }, moves[i + 1]) : null),
    );
  }
  if (moves.length === 0) list.appendChild(el("li", { class: "wm-muted empty" }, "No moves yet"));
  return list;
}

/** `taken` are the letters of the pieces one side has captured (lower case, as the tools send them). */
export function renderCaptured(side: "white" | "black", taken: readonly string[]): HTMLElement {
  const victims = side === "white" ? "b" : "w";
  return el(
    "div",
    { class: "wm-captured", "data-captured-by": side, "aria-label": `${side} has captured ${taken.length}` },
    ...taken.filter((t) => /^[pnbrqk]$/i.test(t)).map((t) => el("span", { class: `piece ${victims}` }, glyph(t))),
  );
}
