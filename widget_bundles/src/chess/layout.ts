// The board's two layouts: inline (board, then the move list) and fullscreen (board and move list side by side),
// and the button that asks the host for the other one, shown only where the host offers fullscreen.

import type { DisplayModes } from "../shared/display-mode";
import { el } from "../shared/dom";
import "./layout.css";

/** The toggle for the head of the board, or null when the host offers no fullscreen. */
export function fullscreenButton(display: DisplayModes, failed: (error: unknown) => void): HTMLElement | null {
  const full = display.mode === "fullscreen";
  if (!full && !display.offers("fullscreen")) return null;
  const button = el(
    "button",
    { type: "button", class: "fullscreen", "data-testid": "chess-fullscreen", "aria-pressed": String(full), title: full ? "Back to the conversation" : "Show the board fullscreen" },
    "Fullscreen",
  );
  button.addEventListener("click", () => void display.request(full ? "inline" : "fullscreen").catch(failed));
  return button;
}
