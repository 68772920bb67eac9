// The move list ("1. e4 e5 2. Nf3 …") and captured pieces: shared by the board widget and the display host.

import { el } from "../shared/dom";
import { glyph, NAMES } from "./fen";

export function renderMoveList(moves: readonly string[]): HTMLElement {
  const list = el("ol", { class: "wm-moves", "data-testid": "move-list", "aria-label": "Moves" });
  for (let i = 0; i < moves.length; i += 2) {
    list.appendChild(
      el("li", {}, el("span", { class: "san" }, moves[i]), " ", moves[i + 1] ? el("span", { class: "san" }, moves[i + 1]) : null),
    );
  }
  if (moves.length === 0) list.appendChild(el("li", { class: "wm-muted empty" }, "No moves yet"));
  return list;
}

/** `taken` are the letters of the pieces one side has captured (lower case, as the tools send them). Drawn in the
 *  text colour (white pieces in outline, black ones solid), so they read in either theme; named for assistive
 *  technology as a list of pieces. */
export function renderCaptured(side: "white" | "black", taken: readonly string[]): HTMLElement {
  const pieces = taken.filter((t) => /^[pnbrqk]$/i.test(t));
  const names = pieces.map((t) => NAMES[t.toUpperCase()]).join(", ");
  return el(
    "div",
    { class: "wm-captured", "data-captured-by": side, role: "img", "aria-label": `${side === "white" ? "White" : "Black"} has captured ${names || "nothing"}` },
    ...pieces.map((t) => el("span", { class: "piece" }, glyph(t, side === "black"))),
  );
}
