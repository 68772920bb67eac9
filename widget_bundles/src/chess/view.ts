// The widget around the board: its head (the game's status; Ask, Flip and the fullscreen toggle), the captured
// material above and below the board, the notice (a refused move, a conflict) and the move list.

import type { Host } from "../shared/bridge";
import { el } from "../shared/dom";
import type { GameMeta, GameState } from "./game";
import { statusText } from "./game";
import { fullscreenButton } from "./layout";
import { renderMaterial } from "./material";
import { renderMoveList } from "./moves";

export interface Notice {
  kind: "error" | "info";
  code?: string;
  text: string;
}

export interface ChessView {
  game: GameState;
  meta: GameMeta;
  flipped: boolean;
  pending: boolean;
  notice: Notice | null;
  /** The board (and the promotion picker over it), drawn already. */
  boardWrap: HTMLElement;
  flip: () => void;
  ask: () => void;
  /** The host refused to change the display mode. */
  displayFailed: (error: unknown) => void;
}

export function renderChessView(host: Host, view: ChessView): HTMLElement {
  const { game, flipped, notice } = view;
  const top = flipped ? "white" : "black";
  const bottom = flipped ? "black" : "white";
  const captured = view.meta.captured ?? { white: [], black: [] };
  const widget = el(
    "div",
    {
      class: "wm-chess",
      "data-game-id": game.gameId,
      "data-ply": game.ply,
      "data-status": game.status,
      "data-orientation": flipped ? "black" : "white",
      "data-pending": view.pending,
      "data-display-mode": host.display.mode,
    },
    el(
      "div",
      { class: "wm-chess-head" },
      el("span", { class: `status ${game.status}`, "data-testid": "chess-status" }, statusText(game)),
      el(
        "span",
        { class: "actions" },
        // Only where the host takes a message in the conversation (ui/message, sendFollowUpMessage).
        host.offers("message") && el("button", { type: "button", class: "ask", "data-testid": "chess-ask", title: "Ask the assistant" }, "Ask"),
        el("button", { type: "button", class: "flip", "data-testid": "chess-flip", title: "Flip the board" }, "Flip"),
        fullscreenButton(host.display, view.displayFailed),
      ),
    ),
    el("div", {}, renderMaterial(top, captured[top], game.fen), view.boardWrap, renderMaterial(bottom, captured[bottom], game.fen)),
    el(
      "div",
      {},
      notice
        ? el(
            "p",
            { class: notice.kind === "error" ? "wm-error" : "wm-info", role: "alert", "data-testid": "chess-message", "data-code": notice.code },
            notice.text,
          )
        : null,
      renderMoveList(view.meta.moveHistory ?? []),
    ),
  );
  widget.querySelector("button.flip")?.addEventListener("click", view.flip);
  widget.querySelector("button.ask")?.addEventListener("click", view.ask);
  return widget;
}
