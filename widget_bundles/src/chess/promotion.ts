// The promotion picker: four pieces to choose from, or cancel. A modal dialog: it takes the focus when it opens
// (the caller focuses its first button), Tab and the arrow keys go round its buttons, Escape cancels.

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
    { class: "wm-promotion", role: "dialog", "aria-modal": "true", "aria-label": "Promote the pawn to", "data-testid": "promotion-picker" },
    ...CHOICES.map(([letter, name]) => {
      const button = el(
        "button",
        { type: "button", "data-promotion": letter, title: name, "aria-label": name },
        el("span", { class: `piece ${side}`, "aria-hidden": "true" }, glyph(letter)),
      );
      button.addEventListener("click", () => choose(letter));
      return button;
    }),
  );
  const cancel = el("button", { type: "button", class: "cancel", "data-promotion": "" }, "Cancel");
  cancel.addEventListener("click", () => choose(null));
  picker.appendChild(cancel);
  picker.addEventListener("keydown", (event) => {
    const buttons = [...picker.querySelectorAll("button")];
    const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
    const step = { Tab: event.shiftKey ? -1 : 1, ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
    if (event.key === "Escape") {
      choose(null);
    } else if (step) {
      buttons[(at + step + buttons.length) % buttons.length]?.focus();
    } else {
      return;
    }
    event.preventDefault();
    event.stopPropagation();
  });
  return picker;
}
