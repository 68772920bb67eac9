// The promotion picker: four pieces to choose from, or cancel.

import { el } from "../shared/dom";
import { glyph } from "./fen";

const CHOICES: Array<[string, string]> = [
  ["q", "queen"],
  ["r", "rook"],
  ["b", "bishop"],
  ["n", "knight"],
];

export function renderPromotionPicker(turn: "white" | "black", choose: (piece: string | null) => void): HTMLElement {
  const side = turn === "white" ? "w" : "b";
  const picker = el(
    "div",
    { class: "wm-promotion", role: "dialog", "aria-label": "Promote to", "data-testid": "promotion-picker" },
    ...CHOICES.map(([letter, name]) => {
      const button = el(
        "button",
        { type: "button", "data-promotion": letter, title: name, "aria-label": name },
        el("span", { class: `piece ${side}` }, glyph(letter)),
      );
      button.addEventListener("click", () => choose(letter));
      return button;
    }),
  );
  const cancel = el("button", { type: "button", class: "cancel", "data-promotion": "" }, "Cancel");
  cancel.addEventListener("click", () => choose(null));
  picker.appendChild(cancel);
  return picker;
}
