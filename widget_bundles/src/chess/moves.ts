// The move list ("1. e4 e5 2. Nf3 …"): shared by the board widget and the display host.

import { el } from "../shared/dom";

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
